import QuakeFormat

/// The exact path of the hashed id index: the stored versions a load's ids may meet, read
/// from their partitions.
extension ResolvePass {
    /// Bits of the per-bucket filter of the load's hashes that met a stored key (2^21 per
    /// bucket: 16 MB in all, whatever the load's size).
    static let filterBits = 21

    /// What one bucket's new records met in the stored index.
    struct Met: Sendable {
        /// Partitions holding a stored key some new id has.
        var partitions: Set<Int> = []
        /// Filter of the full hashes of those new ids (empty when none met).
        var filter: [UInt64] = []

        @inline(__always)
        static func slot(_ h: UInt64) -> Int {
            Int(truncatingIfNeeded: (h >> 6) >> UInt64(IdHashes.maxBits - ResolvePass.filterBits))
        }

        @inline(__always)
        func contains(_ h: UInt64) -> Bool {
            let s = Met.slot(h)
            return !filter.isEmpty && filter[s >> 6] & (1 << UInt64(s & 63)) != 0
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
        let met = try parallelMap(Array(0..<idSpills.count)) { b in
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            return try meet(b, idSpills[b])
        }
        var ordinals = Set<Int>()
        for m in met { ordinals.formUnion(m.partitions) }
        guard !ordinals.isEmpty else { return files }
        var entries: [Int: PartitionEntry] = [:]
        for e in old.partitions { entries[partitioning.ordinal(e.minTime)] = e }
        let sorted = ordinals.sorted()
        let group = 2 * workerCount
        for start in stride(from: 0, to: sorted.count, by: group) {
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            let part = Array(sorted[start..<min(start + group, sorted.count)])
            let staged = try parallelMap(part) { o -> [Int: IdRecords] in
                guard let e = entries[o] else {
                    throw QuakeError.corrupt(storePath + "/ids", "names partition \(partitioning.key(ordinal: o)), "
                                             + "which the store does not hold")
                }
                return try stage(e, met)
            }
            for out in staged {
                for (b, recs) in out.sorted(by: { $0.key < $1.key }) {
                    let f = try files[b] ?? SpillFile(path: "\(scratch)/stored-\(b).spill")
                    files[b] = f
                    try f.append(recs.serialized())
                }
            }
        }
        return files
    }

    /// Phase 1 for bucket `b`.
    private func meet(_ b: Int, _ spill: SpillFile) throws -> Met {
        var m = Met()
        guard spill.size > 0, let f = old.idBuckets[b] else { return m }
        let stored = try IdHashes.read(path: storePath + "/ids/" + f, bucket: b, partitioning: partitioning)
        guard stored.count > 0 else { return m }
        let directory = IdHashes.Directory(stored)
        var filter = [UInt64](repeating: 0, count: (1 << ResolvePass.filterBits) / 64)
        var any = false
        try spill.forEach { p in
            let r = try IdRecords(serialized: p)
            // SAFETY: IdRecords(serialized:) checked the ends ascend up to the bytes and i < r.count, so each
            // range lies in `raw`; hash only reads the slice.
            r.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<r.count {
                    let h = IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[r.ids.range(i)]))
                    let range = directory.entries(stored.key(h), in: stored)
                    if range.isEmpty { continue }
                    for j in range { m.partitions.insert(stored.ordinals[j]) }
                    let s = Met.slot(h)
                    filter[s >> 6] |= 1 << UInt64(s & 63)
                    any = true
                }
            }
        }
        if any { m.filter = filter }
        return m
    }

    /// Phase 2 for one partition: its rows whose id hash passes its bucket's filter.
    private func stage(_ e: PartitionEntry, _ met: [Met]) throws -> [Int: IdRecords] {
        let r = PartitionReader(storePath: storePath, entry: e)
        let d = try r.directory()
        var out = [IdRecords](repeating: IdRecords(), count: met.count)
        for k in 0..<d.blockSizes.count {
            let ids = try r.arena(.id, block: k), t = try r.ints(.time, block: k), u = try r.ints(.updated, block: k)
            guard ids.count == t.count, u.count == t.count else {
                throw QuakeError.corrupt(storePath + "/partitions/" + e.file, "block \(k) columns disagree")
            }
            // SAFETY: i < ids.count and the decoded arena's ends lie in its bytes; append copies the id.
            ids.bytes.withUnsafeBytes { raw in
                for i in 0..<ids.count {
                    let p = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                    let h = IdHashes.hash(p)
                    let b = IdHashes.bucket(h)
                    guard met[b].contains(h) else { continue }
                    out[b].append(id: p, time: t[i], updated: u[i], seq: Int64.min)
                }
            }
        }
        var staged: [Int: IdRecords] = [:]
        for (b, recs) in out.enumerated() where recs.count > 0 { staged[b] = recs }
        return staged
    }
}
