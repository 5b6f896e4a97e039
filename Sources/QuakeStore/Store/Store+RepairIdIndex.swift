import QuakeFormat

/// `repair` of the id index of a sound manifest. The index is derived from the partitions, so
/// a bucket file that is missing, fails its checks, or lists other entries than the partitions'
/// ids give (another bucket's file, an older one put back) is written again from them.
extension Store {
    /// What a bucket lists, summed so that two lists compare without being held: its entry
    /// count, a sum over its entries of a mix of (key, partition), and one of (key, partition,
    /// minute). A file of unknown minutes (format v3) compares on the first two.
    struct BucketPrint: Equatable {
        var count = 0
        var places: UInt64 = 0
        var minutes: UInt64 = 0

        mutating func add(key: UInt64, ordinal: Int, hint: UInt32) {
            let place = Self.mix(key, UInt64(bitPattern: Int64(ordinal)))
            count += 1
            places &+= place
            minutes &+= Self.mix(place, UInt64(hint))
        }

        mutating func add(_ other: BucketPrint) {
            count += other.count
            places &+= other.places
            minutes &+= other.minutes
        }

        /// A 64-bit mix of two words (the finalizer of SplitMix64 over their combination).
        static func mix(_ first: UInt64, _ second: UInt64) -> UInt64 {
            var word = first &* 0x9E37_79B9_7F4A_7C15 ^ second &* 0xC2B2_AE3D_27D4_EB4F
            word ^= word >> 31
            word &*= 0x94D0_49BB_1331_11EB
            word ^= word >> 29
            return word
        }
    }

    /// The buckets of `m` whose files are missing, fail their checks, or list other entries
    /// than its partitions give, ascending; with each bucket's key width (its file's, or the
    /// default for a file that does not read).
    /// - Complexity: reads every bucket file whole and the id and time columns of every
    ///   partition: O(rows), memory O(buckets).
    static func damagedIdBuckets(_ m: Manifest, storePath: String) throws(QuakeError)
        -> (buckets: [Int], bits: [Int]) {
        var bits = [Int](repeating: IdHashes.defaultBits, count: Manifest.idBucketCount)
        var listed = [BucketPrint?](repeating: BucketPrint(), count: Manifest.idBucketCount)
        var unknownMinutes = [Bool](repeating: false, count: Manifest.idBucketCount)
        for (bucket, file) in m.idBuckets.enumerated() {
            guard let file else { continue }
            do throws(QuakeError) {
                let hashes = try IdHashes.read(path: storePath + "/ids/" + file, bucket: bucket,
                                               partitioning: m.partitioning)
                bits[bucket] = hashes.bits
                var print = BucketPrint()
                for entry in 0..<hashes.count {
                    print.add(key: hashes.keys[entry], ordinal: hashes.ordinals[entry], hint: hashes.hints[entry])
                }
                listed[bucket] = print
                unknownMinutes[bucket] = hashes.hints.contains(IdHashes.unknownHint)
            } catch {
                guard error.isCorruption || error.kind == .notFound || error.kind == .io else { throw error }
                listed[bucket] = nil
            }
        }
        let partitioning = m.partitioning
        let widths = bits
        let perPartition: [[BucketPrint]]
        do {
            perPartition = try parallelMap(m.partitions) { entry in
                var prints = [BucketPrint](repeating: BucketPrint(), count: Manifest.idBucketCount)
                try Self.forEachIdEntry(entry, storePath: storePath, partitioning: partitioning, bits: widths) {
                    prints[$0].add(key: $1, ordinal: $2, hint: $3)
                }
                return prints
            }
        } catch let error as QuakeError {
            throw error
        } catch {
            throw .io(storePath, "\(error)")
        }
        var damaged: [Int] = []
        for bucket in 0..<Manifest.idBucketCount {
            var given = BucketPrint()
            for prints in perPartition { given.add(prints[bucket]) }
            guard let print = listed[bucket] else {
                damaged.append(bucket)
                continue
            }
            let same = print.count == given.count && print.places == given.places
                && (unknownMinutes[bucket] || print.minutes == given.minutes)
            if !same { damaged.append(bucket) }
        }
        return (damaged, bits)
    }

    /// Writes buckets `buckets` of `m` again from its partitions, one partition per core at a
    /// time, as files of `m.generation` with keys of `bits[bucket]` bits; the old files are
    /// retired.
    /// - Complexity: reads the id and time columns of every partition: O(rows), memory
    ///   O(entries of those buckets).
    static func rebuildIdBuckets(_ buckets: [Int], bits: [Int], _ m: inout Manifest,
                                 storePath: String) throws(QuakeError) {
        guard !buckets.isEmpty else { return }
        let wanted = Set(buckets)
        let partitioning = m.partitioning
        let perPartition: [[Int: IdHashes]]
        do {
            perPartition = try parallelMap(m.partitions) { entry in
                var out: [Int: IdHashes] = [:]
                try Self.forEachIdEntry(entry, storePath: storePath, partitioning: partitioning, bits: bits) {
                    guard wanted.contains($0) else { return }
                    out[$0, default: IdHashes(bits: bits[$0])].keys.append($1)
                    out[$0, default: IdHashes(bits: bits[$0])].ordinals.append($2)
                    out[$0, default: IdHashes(bits: bits[$0])].hints.append($3)
                }
                return out
            }
        } catch let error as QuakeError {
            throw error
        } catch {
            throw .io(storePath, "\(error)")
        }
        // a store whose whole `ids` folder is gone gets it back
        try FileIO.makeDirectory(storePath + "/ids")
        for bucket in buckets {
            var hashes = IdHashes(bits: bits[bucket])
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

    /// Calls `body` with the bucket, key (of `bits[bucket]` bits), partition ordinal and minute
    /// of every row of partition `entry`, block by block.
    private static func forEachIdEntry(_ entry: PartitionEntry, storePath: String, partitioning: Partitioning,
                                       bits: [Int],
                                       _ body: (Int, UInt64, Int, UInt32) -> Void) throws(QuakeError) {
        let reader = PartitionReader(storePath: storePath, entry: entry)
        let directory = try reader.directory()
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
                    let ordinal = partitioning.ordinal(times[row])
                    let hint = IdHashes.hint(time: times[row], partitionStart: partitioning.start(ordinal: ordinal))
                    body(bucket, IdHashes.key(hash, bits: bits[bucket]), ordinal, hint)
                }
            }
        }
    }
}
