import QuakeFormat

/// The exact path of the hashed id index: the stored versions a load's ids may meet, read
/// from their partitions.
extension ResolvePass {
    /// Bits of the per-bucket filter of the load's hashes that met a stored key, at most (2^21
    /// per bucket: 16 MB in all, whatever the load's size).
    static let filterBits = 21
    /// Bits of the filter of a bucket looked up block by block: 64 a hash, at least 2^12; a
    /// 1,000-event load zeroed 16 MB of filters for 16 hashes a bucket, 5 % of its time.
    static func filterBits(hashes: Int) -> Int {
        var bits = 12
        while bits < filterBits, 1 << bits < hashes * 64 { bits += 1 }
        return bits
    }

    /// What one bucket's new records met in the stored index.
    struct Met: Sendable {
        /// Partitions holding a stored key some new id has.
        var partitions: Set<Int> = []
        /// Per such partition, the hints (``IdHashes/hint(time:partitionStart:)``) of the met
        /// entries: the minutes their rows lie in. Holding ``IdHashes/unknownHint`` (an entry
        /// without one, or more than ``hintsLimit`` of them) means the whole partition.
        var hints: [Int: Set<UInt32>] = [:]
        /// Filter of the full hashes of those new ids (empty when none met), of `2^filterBits` bits.
        var filter: [UInt64] = []
        var filterBits = ResolvePass.filterBits

        /// Most minutes of one partition staged by their time windows; past this, the whole
        /// partition is read (and memory holds no more than this per partition).
        static let hintsLimit = 256

        /// Notes a met entry in partition `ordinal`, of hint `hint`.
        mutating func note(ordinal: Int, hint: UInt32) {
            partitions.insert(ordinal)
            var minutes = hints[ordinal, default: []]
            if minutes.contains(IdHashes.unknownHint) { return }
            minutes.insert(hint)
            hints[ordinal] = minutes.count > Met.hintsLimit ? [IdHashes.unknownHint] : minutes
        }

        /// The filter slot of hash `h` in a filter of `2^bits` bits: the top bits of the hash
        /// above its bucket's.
        @inline(__always)
        static func slot(_ h: UInt64, bits: Int) -> Int {
            Int(truncatingIfNeeded: (h >> 6) >> UInt64(IdHashes.maxBits - bits))
        }

        @inline(__always)
        func contains(_ h: UInt64) -> Bool {
            let slot = Met.slot(h, bits: filterBits)
            return !filter.isEmpty && filter[slot >> 6] & (1 << UInt64(slot & 63)) != 0
        }
    }

    /// Phases 1 and 2. Per bucket, the new ids' hashes are looked up among the stored keys;
    /// then each partition a met key names is read once, and every row whose id hash the load
    /// has (by the filter) is staged, in full, to a scratch file of its bucket. Equal ids have
    /// equal hashes, so every stored version of an id in this load is staged; an unrelated id
    /// that only shares a key or a filter slot may be staged too, and resolves as untouched.
    /// - Returns: per bucket, the scratch file of stored versions (nil when none).
    /// - Complexity: memory bounded by the filter and one group of partitions.
    func storedVersions(_ idSpills: [SpillFile], scratch: String) throws -> [SpillFile?] {
        var files = [SpillFile?](repeating: nil, count: idSpills.count)
        guard old.idBuckets.contains(where: { $0 != nil }) else { return files }
        let met = try parallelMap(Array(0..<idSpills.count)) { bucket in
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            return try meet(bucket, idSpills[bucket])
        }
        var ordinals = Set<Int>()
        var hints = Met()
        for bucketMet in met {
            ordinals.formUnion(bucketMet.partitions)
            for (ordinal, minutes) in bucketMet.hints {
                for hint in minutes { hints.note(ordinal: ordinal, hint: hint) }
            }
        }
        guard !ordinals.isEmpty else { return files }
        var entries: [Int: PartitionEntry] = [:]
        for entry in old.partitions {
            entries[partitioning.ordinal(entry.minTime)] = entry
        }
        let sorted = ordinals.sorted()
        let group = 2 * workerCount
        for start in stride(from: 0, to: sorted.count, by: group) {
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            let part = Array(sorted[start..<min(start + group, sorted.count)])
            let staged = try parallelMap(part) { ordinal -> [Int: IdRecords] in
                guard let entry = entries[ordinal] else {
                    throw QuakeError.corrupt(storePath + "/ids",
                                             "names partition \(partitioning.key(ordinal: ordinal)), "
                                                 + "which the store does not hold")
                }
                return try stage(entry, met, windows: stagedWindows(ordinal, hints: hints.hints[ordinal]))
            }
            for out in staged {
                for (bucket, recs) in out.sorted(by: { $0.key < $1.key }) {
                    let file = files[bucket]
                        ?? SpillFile(path: "\(scratch)/stored-\(bucket).spill", memoryLimit: spillMemory)
                    files[bucket] = file
                    try file.append(recs.serialized())
                }
            }
        }
        return files
    }

