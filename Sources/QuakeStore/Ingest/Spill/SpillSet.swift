import QuakeFormat
/// The loader's scratch files: one spill per time partition (created on first use) and one per
/// id-hash bucket, in the store's `tmp/` folder, which the next load or garbage collection removes.
/// A spill stays in memory while the process's spills fit ``SpillFile/memoryBudget``.
package final class SpillSet {
    package let directory: String
    package private(set) var partitions: [Int: SpillFile] = [:]
    package let idBuckets: [SpillFile]
    /// Bytes each spill may hold in memory (``SpillFile/init(path:memoryLimit:)``).
    private let memoryLimit: Int

    /// Sizes of every spill at one moment, to roll a failed file back to.
    package struct Marks {
        package var partitions: [Int: Int]
        package var idBuckets: [Int]
    }

    package init(directory: String, memoryLimit: Int = SpillFile.memoryBudget) throws(QuakeError) {
        self.directory = directory
        self.memoryLimit = memoryLimit
        FileIO.remove(directory)
        try FileIO.makeDirectory(directory)
        var ids: [SpillFile] = []
        for b in 0..<Manifest.idBucketCount { ids.append(SpillFile(path: "\(directory)/ids-\(b).spill", memoryLimit: memoryLimit)) }
        idBuckets = ids
    }

    /// The spill of partition `o`.
    package func partition(_ o: Int) throws(QuakeError) -> SpillFile {
        if let spill = partitions[o] { return spill }
        let spill = SpillFile(path: "\(directory)/part-\(o).spill", memoryLimit: memoryLimit)
        partitions[o] = spill
        return spill
    }

    package var marks: Marks {
        Marks(partitions: partitions.mapValues { $0.size }, idBuckets: idBuckets.map { $0.size })
    }

    /// Drops everything appended after `m`.
    package func truncate(to m: Marks) throws(QuakeError) {
        for (o, s) in partitions { try s.truncate(to: m.partitions[o] ?? 0) }
        for (b, s) in idBuckets.enumerated() { try s.truncate(to: m.idBuckets[b]) }
    }
}
