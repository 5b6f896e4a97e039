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
    package var partitioning: Partitioning { old.partitioning }

    package struct Output {
        /// Per changed partition ordinal, its new entry (nil: the partition is now empty).
        package var changed: [Int: PartitionEntry?] = [:]
        package var updated = 0
        package var unchanged = 0
        /// Events whose precise time a coarser copy with the same `updated` did not replace, and one of them.
        package var keptPreciseTimes = 0
        package var keptPreciseExample: (id: String, time: Int64, coarse: Int64)?
    }

    /// Partitions the run will merge (the spilled ones and the sources of moves).
    package func partitions(_ resolved: ResolvePass.Output) -> Int {
        Set(spills.partitions.keys).union(resolved.moves.keys).union(direct.keys).count
    }

    /// - Parameter onPartition: called after each partition, from any thread.
    package func run(_ resolved: ResolvePass.Output, onPartition: @escaping @Sendable () -> Void = {}) throws -> Output {
        let moves = resolved.moves
        var existing: [Int: PartitionEntry] = [:]
        for e in old.partitions { existing[partitioning.ordinal(e.minTime)] = e }
        // carry moved rows to their destination first, so every destination sees them
        var movedOut: [Int: SliceInterner] = [:]
        for (from, list) in moves.sorted(by: { $0.key < $1.key }) {
            var ids = SliceInterner(capacity: list.count)
            var dest: [Int] = []
            // SAFETY: `$0` is used only inside the closure; intern copies the id's bytes.
            for m in list { m.id.withUnsafeBytes { _ = ids.intern($0) }; dest.append(m.to) }
            var carried: [Int: [Int]] = [:]
            let rows = try rowsOf(from, existing: existing[from])
            // SAFETY: i < rows.count, so each range(i) lies in the id arena's bytes (decoded chunks are checked; spill
            // batches are this load's own, zstd-checksummed); lookup only reads the slice.
            rows.text[Column.id.rawValue].bytes.withUnsafeBytes { raw in
                let a = rows.text[Column.id.rawValue]
                for i in 0..<rows.count {
                    if let k = ids.lookup(UnsafeRawBufferPointer(rebasing: raw[a.range(i)])) { carried[dest[k], default: []].append(i) }
                }
            }
            for (to, idx) in carried { try spills.partition(to).append(rows.gather(idx).serialized()) }
            movedOut[from] = ids
        }
        let touched = Set(spills.partitions.keys).union(moves.keys).union(direct.keys).sorted()
        let bulk = !resolved.repeatsIds
        let results = try parallelMap(touched) { o in
            defer { onPartition() }
            if isCancelled?() == true { throw QuakeError(.interrupted, detail: "interrupted") }
            if let w = direct[o] {
                // written as the input ran past it: final unless other rows must be merged in
                if bulk && movedOut[o] == nil && spills.partitions[o] == nil {
                    return (o, PartitionResult(changed: true, entry: w.entry))
                }
                history.discard(ordinal: o)
            }
            var r = try mergePartition(o, existing: existing[o], movedOut: movedOut[o], bulk: bulk)
            if !r.changes.isEmpty {
                try history.append(ordinal: o, r.changes.encoded(key: partitioning.key(ordinal: o),
                                                                 partitionRows: r.entry?.rows))
            }
            r.changes = ChangeSet()
            MallocPolicy.releaseFree()   // what this partition freed, before the next one grows the heap again
            return (o, r)
        }
        var out = Output()
        for (o, r) in results {
            out.updated += r.updated
            out.unchanged += r.unchanged
            out.keptPreciseTimes += r.keptPreciseTimes
            if out.keptPreciseExample == nil { out.keptPreciseExample = r.keptPreciseExample }
            if r.changed { out.changed[o] = r.entry }
        }
        return out
    }

    /// Stored rows of partition `o` followed by its spilled rows.
    private func rowsOf(_ o: Int, existing: PartitionEntry?) throws -> RowBatch {
        var rows = RowBatch()
        if let e = existing { rows = try PartitionReader(storePath: storePath, entry: e).readAll() }
        if let w = direct[o] {
            rows.append(contentsOf: try DirectPartitions.rows(w, storePath: storePath))
        }
        if let s = spills.partitions[o] {
            try s.forEach { p in rows.append(contentsOf: try RowBatch(serialized: p)) }
        }
        return rows
    }

    private struct PartitionResult {
        package var changed = false
        package var entry: PartitionEntry?
        package var updated = 0
        package var unchanged = 0
        package var keptPreciseTimes = 0
        package var keptPreciseExample: (id: String, time: Int64, coarse: Int64)?
        package var changes = ChangeSet()
    }

    private func mergePartition(_ o: Int, existing: PartitionEntry?, movedOut: SliceInterner?, bulk: Bool) throws -> PartitionResult {
        var rows = try rowsOf(o, existing: existing)
        let storedRows = existing?.rows ?? 0
        var result = PartitionResult()
        if bulk && movedOut == nil {
            // bulk path: every row is a distinct event, so nothing to fold; sort unless in order
            guard rows.count > storedRows else { return result }
            result.changed = true
            do {
                let ids = rows.text[Column.id.rawValue], times = rows.ints[Column.time.rawValue]
                for i in storedRows..<rows.count {
                    result.changes.inserted.append(from: ids, row: i)
                    result.changes.touch(times[i])
                }
            }
            // sorted in place, column by column: the batch is the largest thing a merge holds
            rows.sortByTimeId()
            result.entry = try write(rows, partition: o)
            return result
        }
        let ids = rows.text[Column.id.rawValue]
        // each event's versions, as runs of one array (a counting sort of the rows by event)
        var code = [Int](repeating: -1, count: rows.count)
        var starts: [Int] = []
        do {
            var interner = SliceInterner(capacity: rows.count)
            // SAFETY: i < rows.count, so each range(i) lies in the id arena's bytes (as above); intern copies the
            // bytes and `raw` does not escape the closure.
            ids.bytes.withUnsafeBytes { raw in
                for i in 0..<rows.count {
                    let p = UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])
                    if let moved = movedOut, moved.lookup(p) != nil {
                        // a stored row moving out changes the partition; a new one carried away does not
                        if i < storedRows { result.changed = true }
                        continue
                    }
                    let k = interner.intern(p)
                    code[i] = k
                    if k == starts.count { starts.append(0) }
                    starts[k] += 1
                }
            }
        }
        var total = 0
        for k in starts.indices { (starts[k], total) = (total, total + starts[k]) }
        starts.append(total)
        var members = [Int](repeating: 0, count: total)
        do {
            var next = starts
            for i in 0..<rows.count where code[i] >= 0 {
                members[next[code[i]]] = i
                next[code[i]] += 1
            }
        }
        code = []
        // single-version events are kept by index and gathered once; events with several
        // versions are folded by index, and only changed ones are built
        var keep: [Int] = []
        keep.reserveCapacity(rows.count)
        var folded = RowBatch()
        var sources = [Int](repeating: 0, count: Column.count)
        let upd = rows.ints[Column.updated.rawValue]
        for k in 0..<(starts.count - 1) {
            let lo = starts[k], hi = starts[k + 1]
            if hi - lo == 1 {
                let i = members[lo]
                keep.append(i)
                if i >= storedRows {
                    result.changed = true
                    if rows.seq[i] != Int64.min { noteInserted(&result.changes, rows, i) }
                }
                continue
            }
            members[lo..<hi].sort { a, b in upd[a] != upd[b] ? upd[a] < upd[b] : rows.seq[a] < rows.seq[b] }
            let g = members[lo..<hi]
            var keptTime = false
            let provenance = rows.foldSources(g, into: &sources, keptPreciseTime: &keptTime)
            if keptTime { notePreciseTime(&result, rows, g) }
            let storedHere = g.first { $0 < storedRows }
            let stored = g.first { rows.seq[$0] == Int64.min }
            let sameValues = storedHere.map { rows.changedColumns(sources: sources, $0) == 0 } ?? false
            if let storedRow = storedHere, sameValues, rows.provenance(storedRow) == provenance {
                result.unchanged += 1
                keep.append(storedRow)
                result.changes.unchanged.append(from: ids, row: storedRow)
            } else if let storedRow = storedHere, sameValues {
                // the same values, but the fields' origins moved (an older version filled a
                // field no version had carried): written again, and counted unchanged
                result.unchanged += 1
                result.changes.unchanged.append(from: ids, row: storedRow)
                result.changed = true
                folded.append(folding: rows, sources: sources, provenance: provenance, seq: rows.seq[g.last ?? lo])
            } else {
                let time = rows.ints[Column.time.rawValue][sources[Column.time.rawValue]]
                if let s = stored {
                    result.updated += 1
                    result.changes.updated.append(from: ids, row: s)
                    result.changes.changedColumns.append(rows.changedColumns(sources: sources, s))
                    result.changes.touch(rows.ints[Column.time.rawValue][s])
                    result.changes.touch(time)
                } else {
                    result.changes.inserted.append(from: ids, row: sources[Column.id.rawValue])
                    result.changes.touch(time)
                }
                result.changed = true
                folded.append(folding: rows, sources: sources, provenance: provenance, seq: rows.seq[g.last ?? lo])
            }
        }
        if !result.changed || keep.count + folded.count == 0 { return result }
        // the folded rows join the batch (a few, in a small commit), and every row is copied once
        let foldedStart = rows.count
        rows.append(contentsOf: folded)
        keep.append(contentsOf: foldedStart..<rows.count)
        let sorted = rows.gather(rows.timeIdOrder(of: keep))
        rows = RowBatch()
        result.entry = try write(sorted, partition: o)
        return result
    }

    /// Counts an event whose precise time was kept over a coarser copy, and keeps one example.
    private func notePreciseTime(_ r: inout PartitionResult, _ rows: RowBatch, _ g: ArraySlice<Int>) {
        r.keptPreciseTimes += 1
        guard r.keptPreciseExample == nil else { return }
        let times = rows.ints[Column.time.rawValue], ids = rows.text[Column.id.rawValue]
        for c in g {
            if let p = g.first(where: { TimePrecision.coarsens(times[c], times[$0]) }) {
                r.keptPreciseExample = (ids.string(c) ?? "", times[p], times[c])
                return
            }
        }
    }

    private func noteInserted(_ c: inout ChangeSet, _ rows: RowBatch, _ i: Int) {
        c.inserted.append(from: rows.text[Column.id.rawValue], row: i)
        c.touch(rows.ints[Column.time.rawValue][i])
    }

    private func write(_ sorted: RowBatch, partition o: Int) throws -> PartitionEntry {
        let key = partitioning.key(ordinal: o)
        let file = "\(key).g\(generation).\(PartitionFile.fileExtension)"
        // a staged partition has this name: unlink it rather than overwrite a file that was mapped
        if direct[o] != nil { FileIO.remove(storePath + "/partitions/" + file) }
        let entry = try PartitionWriter.write(sorted, key: key, file: file, storePath: storePath,
                                              blockRows: old.blockRows)
        topRows?.offer(sorted, file: file)
        return entry
    }
}
