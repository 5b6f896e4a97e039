import QuakeFormat

/// `repair` of the id index of a sound manifest: a bucket file that is missing or fails its
/// checks is written again from the partitions' ids and times (the index is derived from them).
extension Store {
    /// The buckets `m` names whose files are missing or damaged, ascending.
    /// - Complexity: reads every bucket file whole, each block's checksum checked.
    static func damagedIdBuckets(_ m: Manifest, storePath: String) throws(QuakeError) -> [Int] {
        var damaged: [Int] = []
        for (bucket, file) in m.idBuckets.enumerated() {
            guard let file else { continue }
            do throws(QuakeError) {
                _ = try IdHashes.read(path: storePath + "/ids/" + file, bucket: bucket, partitioning: m.partitioning)
            } catch {
                guard error.isCorruption || error.kind == .notFound || error.kind == .io else { throw error }
                damaged.append(bucket)
            }
        }
        return damaged
    }

    /// Writes buckets `buckets` of `m` again from its partitions, one partition per core at a
    /// time, as files of `m.generation` at the default key width; the old files are retired.
    /// - Complexity: reads the id and time columns of every partition: O(rows).
    static func rebuildIdBuckets(_ buckets: [Int], _ m: inout Manifest, storePath: String) throws(QuakeError) {
        guard !buckets.isEmpty else { return }
        let wanted = Set(buckets)
        let partitioning = m.partitioning
        let perPartition: [[Int: IdHashes]]
        do {
            perPartition = try parallelMap(m.partitions) { entry in
                try Self.idEntries(entry, storePath: storePath, partitioning: partitioning, buckets: wanted)
            }
        } catch let error as QuakeError {
            throw error
        } catch {
            throw .io(storePath, "\(error)")
        }
        for bucket in buckets {
            var hashes = IdHashes()
            for part in perPartition {
                guard let piece = part[bucket] else { continue }
                hashes.keys.append(contentsOf: piece.keys)
                hashes.ordinals.append(contentsOf: piece.ordinals)
                hashes.hints.append(contentsOf: piece.hints)
            }
            hashes.sort()
            if let old = m.idBuckets[bucket], !m.retired.contains("ids/" + old) { m.retired.append("ids/" + old) }
            guard hashes.count > 0 else {
                m.idBuckets[bucket] = nil
                continue
            }
            let name = IdHashes.fileName(bucket: bucket, generation: m.generation)
            try FileIO.writeDurably(storePath + "/ids/" + name, hashes.fileBytes())
            m.idBuckets[bucket] = name
        }
        try FileIO.fsyncDirectory(storePath + "/ids")
    }

    /// The entries partition `entry` gives buckets `buckets`: per row, its id's key, the
    /// partition's ordinal and the row's minute there.
    private static func idEntries(_ entry: PartitionEntry, storePath: String, partitioning: Partitioning,
                                  buckets: Set<Int>) throws(QuakeError) -> [Int: IdHashes] {
        let reader = PartitionReader(storePath: storePath, entry: entry)
        let directory = try reader.directory()
        var out: [Int: IdHashes] = [:]
        for block in 0..<directory.blockSizes.count {
            let times = try reader.ints(.time, block: block)
            let ids = try reader.arena(.id, block: block)
            guard times.count == ids.count else { throw .corrupt(reader.path, "block \(block) columns disagree") }
            // SAFETY: times.count == ids.count (the guard), so each row's decoded range lies in `raw`;
            // hash only reads the slice.
            ids.bytes.withUnsafeBytes { raw in
                for row in 0..<times.count {
                    let hash = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[ids.range(row)]))
                    let bucket = IdHashes.bucket(hash)
                    guard buckets.contains(bucket) else { continue }
                    let ordinal = partitioning.ordinal(times[row])
                    out[bucket, default: IdHashes()].keys.append(IdHashes.key(hash, bits: IdHashes.defaultBits))
                    out[bucket, default: IdHashes()].ordinals.append(ordinal)
                    out[bucket, default: IdHashes()].hints.append(
                        IdHashes.hint(time: times[row], partitionStart: partitioning.start(ordinal: ordinal)))
                }
            }
        }
        return out
    }
}
