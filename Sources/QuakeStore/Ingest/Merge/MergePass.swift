import QuakeFormat
import QuakeSupport
/// Pass 3 of a load, per partition and on every core: carry moved events to their winner's
/// partition, fold each event's versions oldest to newest (fields the newer source lacks keep
/// their older values), compare with the stored row, and write each changed partition to one new
/// file. When no id repeats (the bulk path), it only concatenates, sorts if needed and writes.
package struct MergePass {
    package let storePath: String
    package let old: Manifest
    package let generation: Int
    package let spills: SpillSet
    /// Where each changed partition's history section goes as soon as it is encoded.
    package let history: HistoryStaging
    /// Partitions the spill pass wrote from the batches (``DirectPartitions``): final when the
    /// load is a plain bulk insert for them, else read back as the rows they stage.
    package var direct: [Int: DirectPartitions.Written] = [:]
    /// Asked before each partition: a cancelled load stops (see ``LoadOptions/isCancelled``).
    package var isCancelled: (@Sendable () -> Bool)?
    /// Gathers the rows of each partition written that the magnitude projection can need.
    var topRows: TopRowsCollector?
    /// Whether a partition whose events are all updated where they stand is rewritten from its
    /// old file, re-encoding only the columns that changed (``mergeInPlace(_:entry:)``); off,
    /// every changed partition is decoded and encoded whole. The two write the same bytes.
    package var updatesInPlace = true
    /// The old magnitude projection's rows, read once for the partitions updated in place.
    let oldProjection = OldProjection()
    package var partitioning: Partitioning { old.partitioning }

    package struct Output {
        /// Per changed partition ordinal, its new entry (nil: the partition is now empty).
        package var changed: [Int: PartitionEntry?] = [:]
        package var updated = 0
        package var unchanged = 0
        /// Events whose precise time a coarser copy with the same `updated` did not replace, and one
        /// of them.
        package var keptPreciseTimes = 0
        package var keptPreciseExample: (id: String, time: Int64, coarse: Int64)?
        /// Changed partitions written in place (``mergeInPlace(_:entry:)``).
        package var inPlace = 0
    }

    /// Partitions the run will merge (the spilled ones and the sources of moves).
    package func partitions(_ resolved: ResolvePass.Output) -> Int {
        Set(spills.partitions.keys).union(resolved.moves.keys).union(direct.keys).count
    }

    /// - Parameter onPartition: called after each partition, from any thread.
    package func run(_ resolved: ResolvePass.Output,
                     onPartition: @escaping @Sendable () -> Void = {}) throws -> Output {
        let moves = resolved.moves
        var existing: [Int: PartitionEntry] = [:]
        for entry in old.partitions {
            existing[partitioning.ordinal(entry.minTime)] = entry
        }
        // carry moved rows to their destination first, so every destination sees them
        let movedOut = try carryMoves(moves, existing: existing)
        let touched = Set(spills.partitions.keys).union(moves.keys).union(direct.keys).sorted()
        let bulk = !resolved.repeatsIds
        let results = try parallelMap(touched) { ordinal in
            defer { onPartition() }
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            if let written = direct[ordinal] {
                // written as the input ran past it: final unless other rows must be merged in
                if bulk && movedOut[ordinal] == nil && spills.partitions[ordinal] == nil {
                    return (ordinal, PartitionResult(changed: true, entry: written.entry))
                }
                history.discard(ordinal: ordinal)
            }
            var result = try mergePartition(ordinal, existing: existing[ordinal], movedOut: movedOut[ordinal],
                                            bulk: bulk)
            if !result.changes.isEmpty {
                try history.append(ordinal: ordinal, result.changes.encoded(key: partitioning.key(ordinal: ordinal),
                                                                            partitionRows: result.entry?.rows))
            }
            result.changes = ChangeSet()
            // what this partition freed, before the next one grows the heap again: once the heap is
            // large (a small commit keeps its pages rather than fault them in again)
            MallocPolicy.releaseFree(ifResidentAbove: MallocPolicy.keepBelow)
            return (ordinal, result)
        }
        var out = Output()
        for (ordinal, result) in results {
            out.updated += result.updated
            out.unchanged += result.unchanged
            out.keptPreciseTimes += result.keptPreciseTimes
            if out.keptPreciseExample == nil { out.keptPreciseExample = result.keptPreciseExample }
            if result.changed { out.changed[ordinal] = result.entry }
            if result.inPlace { out.inPlace += 1 }
        }
        return out
    }

    /// Appends the rows each move carries to its destination's spill; returns, per source
    /// partition, the ids moving out of it.
    private func carryMoves(_ moves: [Int: [ResolvePass.Move]],
                            existing: [Int: PartitionEntry]) throws -> [Int: SliceInterner] {
        var movedOut: [Int: SliceInterner] = [:]
        for (from, list) in moves.sorted(by: { $0.key < $1.key }) {
            var ids = SliceInterner(capacity: list.count)
            var dest: [Int] = []
            for move in list {
                // SAFETY: `$0` is used only inside the closure; intern copies the id's bytes.
                move.id.withUnsafeBytes { _ = ids.intern($0) }
                dest.append(move.to)
            }
            var carried: [Int: [Int]] = [:]
            let rows = try rowsOf(from, existing: existing[from])
            // SAFETY: i < rows.count, so each range(i) lies in the id arena's bytes (decoded chunks are checked;
            // spill batches are this load's own, zstd-checksummed); lookup only reads the slice.
            rows.text[Column.id.rawValue].bytes.withUnsafeBytes { raw in
                let arena = rows.text[Column.id.rawValue]
                for i in 0..<rows.count {
                    if let move = ids.lookup(UnsafeRawBufferPointer(rebasing: raw[arena.range(i)])) {
                        carried[dest[move], default: []].append(i)
                    }
                }
            }
            for (to, rowIndices) in carried {
                try spills.partition(to).append(rows.gather(rowIndices).serialized())
            }
            movedOut[from] = ids
        }
        return movedOut
    }

    /// Stored rows of partition `ordinal` followed by its spilled rows.
    private func rowsOf(_ ordinal: Int, existing: PartitionEntry?) throws -> RowBatch {
        var rows = RowBatch()
        if let entry = existing { rows = try PartitionReader(storePath: storePath, entry: entry).readAll() }
        if let written = direct[ordinal] {
            rows.append(contentsOf: try DirectPartitions.rows(written, storePath: storePath))
        }
        if let spill = spills.partitions[ordinal] {
            try spill.forEach { payload in rows.append(contentsOf: try RowBatch(serialized: payload)) }
        }
        return rows
    }

    struct PartitionResult {
        package var changed = false
        package var entry: PartitionEntry?
        package var updated = 0
        package var unchanged = 0
        package var keptPreciseTimes = 0
        package var keptPreciseExample: (id: String, time: Int64, coarse: Int64)?
        package var changes = ChangeSet()
        package var inPlace = false
    }

    private func mergePartition(_ ordinal: Int, existing: PartitionEntry?, movedOut: SliceInterner?,
                                bulk: Bool) throws -> PartitionResult {
        if updatesInPlace, !bulk, movedOut == nil, direct[ordinal] == nil, let entry = existing,
           let result = try mergeInPlace(ordinal, entry: entry) {
            return result
        }
        var rows = try rowsOf(ordinal, existing: existing)
        let storedRows = existing?.rows ?? 0
        if bulk && movedOut == nil {
            return try mergeBulk(&rows, storedRows: storedRows, partition: ordinal)
        }
        var result = PartitionResult()
        var grouped = groupVersions(rows, storedRows: storedRows, movedOut: movedOut, changed: &result.changed)
        var (keep, folded) = foldVersions(rows, storedRows: storedRows, starts: grouped.starts,
                                          members: &grouped.members, into: &result)
        if !result.changed || keep.count + folded.count == 0 { return result }
        // the folded rows join the batch (a few, in a small commit), and every row is copied once
        let foldedStart = rows.count
        rows.append(contentsOf: folded)
        keep.append(contentsOf: foldedStart..<rows.count)
        let sorted = rows.gather(rows.timeIdOrder(of: keep))
        rows = RowBatch()
        result.entry = try write(sorted, partition: ordinal)
        return result
    }

    /// The bulk path: every row is a distinct event, so nothing to fold; sort unless in order.
    private func mergeBulk(_ rows: inout RowBatch, storedRows: Int, partition ordinal: Int) throws -> PartitionResult {
        var result = PartitionResult()
        guard rows.count > storedRows else { return result }
        result.changed = true
        let ids = rows.text[Column.id.rawValue]
        let times = rows.ints[Column.time.rawValue]
        for i in storedRows..<rows.count {
            result.changes.inserted.append(from: ids, row: i)
            result.changes.touch(times[i])
        }
        // sorted in place, column by column: the batch is the largest thing a merge holds
        rows.sortByTimeId()
        result.entry = try write(rows, partition: ordinal)
        return result
    }

    /// Each event's versions, as runs of one array (a counting sort of the rows by event):
    /// `members[starts[k]..<starts[k + 1]]` are the rows of event `k`. Rows moving out are left
    /// out; a stored one sets `changed`.
    func groupVersions(_ rows: RowBatch, storedRows: Int, movedOut: SliceInterner?,
                               changed: inout Bool) -> (starts: [Int], members: [Int]) {
        var (code, starts) = eventCodes(rows, storedRows: storedRows, movedOut: movedOut, changed: &changed)
        var total = 0
        for k in starts.indices {
            (starts[k], total) = (total, total + starts[k])
        }
        starts.append(total)
        var members = [Int](repeating: 0, count: total)
        var next = starts
        for i in 0..<rows.count where code[i] >= 0 {
            members[next[code[i]]] = i
            next[code[i]] += 1
        }
        code = []
        return (starts, members)
    }

    /// Each row's event number (-1 for a row moving out) and each event's count of versions.
    private func eventCodes(_ rows: RowBatch, storedRows: Int, movedOut: SliceInterner?,
                            changed: inout Bool) -> (code: [Int], counts: [Int]) {
        let ids = rows.text[Column.id.rawValue]
        var code = [Int](repeating: -1, count: rows.count)
        var starts: [Int] = []
        var interner = SliceInterner(capacity: rows.count)
        // SAFETY: i < rows.count, so each range(i) lies in the id arena's bytes (as above); intern copies the
        // bytes and `raw` does not escape the closure.
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<rows.count {
                let slice = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                if let moved = movedOut, moved.lookup(slice) != nil {
                    // a stored row moving out changes the partition; a new one carried away does not
                    if i < storedRows { changed = true }
                    continue
                }
                let event = interner.intern(slice)
                code[i] = event
                if event == starts.count { starts.append(0) }
                starts[event] += 1
            }
        }
        return (code, starts)
    }

    /// Single-version events are kept by index (returned in `keep`) and gathered once; events
    /// with several versions are folded by index, and only changed ones are built (`folded`).
    func foldVersions(_ rows: RowBatch, storedRows: Int, starts: [Int], members: inout [Int],
                              into result: inout PartitionResult) -> (keep: [Int], folded: RowBatch) {
        let ids = rows.text[Column.id.rawValue]
        var keep: [Int] = []
        keep.reserveCapacity(rows.count)
        var folded = RowBatch()
        var sources = [Int](repeating: 0, count: Column.count)
        let updated = rows.ints[Column.updated.rawValue]
        for k in 0..<(starts.count - 1) {
            let lo = starts[k]
            let hi = starts[k + 1]
            if hi - lo == 1 {
                let row = members[lo]
                keep.append(row)
                if row >= storedRows {
                    result.changed = true
                    if rows.seq[row] != Int64.min { noteInserted(&result.changes, rows, row) }
                }
                continue
            }
            members[lo..<hi].sort { a, b in
                updated[a] != updated[b] ? updated[a] < updated[b] : rows.seq[a] < rows.seq[b]
            }
            let versions = members[lo..<hi]
            var keptTime = false
            let provenance = rows.foldSources(versions, into: &sources, keptPreciseTime: &keptTime)
            if keptTime { notePreciseTime(&result, rows, versions) }
            let storedHere = versions.first { $0 < storedRows }
            let stored = versions.first { rows.seq[$0] == Int64.min }
            let sameValues = storedHere.map { rows.changedColumns(sources: sources, $0) == 0 } ?? false
            if let storedRow = storedHere, sameValues, rows.provenance(storedRow) == provenance {
                result.unchanged += 1
                keep.append(storedRow)
                result.changes.unchanged.append(from: ids, row: storedRow)
                continue
            }
            if let storedRow = storedHere, sameValues {
                // the same values, but the fields' origins moved (an older version filled a
                // field no version had carried): written again, and counted unchanged
                result.unchanged += 1
                result.changes.unchanged.append(from: ids, row: storedRow)
            } else {
                noteFolded(&result, rows, sources: sources, stored: stored)
            }
            result.changed = true
            folded.append(folding: rows, sources: sources, provenance: provenance, seq: rows.seq[versions.last ?? lo])
        }
        return (keep, folded)
    }

    /// Records a folded event that differs from its stored row (updated) or has none (inserted).
    private func noteFolded(_ result: inout PartitionResult, _ rows: RowBatch, sources: [Int], stored: Int?) {
        let ids = rows.text[Column.id.rawValue]
        let time = rows.ints[Column.time.rawValue][sources[Column.time.rawValue]]
        if let storedRow = stored {
            result.updated += 1
            result.changes.updated.append(from: ids, row: storedRow)
            result.changes.changedColumns.append(rows.changedColumns(sources: sources, storedRow))
            result.changes.touch(rows.ints[Column.time.rawValue][storedRow])
            result.changes.touch(time)
        } else {
            result.changes.inserted.append(from: ids, row: sources[Column.id.rawValue])
            result.changes.touch(time)
        }
    }

    /// Counts an event whose precise time was kept over a coarser copy, and keeps one example.
    private func notePreciseTime(_ result: inout PartitionResult, _ rows: RowBatch, _ versions: ArraySlice<Int>) {
        result.keptPreciseTimes += 1
        guard result.keptPreciseExample == nil else { return }
        let times = rows.ints[Column.time.rawValue]
        let ids = rows.text[Column.id.rawValue]
        for coarse in versions {
            if let precise = versions.first(where: { TimePrecision.coarsens(times[coarse], times[$0]) }) {
                result.keptPreciseExample = (ids.string(coarse) ?? "", times[precise], times[coarse])
                return
            }
        }
    }

    private func noteInserted(_ changes: inout ChangeSet, _ rows: RowBatch, _ row: Int) {
        changes.inserted.append(from: rows.text[Column.id.rawValue], row: row)
        changes.touch(rows.ints[Column.time.rawValue][row])
    }

    private func write(_ sorted: RowBatch, partition ordinal: Int) throws -> PartitionEntry {
        let key = partitioning.key(ordinal: ordinal)
        let file = "\(key).g\(generation).\(PartitionFile.fileExtension)"
        // a staged partition has this name: unlink it rather than overwrite a file that was mapped
        if direct[ordinal] != nil { FileIO.remove(storePath + "/partitions/" + file) }
        let entry = try PartitionWriter.write(sorted, key: key, file: file, storePath: storePath,
                                              blockRows: old.blockRows)
        topRows?.offer(sorted, file: file)
        return entry
    }
}