    /// Records of a bucket up to which phase 1 looks their keys up block by block
    /// (``IdBucketLookup``) rather than reading the bucket whole.
    static let lookupRecordsLimit = 4_096

    /// Phase 1 for bucket `bucket`.
    private func meet(_ bucket: Int, _ spill: SpillFile) throws -> Met {
        var met = Met()
        guard spill.size > 0, let file = old.idBuckets[bucket] else { return met }
        var hashes: [UInt64] = []
        var tooMany = false
        try spill.forEach { payload in
            if tooMany { return }
            let records = try IdRecords(serialized: payload)
            // SAFETY: IdRecords(serialized:) checked the ends ascend up to the bytes and i < records.count, so
            // each range lies in `raw`; hash only reads the slice.
            records.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<records.count {
                    hashes.append(IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[records.ids.range(i)])))
                }
            }
            if hashes.count > Self.lookupRecordsLimit {
                tooMany = true
                hashes = []
            }
        }
        if tooMany { return try meetWhole(bucket, spill, file: file) }
        let lookup = try IdBucketLookup(path: storePath + "/ids/" + file, bucket: bucket, partitioning: partitioning)
        let bits = Self.filterBits(hashes: hashes.count)
        var filter = [UInt64](repeating: 0, count: (1 << bits) / 64)
        for hash in hashes {
            let places = try lookup.places(of: [IdHashes.key(hash, bits: lookup.bits)])
            if places.isEmpty { continue }
            for place in places { met.note(ordinal: place.ordinal, hint: place.hint) }
            let slot = Met.slot(hash, bits: bits)
            filter[slot >> 6] |= 1 << UInt64(slot & 63)
        }
        if !met.partitions.isEmpty {
            met.filter = filter
            met.filterBits = bits
        }
        return met
    }

    /// Phase 1 for bucket `bucket`, its index file `file` read whole.
    private func meetWhole(_ bucket: Int, _ spill: SpillFile, file: String) throws -> Met {
        var met = Met()
        let stored = try IdHashes.read(path: storePath + "/ids/" + file, bucket: bucket, partitioning: partitioning)
        guard stored.count > 0 else { return met }
        let directory = IdHashes.Directory(stored)
        var filter = [UInt64](repeating: 0, count: (1 << ResolvePass.filterBits) / 64)
        var any = false
        try spill.forEach { payload in
            let records = try IdRecords(serialized: payload)
            // SAFETY: IdRecords(serialized:) checked the ends ascend up to the bytes and i < records.count, so
            // each range lies in `raw`; hash only reads the slice.
            records.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<records.count {
                    let hash = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[records.ids.range(i)]))
                    let range = directory.entries(stored.key(hash), in: stored)
                    if range.isEmpty { continue }
                    for j in range { met.note(ordinal: stored.ordinals[j], hint: stored.hints[j]) }
                    let slot = Met.slot(hash, bits: ResolvePass.filterBits)
                    filter[slot >> 6] |= 1 << UInt64(slot & 63)
                    any = true
                }
            }
        }
        if any { met.filter = filter }
        return met
    }

    /// The time windows of partition `ordinal` whose rows phase 2 stages: the minutes `hints`
    /// name, ascending; nil (every row) when some hint is unknown or there are none.
    private func stagedWindows(_ ordinal: Int, hints: Set<UInt32>?) -> [Range<Int64>]? {
        guard let hints, !hints.isEmpty, !hints.contains(IdHashes.unknownHint) else { return nil }
        let start = partitioning.start(ordinal: ordinal)
        return hints.sorted().compactMap { IdHashes.window(hint: $0, partitionStart: start) }
    }

    /// Phase 2 for one partition: its rows whose id hash passes its bucket's filter, among the
    /// rows of `windows` (every row when nil). The id index puts every stored version in the
    /// minute its entry's hint names, so only those minutes' id frames are decoded.
    private func stage(_ entry: PartitionEntry, _ met: [Met], windows: [Range<Int64>]?) throws -> [Int: IdRecords] {
        let reader = PartitionReader(storePath: storePath, entry: entry)
        let directory = try reader.directory()
        var out = [IdRecords](repeating: IdRecords(), count: met.count)
        for k in 0..<directory.blockSizes.count {
            let blockRows = 0..<directory.blockSizes[k]
            let runs = try windows.map { try Self.rowRuns(reader, block: k, rows: blockRows, windows: $0) } ?? [blockRows]
            for run in runs {
                guard case .text(let ids) = try reader.decode(.id, block: k, rows: run) else {
                    throw QuakeError.corrupt(reader.path, "column id is not a text column")
                }
                let times = try reader.ints(.time, block: k, rows: run)
                let updated = try reader.ints(.updated, block: k, rows: run)
                guard ids.count == run.count, times.count == run.count, updated.count == run.count else {
                    throw QuakeError.corrupt(storePath + "/partitions/" + entry.file, "block \(k) columns disagree")
                }
                // SAFETY: i < ids.count and the decoded arena's ends lie in its bytes; append copies the id.
                ids.bytes.withUnsafeBytes { raw in
                    for i in 0..<ids.count {
                        let id = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                        let hash = IdHashes.hash(id)
                        let bucket = IdHashes.bucket(hash)
                        guard met[bucket].contains(hash) else { continue }
                        out[bucket].append(id: id, time: times[i], updated: updated[i], seq: Int64.min)
                    }
                }
            }
        }
        var staged: [Int: IdRecords] = [:]
        for (bucket, recs) in out.enumerated() where recs.count > 0 {
            staged[bucket] = recs
        }
        return staged
    }

    /// The runs of block `k`'s rows whose times lie in `windows` (ascending, disjoint), ascending
    /// and disjoint: from the time chunk's miniblock heads, or its decoded times when it has nulls.
    static func rowRuns(_ reader: PartitionReader, block k: Int, rows: Range<Int>,
                        windows: [Range<Int64>]) throws(QuakeError) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var times: [Int64]?
        for window in windows {
            var run = try reader.timeRun(block: k, rows: rows, window.lowerBound, window.upperBound)
            if run == nil {
                let decoded: [Int64]
                if let known = times {
                    decoded = known
                } else {
                    decoded = try reader.ints(.time, block: k)
                    times = decoded
                }
                // the rows of the window, as a run from the first of them to the last
                let inside = decoded.indices.filter { window.contains(decoded[$0]) }
                run = (inside.first ?? 0)..<((inside.last ?? -1) + 1)
            }
            guard let found = run, !found.isEmpty else { continue }
            if let last = runs.last, last.upperBound >= found.lowerBound {
                runs[runs.count - 1] = last.lowerBound..<Swift.max(last.upperBound, found.upperBound)
            } else {
                runs.append(found)
            }
        }
        return runs
    }
}
