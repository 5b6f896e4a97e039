/// The loader's scratch files: one spill per time partition (created on first use) and one per
/// id-hash bucket, in the store's `tmp/` folder, which the next load or garbage collection removes.
final class SpillSet {
    let directory: String
    private(set) var partitions: [Int: SpillFile] = [:]
    let idBuckets: [SpillFile]

    /// Sizes of every spill at one moment, to roll a failed file back to.
    struct Marks {
        var partitions: [Int: Int]
        var idBuckets: [Int]
    }

    init(directory: String) throws(StoreError) {
        self.directory = directory
        FileIO.remove(directory)
        try FileIO.makeDirectory(directory)
        var ids: [SpillFile] = []
        for b in 0..<Manifest.idBucketCount { ids.append(try SpillFile(path: "\(directory)/ids-\(b).spill")) }
        idBuckets = ids
    }

    /// The spill of partition `o`.
    func partition(_ o: Int) throws(StoreError) -> SpillFile {
        if let s = partitions[o] { return s }
        let s = try SpillFile(path: "\(directory)/part-\(o).spill")
        partitions[o] = s
        return s
    }

    var marks: Marks { Marks(partitions: partitions.mapValues { $0.size }, idBuckets: idBuckets.map { $0.size }) }

    /// Drops everything appended after `m`.
    func truncate(to m: Marks) {
        for (o, s) in partitions { s.truncate(to: m.partitions[o] ?? 0) }
        for (b, s) in idBuckets.enumerated() { s.truncate(to: m.idBuckets[b]) }
    }
}
