import Foundation
import QuakeFormat
/// What `repair` found and did.
public struct RepairReport: Sendable, CustomStringConvertible {
    /// The generation of the rebuilt manifest.
    public let generation: Int
    /// Partitions in the rebuilt manifest.
    public let partitions: Int
    /// Rows in the rebuilt manifest.
    public let rows: Int
    /// Newer generations passed over because their files were incomplete or disagreed.
    public let skipped: [String]
    /// Where the damaged manifest was moved, when there was one.
    public let movedAside: String?
    /// True when the manifest was sound and only the store catalog or the magnitude projection
    /// (files derived from the partitions) was rebuilt.
    public var catalogOnly = false

    public var description: String {
        if catalogOnly {
            return "rebuilt the store catalog and magnitude projection at generation \(generation): "
                + "\(partitions) partitions, \(rows) rows"
        }
        var s = "rebuilt \(Manifest.fileName) at generation \(generation): \(partitions) partitions, \(rows) rows"
        if let movedAside { s += "; the damaged manifest is kept as \(movedAside)" }
        if !skipped.isEmpty { s += "\nrolled back past newer generations whose files are damaged or incomplete:" }
        for k in skipped { s += "\n  \(k)" }
        return s
    }
}

extension Store {
    /// Rebuilds a lost or damaged manifest from the newest complete generation of files.
    ///
    /// Every file carries its generation in its name (`KEY.gN.qkp`, `NN.gN.idx`), and a commit
    /// writes all of a generation's files before it renames the manifest. So the snapshot of
    /// generation `G` is, per partition key and per id bucket, the newest file of a generation
    /// at most `G`. Candidates are tried from the newest generation down; one is taken when
    /// every file passes its checksums and the id index and the partitions agree exactly
    /// (each row placed by one index entry, in the partition it names). A partition file older than `G`
    /// whose every row the index places elsewhere is one that generation `G` emptied and
    /// retired, and is left out. The result is committed atomically, then fully verified.
    ///
    /// When the manifest is sound but the store catalog it names is damaged or missing, commits
    /// the same snapshot at the next generation with the catalog rebuilt from the partitions.
    /// Refuses when the manifest and catalog are sound (nothing to repair). Takes the writer lock.
    /// - Complexity: reads the id and time columns of every candidate partition: O(rows).
    public static func repair(path: String) throws(QuakeError) -> RepairReport {
        try repair(path: path, lockWait: .never)
    }

