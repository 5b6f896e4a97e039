import QuakeFormat

/// The kernels of a point read through the id index: the rows of the minutes the index names
/// (``Filter/timeWindows(_:)``), then their ids, decoding only the zstd frames those rows fall in.
extension BlockData {
    /// Rows of `sel` whose time lies in `windows`: on a whole window, the run of each span that
    /// meets it, by binary search on the sorted times; on a narrowed selection, row by row.
    func selectTimeWindows(_ windows: TimeWindows, _ sel: Selection) throws -> Selection {
        let times = try ints(.time)
        guard times.count == rows else { throw QuakeError.corrupt(reader.path, "time column block \(block)") }
        guard case .all = sel else {
            return sel.filter { windows.contains(times[$0]) }
        }
        // a partition's rows are in (time, id) order (`verify` checks it); null sorts first
        guard let least = times.first(where: { $0 != RowBatch.null }), let greatest = times.last else { return .none }
        var kept: [UInt32] = []
        for span in windows.spans(meeting: least, greatest) {
            let first = BlockData.firstNotBelow(times, Swift.max(span.lowerBound, Int64.min + 1))
            let end = BlockData.firstNotBelow(times, span.upperBound)
            if first < end { kept.append(contentsOf: (first..<end).lazy.map { UInt32(truncatingIfNeeded: $0) }) }
        }
        return kept.count == rows ? sel : .rows(kept)
    }

    /// The index of the first of the sorted `times` at or above `time`.
    /// - Complexity: O(log times).
    static func firstNotBelow(_ times: [Int64], _ time: Int64) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Rows of `sel` whose id is one of `f`'s (``Filter/oneOf(_:_:)`` on `id`, or
    /// ``Filter/ids(_:)``). A narrowed selection decodes the ids from its first row to its last
    /// only; a whole window (or one whose ids are decoded already) takes the mask.
    func selectIds(_ f: Filter, _ sel: Selection) throws -> Selection {
        guard case .rows(let list) = sel, let first = list.first, let last = list.last, last >= first,
              !isDecoded(.id) else {
            let flags = try mask(f)
            // SAFETY: selected rows lie below `rows` = flags.count (one flag a row); `p` stays in the closure.
            return flags.withUnsafeBufferPointer { p in sel.filter { p[$0] } }
        }
        let lowest = Int(first)
        let span = (window.lowerBound + lowest)..<(window.lowerBound + Int(last) + 1)
        guard case .text(let ids) = try reader.decode(.id, block: block, rows: span), ids.count == span.count else {
            throw QuakeError.corrupt(reader.path, "id column block \(block) does not decode to its rows")
        }
        noteRead(.id)
        let wanted: EventIdSet
        switch f {
        case .ids(let set): wanted = set
        case .oneOf(_, let values): wanted = EventIdSet(values)
        default: return sel
        }
        // SAFETY: each selected row lies in first...last, so row - first indexes the decoded ids, whose
        // ranges lie in `raw`; contains only reads the slice.
        return ids.bytes.withUnsafeBytes { raw in
            sel.filter { row in wanted.contains(UnsafeRawBufferPointer(rebasing: raw[ids.range(row - lowest)])) }
        }
    }
}
