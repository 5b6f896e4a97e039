import Foundation
import QuakeFormat

/// Pass 2 of a load, per id-hash bucket and on every core: join the new id records with the
/// stored id index, pick each event's winning version (highest `updated`, then ``replaces(_:_:_:)``),
/// list the events whose other versions sit in another partition than the winner (moves), and
/// write each changed index bucket under the new generation.
package struct ResolvePass {
    package let storePath: String
    package let old: Manifest
    package let generation: Int
    /// Asked before each bucket: a cancelled load stops (see ``LoadOptions/isCancelled``).
    package var isCancelled: (@Sendable () -> Bool)?
    package var partitioning: Partitioning { old.partitioning }
    /// Key bits of a bucket file written where the store had none (see ``IdHashes``).
    package var newIndexBits = IdHashes.defaultBits
    /// Bytes each spill of stored versions may hold in memory (``SpillFile/init(path:memoryLimit:)``).
    package var spillMemory = SpillFile.memoryBudget

    /// An event to carry out of a partition, by id, to its winner's partition.
    package struct Move: Sendable {
        package var id: [UInt8]
        package var to: Int
    }

    package struct Output {
        /// Events the store did not hold before.
        package var new = 0
        /// Rows of this load beyond the first for their event (another version in the same load).
        package var duplicates = 0
        /// True when some id has more than one version among the stored and new records; when
        /// false, merge only concatenates and sorts (the bulk path).
        package var repeatsIds = false
        /// Per changed bucket, its new file.
        package var buckets: [Int: String] = [:]
        /// Per source partition, the events to move out.
        package var moves: [Int: [Move]] = [:]
    }

    private struct BucketResult {
        package var new = 0
        package var duplicates = 0
        /// Records beyond the first of each id.
        package var repeated = 0
        package var file: String?
        package var moves: [Int: [Move]] = [:]
    }

    /// - Parameters:
    ///   - scratch: a folder for the stored versions read back (the load's `tmp/`).
    ///   - onBucket: called after each bucket, from any thread.
    package func run(_ idSpills: [SpillFile], scratch: String,
                     onBucket: @escaping @Sendable () -> Void = {}) throws -> Output {
        let stored = try storedVersions(idSpills, scratch: scratch)
        let results = try parallelMap(Array(0..<idSpills.count)) { bucket in
            defer { onBucket() }
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            return try resolveBucket(bucket, idSpills[bucket], stored: stored[bucket])
        }
        var out = Output()
        for (bucket, result) in results.enumerated() {
            out.new += result.new
            out.duplicates += result.duplicates
            if result.repeated > 0 { out.repeatsIds = true }
            if let file = result.file { out.buckets[bucket] = file }
            for (ordinal, list) in result.moves {
                out.moves[ordinal, default: []].append(contentsOf: list)
            }
        }
        return out
    }

    /// Whether record `candidate` wins over record `kept` of the same event: the higher
    /// `updated`; on a tie, the time the fold keeps (``RowBatch/timeWinsTie(_:over:)``), then
    /// the later write. Versions without `updated` go by the later write alone.
    static func replaces(_ candidate: Int, _ kept: Int, _ all: IdRecords) -> Bool {
        let updated = all.updated[candidate]
        if updated != all.updated[kept] { return updated > all.updated[kept] }
        let time = all.time[candidate]
        if updated != RowBatch.null && time != all.time[kept] {
            return RowBatch.timeWinsTie(time, over: all.time[kept])
        }
        return all.seq[candidate] > all.seq[kept]
    }

    /// Phase 3 for bucket `bucket`: the load's records with the stored versions staged for them.
    private func resolveBucket(_ bucket: Int, _ spill: SpillFile, stored: SpillFile?) throws -> BucketResult {
        var result = BucketResult()
        guard spill.size > 0 else { return result }
        var all = IdRecords()
        try Self.appendRecords(of: stored, to: &all)
        let storedCount = all.count
        try Self.appendRecords(of: spill, to: &all)
        var codes = IdCodes(all.ids)
        let winner = Self.winners(codes, all)
        result.new = codes.count - storedCount
        // events this load names: the new ones, and the stored ones it has a record for
        var touched = [Bool](repeating: false, count: storedCount)
        for i in storedCount..<all.count where codes.code[i] < storedCount { touched[codes.code[i]] = true }
        let distinct = result.new + touched.lazy.filter { $0 }.count
        result.duplicates = (all.count - storedCount) - distinct
        result.repeated = all.count - codes.count
        var seen = Set<Int64>()   // (code, source partition) pairs already listed
        for i in 0..<all.count {
            let won = winner[codes.code[i]]
            if i == won { continue }
            let from = partitioning.ordinal(all.time[i])
            let to = partitioning.ordinal(all.time[won])
            if from != to && seen.insert(Int64(codes.code[i]) << 32 | Int64(from & 0xFFFF_FFFF)).inserted {
                result.moves[from, default: []].append(Move(id: Array(all.ids.bytes[all.ids.range(i)]), to: to))
            }
        }
        // the codes are done with: free them before the file is encoded
        let distinctCount = codes.count
        let hashes = codes.hashes
        codes = IdCodes(ByteArena())
        if let file = old.idBuckets[bucket],
           !changesEntries(all: all, storedCount: storedCount, winners: winner.prefix(distinctCount)) {
            result.file = file   // every event keeps its partition and minute: the file is not read
            return result
        }
        var index = IdHashes(bits: newIndexBits)
        if let file = old.idBuckets[bucket] {
            index = try IdHashes.read(path: storePath + "/ids/" + file, bucket: bucket, partitioning: partitioning)
        }
        let next = reindexed(index, all: all, hashes: hashes, storedCount: storedCount,
                             winners: winner.prefix(distinctCount))
        if let file = old.idBuckets[bucket], next == index {
            result.file = file   // every event keeps its partition: keep the file
            return result
        }
        let name = IdHashes.fileName(bucket: bucket, generation: generation)
        try FileIO.writeFile(storePath + "/ids/" + name, next.fileBytes())
        result.file = name
        return result
    }

    /// Appends every record `spill` holds (none when nil) to `all`.
    private static func appendRecords(of spill: SpillFile?, to all: inout IdRecords) throws {
        try spill?.forEach { payload in
            let records = try IdRecords(serialized: payload)
            for i in 0..<records.count { all.append(from: records, i) }
        }
    }

    /// Per event (its code), the record that wins (``replaces(_:_:_:)``).
    private static func winners(_ codes: IdCodes, _ all: IdRecords) -> [Int] {
        var winner: [Int] = []
        winner.reserveCapacity(codes.count)
        for i in 0..<all.count {
            let code = codes.code[i]
            if code == winner.count {
                winner.append(i)
                continue
            }
            if Self.replaces(i, winner[code], all) { winner[code] = i }
        }
        return winner
    }

    /// Whether ``reindexed(_:all:hashes:storedCount:winners:)`` changes any entry: some event is
    /// new, or its winner left the stored version's partition or minute.
    private func changesEntries(all: IdRecords, storedCount: Int, winners: ArraySlice<Int>) -> Bool {
        var last = LastPartition(partitioning: partitioning)
        for (k, won) in winners.enumerated() {
            if k >= storedCount { return true }
            if won != k && last.place(all.time[k]) != last.place(all.time[won]) { return true }
        }
        return false
    }

    /// The bucket's entries after this load. Event `k` (its code) has its stored version, if
    /// any, at record `k`, and its winner at `winners[k]`: an event whose winner keeps the stored
    /// version's partition and minute changes no entry; a moved one leaves its entry for the
    /// winner's; a new one comes in. `hashes` holds each record's id hash.
    /// - Complexity: O(n + m log m) for n entries and m changed ones.
    private func reindexed(_ index: IdHashes, all: IdRecords, hashes: [UInt64], storedCount: Int,
                           winners: ArraySlice<Int>) -> IdHashes {
        var last = LastPartition(partitioning: partitioning)
        func entries<S: Sequence<Int>>(_ rows: S) -> IdHashes {
            var list = IdHashes(bits: index.bits)
            for i in rows {
                let place = last.place(all.time[i])
                list.append(key: index.key(hashes[i]), ordinal: place.ordinal, hint: place.hint)
            }
            list.sort()
            return list
        }
        var left: [Int] = []
        var came: [Int] = []
        for (k, won) in winners.enumerated() {
            guard k < storedCount else {
                came.append(won)
                continue
            }
            if won == k || last.place(all.time[k]) == last.place(all.time[won]) { continue }
            left.append(k)
            came.append(won)
        }
        if came.isEmpty { return index }
        var leaving = entries(left)
        ResolvePass.matchUnknownHints(&leaving, in: index)
        let coming = entries(came)
        return ResolvePass.merged(index, removing: leaving, adding: coming)
    }

    /// Leaving entries whose minute the index does not list (a bucket written before hints) are
    /// matched to the entry of unknown minute instead. Entries that share key and partition
    /// point at the same place, so which of them goes does not matter while each hint is
    /// true or unknown.
    static func matchUnknownHints(_ leaving: inout IdHashes, in index: IdHashes) {
        var changed = false
        for i in 0..<leaving.count where !index.contains(leaving.keys[i], leaving.ordinals[i], leaving.hints[i]) {
            leaving.hints[i] = IdHashes.unknownHint
            changed = true
        }
        if changed { leaving.sort() }
    }

    /// `index` minus `leaving`, merged with `coming` (all three sorted).
    static func merged(_ index: IdHashes, removing leaving: IdHashes, adding coming: IdHashes) -> IdHashes {
        var next = IdHashes(bits: index.bits)
        next.keys.reserveCapacity(index.count + coming.count)
        next.ordinals.reserveCapacity(index.count + coming.count)
        next.hints.reserveCapacity(index.count + coming.count)
        var leavingAt = 0
        var comingAt = 0
        for j in 0..<index.count {
            while leavingAt < leaving.count && leaving.precedes(leavingAt, index, j) { leavingAt += 1 }
            if leavingAt < leaving.count && leaving.same(leavingAt, index, j) {
                leavingAt += 1
                continue
            }
            while comingAt < coming.count && coming.precedes(comingAt, index, j) {
                next.append(key: coming.keys[comingAt], ordinal: coming.ordinals[comingAt],
                            hint: coming.hints[comingAt])
                comingAt += 1
            }
            next.append(key: index.keys[j], ordinal: index.ordinals[j], hint: index.hints[j])
        }
        while comingAt < coming.count {
            next.append(key: coming.keys[comingAt], ordinal: coming.ordinals[comingAt], hint: coming.hints[comingAt])
            comingAt += 1
        }
        return next
    }
}

/// The partition of the last time asked about: records come in runs of one partition, and
/// ``Partitioning/ordinal(_:)`` works out a civil date.
private struct LastPartition {
    let partitioning: Partitioning
    private var span: Range<Int64> = 0..<0
    private var last = 0

    init(partitioning: Partitioning) { self.partitioning = partitioning }

    mutating func ordinal(_ t: Int64) -> Int {
        if !span.contains(t) {
            last = partitioning.ordinal(t)
            let bounds = partitioning.span(t)
            span = bounds.start..<bounds.end
        }
        return last
    }

    /// The ordinal of `t`'s partition and `t`'s hint there (see ``IdHashes/hint(time:partitionStart:)``).
    mutating func place(_ t: Int64) -> PartitionPlace {
        let ordinal = ordinal(t)
        return PartitionPlace(ordinal: ordinal, hint: IdHashes.hint(time: t, partitionStart: span.lowerBound))
    }
}

/// A partition ordinal and a minute hint within it.
private struct PartitionPlace: Equatable {
    let ordinal: Int
    let hint: UInt32
}
