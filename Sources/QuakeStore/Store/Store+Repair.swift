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
    /// True when the manifest was sound and only files derived from the partitions (the store
    /// catalog, the magnitude projection, id-index buckets) were rebuilt.
    public var catalogOnly = false
    /// With ``catalogOnly``: which of them were rebuilt.
    package var rebuiltCatalog = false
    package var rebuiltProjection = false
    package var rebuiltIdBuckets = 0

    public var description: String {
        if catalogOnly {
            var rebuilt: [String] = []
            if rebuiltCatalog { rebuilt.append("the store catalog") }
            if rebuiltProjection { rebuilt.append("the magnitude projection") }
            if rebuiltIdBuckets > 0 {
                rebuilt.append("\(rebuiltIdBuckets) id-index bucket\(rebuiltIdBuckets == 1 ? "" : "s")")
            }
            let what = rebuilt.count > 1
                ? rebuilt.dropLast().joined(separator: ", ") + " and " + (rebuilt.last ?? "")
                : rebuilt.first ?? "nothing"
            return "rebuilt \(what) at generation \(generation): \(partitions) partitions, \(rows) rows"
        }
        var text = "rebuilt \(Manifest.fileName) at generation \(generation): \(partitions) partitions, \(rows) rows"
        if let movedAside { text += "; the damaged manifest is kept as \(movedAside)" }
        if !skipped.isEmpty {
            text += "\nrolled back past newer generations whose files are damaged or incomplete:"
        }
        for reason in skipped {
            text += "\n  \(reason)"
        }
        return text
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
    /// (each row placed by one index entry, in the partition it names). A partition file older
    /// than `G` whose every row the index places elsewhere is one that generation `G` emptied and
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
        try requireDirectory(path)
        // a folder that is no store (no manifest that reads, nothing to rebuild one from) gets no LOCK file
        guard hasStoreFiles(path) || (try? Manifest.read(path: manifestPath(path))) != nil else {
            throw nothingToRebuild(path)
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
        guard !parts.isEmpty || !buckets.isEmpty else { throw nothingToRebuild(path) }
        let generations = Set(parts.map(\.generation) + buckets.map(\.generation)).sorted(by: >)
        var skipped: [String] = []
        for g in generations {
            do throws(QuakeError) {
                var manifest = try candidate(path: path, generation: g, parts: parts, buckets: buckets)
                try rebuildTopRows(&manifest, storePath: path)
                var moved: String?
                if FileIO.exists(mpath) {
                    moved = Manifest.fileName + ".damaged"
                    try FileIO.rename(mpath, path + "/" + Manifest.fileName + ".damaged")
                }
                try commit(manifest, storePath: path)
                do {
                    _ = try Store(path: path).verify()
                } catch {
                    throw .corrupt("the rebuilt manifest of generation \(g) does not verify: \(error)")
                }
                return RepairReport(generation: g, partitions: manifest.partitions.count, rows: manifest.rows,
                                    skipped: skipped, movedAside: moved)
            } catch {
                guard error.isCorruption else { throw error }
                skipped.append("generation \(g): \(error.message)")
            }
        }
        // one line, as every error: the generations tried, newest first
        throw .corrupt("no generation of \(path) is complete and consistent: " + skipped.joined(separator: "; "))
    }

    /// The snapshot of generation `g`, checked file by file; throws `.corrupt` when it is not whole.
    private static func candidate(path: String, generation g: Int, parts: [FileName],
                                  buckets: [FileName]) throws(QuakeError) -> Manifest {
        // newest file per key and per bucket, of a generation at most g
        var byKey: [String: FileName] = [:]
        for part in parts where part.generation <= g {
            if let other = byKey[part.stem], other.generation >= part.generation { continue }
            byKey[part.stem] = part
        }
        var byBucket: [Int: FileName] = [:]
        for bucketFile in buckets where bucketFile.generation <= g {
            guard let bucket = Int(bucketFile.stem), bucket >= 0, bucket < Manifest.idBucketCount else { continue }
            if let other = byBucket[bucket], other.generation >= bucketFile.generation { continue }
            byBucket[bucket] = bucketFile
        }
        guard let partitioning = Partitioning(keyShape: byKey.keys.first ?? "2000-01") else {
            throw .corrupt("partition keys of an unknown shape")
        }
        var index = try readIdIndex(path: path, byBucket: byBucket, partitioning: partitioning)
        var manifest = Manifest(partitioning: partitioning)
        manifest.generation = g
        // transactions cannot be told complete without the manifest that named them: the
        // history restarts after the restored generation (older transaction files are collected)
        manifest.history = HistoryRetention(startingAt: g)
        var blockRows: Int?
        for key in byKey.keys.sorted() {
            guard let file = byKey[key] else { continue }
            let scan = try scanPartition(store: path, file: file.name, partitioning: partitioning, bits: index.bits,
                                         entries: &index.entries)
            if scan.matched == 0 && file.generation < g { continue }  // emptied and retired by a later generation
            guard scan.matched == scan.rows else {
                throw .corrupt("partitions/\(file.name): \(scan.rows - scan.matched) of \(scan.rows) rows "
                               + "disagree with the id index")
            }
            guard key == partitioning.key(scan.minTime) else {
                throw .corrupt("partitions/\(file.name) holds other times")
            }
            if let earlier = blockRows, earlier != scan.blockRows {
                throw .corrupt("partitions/\(file.name): another block size")
            }
            blockRows = scan.blockRows
            manifest.partitions.append(PartitionEntry(key: key, file: file.name, rows: scan.rows,
                                                      minTime: scan.minTime, maxTime: scan.maxTime,
                                                      bytes: FileIO.size(path + "/partitions/" + file.name),
                                                      deleted: scan.deleted))
            manifest.rows += scan.rows
        }
        guard manifest.rows == index.indexed else {
            throw .corrupt("the id index holds \(index.indexed) ids, the partitions \(manifest.rows) rows")
        }
        manifest.blockRows = blockRows ?? Manifest.defaultBlockRows
        manifest.idBuckets = index.files
        manifest.partitions.sort { $0.minTime < $1.minTime }
        return manifest
    }

    /// The id index of a generation: its (bucket, key, partition) entries, each with a count,
    /// the ids it holds, and per bucket its hash bits and file.
    private static func readIdIndex(path: String, byBucket: [Int: FileName], partitioning: Partitioning)
        throws(QuakeError) -> (entries: [IdEntry: Int], indexed: Int, bits: [Int], files: [String?]) {
        var entries: [IdEntry: Int] = [:]
        var indexed = 0
        var bits = [Int](repeating: IdHashes.defaultBits, count: Manifest.idBucketCount)
        var idFiles = [String?](repeating: nil, count: Manifest.idBucketCount)
        for (bucket, file) in byBucket {
            let hashes = try IdHashes.read(path: path + "/ids/" + file.name, bucket: bucket, partitioning: partitioning)
            bits[bucket] = hashes.bits
            for j in 0..<hashes.count {
                let entry = IdEntry(bucket: bucket, key: hashes.keys[j], ordinal: hashes.ordinals[j],
                                    hint: hashes.hints[j])
                entries[entry, default: 0] += 1
            }
            indexed += hashes.count
            idFiles[bucket] = file.name
        }
        return (entries, indexed, bits, idFiles)
    }

    private struct PartitionScan {
        package var rows = 0, matched = 0, blockRows = 0, deleted = 0
        package var minTime = Int64.max, maxTime = Int64.min
    }

    /// An id index entry: the bucket and key of an id's hash, the partition holding it and the
    /// minute there (or ``IdHashes/unknownHint``).
    private struct IdEntry: Hashable {
        let bucket: Int
        let key: UInt64
        let ordinal: Int
        let hint: UInt32

        /// The same entry with its minute unknown, as files written before hints list it.
        var withoutHint: IdEntry { IdEntry(bucket: bucket, key: key, ordinal: ordinal, hint: IdHashes.unknownHint) }
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
        let reader = PartitionReader(storePath: store, entry: PartitionEntry(key: "", file: file, rows: rows,
                                                                             minTime: 0, maxTime: 0, bytes: 0))
        let directory = try reader.directory()
        var scan = PartitionScan(rows: rows, blockRows: directory.blockRows)
        for k in 0..<directory.blockSizes.count {
            let times = try reader.ints(.time, block: k)
            let ids = try reader.arena(.id, block: k)
            guard times.count == ids.count else { throw .corrupt(path, "block \(k) columns disagree") }
            scan.deleted += try reader.arena(.status, block: k).count(of: ByteArena.deletedStatus)
            // SAFETY: times.count == ids.count (the guard), so i < ids.count and each decoded range lies in
            // `raw`; hash only reads the slice.
            ids.bytes.withUnsafeBytes { raw in
                for i in 0..<times.count {
                    scan.minTime = min(scan.minTime, times[i])
                    scan.maxTime = max(scan.maxTime, times[i])
                    let hash = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)]))
                    let bucket = IdHashes.bucket(hash)
                    let ordinal = partitioning.ordinal(times[i])
                    let hint = IdHashes.hint(time: times[i], partitionStart: partitioning.start(ordinal: ordinal))
                    let exact = IdEntry(bucket: bucket, key: IdHashes.key(hash, bits: bits[bucket]),
                                        ordinal: ordinal, hint: hint)
                    // the entry with the row's minute, or else one of unknown minute
                    let entry = (entries[exact] ?? 0) > 0 ? exact : exact.withoutHint
                    guard let count = entries[entry], count > 0 else { continue }
                    entries[entry] = count - 1
                    scan.matched += 1
                }
            }
        }
        return scan
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
        guard parts.count == 3, parts[2] == ext, parts[1].hasPrefix("g"),
              let number = Int(parts[1].dropFirst()), number >= 0,
              !parts[0].isEmpty else { return nil }
        self.name = name
        stem = String(parts[0])
        generation = number
    }
}

extension Store {
    /// Throws when `path` is missing or no directory, before any lock is taken there.
    static func requireDirectory(_ path: String) throws(QuakeError) {
        guard FileIO.isDirectory(path) else {
            throw QuakeError(.io, path: path, errno: FileIO.exists(path) ? ENOTDIR : ENOENT,
                             detail: "not a store directory")
        }
    }

    /// Whether `path` holds a partition or id-index file that a manifest could be rebuilt from.
    private static func hasStoreFiles(_ path: String) -> Bool {
        FileIO.list(path + "/partitions").contains { FileName(partition: $0) != nil }
            || FileIO.list(path + "/ids").contains { FileName(bucket: $0) != nil }
    }

    /// The error for a folder with no manifest that reads and no file to rebuild one from.
    private static func nothingToRebuild(_ path: String) -> QuakeError {
        QuakeError(.io, path: path,
                   detail: "holds no partition or id-index files; there is nothing to rebuild a manifest from")
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