    /// ``repair(path:)``, waiting for the writer lock as `lockWait` allows (asking `cancelled`
    /// meanwhile): `quakes repair --wait`.
    package static func repair(path: String, lockWait: LockWait,
                               cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> RepairReport {
        guard FileIO.isDirectory(path) else {
            throw QuakeError(.io, path: path, errno: FileIO.exists(path) ? ENOTDIR : ENOENT, detail: "not a store directory")
        }
        let lock = try writerLock(path: path, wait: lockWait, cancelled: cancelled)
        defer { withExtendedLifetime(lock) {} }
        let mpath = manifestPath(path)
        if FileIO.exists(mpath) {
            var sound = true
            do throws(QuakeError) { _ = try Manifest.read(path: mpath) } catch {
                guard error.isCorruption else { throw error }
                sound = false
            }
            if sound {
                if let report = try repairCatalog(path: path) { return report }
                throw QuakeError(.nothingToRepair, path: mpath, detail: "sound; nothing to repair")
            }
        }
        let parts = FileIO.list(path + "/partitions").compactMap(FileName.init(partition:))
        let buckets = FileIO.list(path + "/ids").compactMap(FileName.init(bucket:))
        guard !parts.isEmpty || !buckets.isEmpty else {
            throw QuakeError(.io, path: path, detail: "holds no partition or id-index files; there is nothing to rebuild a "
                + "manifest from")
        }
        let generations = Set(parts.map(\.generation) + buckets.map(\.generation)).sorted(by: >)
        var skipped: [String] = []
        for g in generations {
            do throws(QuakeError) {
                var m = try candidate(path: path, generation: g, parts: parts, buckets: buckets)
                try rebuildTopRows(&m, storePath: path)
                var moved: String?
                if FileIO.exists(mpath) {
                    moved = Manifest.fileName + ".damaged"
                    try FileIO.rename(mpath, path + "/" + Manifest.fileName + ".damaged")
                }
                try commit(m, storePath: path)
                do { _ = try Store(path: path).verify() } catch {
                    throw .corrupt("the rebuilt manifest of generation \(g) does not verify: \(error)")
                }
                return RepairReport(generation: g, partitions: m.partitions.count, rows: m.rows,
                                    skipped: skipped, movedAside: moved)
            } catch {
                guard error.isCorruption else { throw error }
                skipped.append("generation \(g): \(error.message)")
            }
        }
        throw .corrupt("no generation of \(path) is complete and consistent:\n  " + skipped.joined(separator: "\n  "))
    }

    /// The snapshot of generation `g`, checked file by file; throws `.corrupt` when it is not whole.
    private static func candidate(path: String, generation g: Int, parts: [FileName],
                                  buckets: [FileName]) throws(QuakeError) -> Manifest {
        // newest file per key and per bucket, of a generation at most g
        var byKey: [String: FileName] = [:]
        for p in parts where p.generation <= g {
            if let o = byKey[p.stem], o.generation >= p.generation { continue }
            byKey[p.stem] = p
        }
        var byBucket: [Int: FileName] = [:]
        for b in buckets where b.generation <= g {
            guard let k = Int(b.stem), k >= 0, k < Manifest.idBucketCount else { continue }
            if let o = byBucket[k], o.generation >= b.generation { continue }
            byBucket[k] = b
        }
        guard let partitioning = Partitioning(keyShape: byKey.keys.first ?? "2000-01") else {
            throw .corrupt("partition keys of an unknown shape")
        }
        // the id index of generation g: its (bucket, key, partition) entries, each with a count
        var entries: [IdEntry: Int] = [:]
        var indexed = 0
        var bits = [Int](repeating: IdHashes.defaultBits, count: Manifest.idBucketCount)
        var idFiles = [String?](repeating: nil, count: Manifest.idBucketCount)
        for (k, f) in byBucket {
            let h = try IdHashes.read(path: path + "/ids/" + f.name, bucket: k, partitioning: partitioning)
            bits[k] = h.bits
            for j in 0..<h.count { entries[IdEntry(bucket: k, key: h.keys[j], ordinal: h.ordinals[j]), default: 0] += 1 }
            indexed += h.count
            idFiles[k] = f.name
        }
        var m = Manifest(partitioning: partitioning)
        m.generation = g
        // transactions cannot be told complete without the manifest that named them: the
        // history restarts after the restored generation (older transaction files are collected)
        m.history = HistoryRetention(startingAt: g)
        var blockRows: Int?
        for key in byKey.keys.sorted() {
            guard let f = byKey[key] else { continue }
            let scan = try scanPartition(store: path, file: f.name, partitioning: partitioning, bits: bits,
                                         entries: &entries)
            if scan.matched == 0 && f.generation < g { continue }  // emptied and retired by a later generation
            guard scan.matched == scan.rows else {
                throw .corrupt("partitions/\(f.name): \(scan.rows - scan.matched) of \(scan.rows) rows disagree with the id index")
            }
            guard key == partitioning.key(scan.minTime) else { throw .corrupt("partitions/\(f.name) holds other times") }
            if let b = blockRows, b != scan.blockRows { throw .corrupt("partitions/\(f.name): another block size") }
            blockRows = scan.blockRows
            m.partitions.append(PartitionEntry(key: key, file: f.name, rows: scan.rows, minTime: scan.minTime,
                                               maxTime: scan.maxTime, bytes: FileIO.size(path + "/partitions/" + f.name),
                                               deleted: scan.deleted))
            m.rows += scan.rows
        }
        guard m.rows == indexed else {
            throw .corrupt("the id index holds \(indexed) ids, the partitions \(m.rows) rows")
        }
        m.blockRows = blockRows ?? Manifest.defaultBlockRows
        m.idBuckets = idFiles
        m.partitions.sort { $0.minTime < $1.minTime }
        return m
    }

    private struct PartitionScan {
        package var rows = 0, matched = 0, blockRows = 0, deleted = 0
        package var minTime = Int64.max, maxTime = Int64.min
    }

    /// An id index entry: the bucket and key of an id's hash, and the partition holding it.
    private struct IdEntry: Hashable {
        let bucket: Int
        let key: UInt64
        let ordinal: Int
    }

    /// Reads a partition's ids and times and counts the rows the id index places there; each
    /// entry places one row.
    private static func scanPartition(store: String, file: String, partitioning: Partitioning, bits: [Int],
                                      entries: inout [IdEntry: Int]) throws(QuakeError) -> PartitionScan {
        let path = store + "/partitions/" + file
        let mapped = try MappedFile(path: path)
        // SAFETY: withExtendedLifetime keeps the mapping alive while storedRows reads mapped.bytes.
        let rows = try withExtendedLifetime(mapped) { () throws(QuakeError) in
            try PartitionFile.storedRows(mapped.bytes, path: path)
        }
        let r = PartitionReader(storePath: store, entry: PartitionEntry(key: "", file: file, rows: rows, minTime: 0,
                                                                        maxTime: 0, bytes: 0))
        let d = try r.directory()
        var s = PartitionScan(rows: rows, blockRows: d.blockRows)
        for k in 0..<d.blockSizes.count {
            let t = try r.ints(.time, block: k), ids = try r.arena(.id, block: k)
            guard t.count == ids.count else { throw .corrupt(path, "block \(k) columns disagree") }
            s.deleted += try r.arena(.status, block: k).count(of: ByteArena.deletedStatus)
            // SAFETY: t.count == ids.count (the guard), so i < ids.count and each decoded range lies in `raw`;
            // hash only reads the slice.
            ids.bytes.withUnsafeBytes { raw in
                for i in 0..<t.count {
                    s.minTime = min(s.minTime, t[i]); s.maxTime = max(s.maxTime, t[i])
                    let h = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)]))
                    let b = IdHashes.bucket(h)
                    let e = IdEntry(bucket: b, key: IdHashes.key(h, bits: bits[b]), ordinal: partitioning.ordinal(t[i]))
                    guard let n = entries[e], n > 0 else { continue }
                    entries[e] = n - 1
                    s.matched += 1
                }
            }
        }
        return s
    }
}

/// A store file name: `STEM.gN.EXT`.
package struct FileName {
    package let name: String
    package let stem: String
    package let generation: Int

    package init?(partition name: String) { self.init(name, ext: PartitionFile.fileExtension) }
    package init?(bucket name: String) { self.init(name, ext: "idx") }

    private init?(_ name: String, ext: String) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == ext, parts[1].hasPrefix("g"), let g = Int(parts[1].dropFirst()), g >= 0,
              !parts[0].isEmpty else { return nil }
        self.name = name
        stem = String(parts[0])
        generation = g
    }
}

extension Partitioning {
    /// The partitioning whose keys look like `key`: `2011`, `2011-03` or `2011-03-11`.
    package init?(keyShape key: String) {
        switch key.utf8.count {
        case 4: self = .year
        case 7: self = .month
        case 10: self = .day
        default: return nil
        }
    }
}

extension QuakeError {
    /// Damage (as opposed to a missing file, a lock or an unsupported format).
    package var isCorruption: Bool { kind == .corrupt }
}
