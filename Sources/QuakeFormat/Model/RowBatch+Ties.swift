extension RowBatch {
    /// True when the times never decrease (ties may still be out of id order).
    package func isTimeOrdered() -> Bool {
        let times = ints[Column.time.rawValue]
        for i in stride(from: 1, to: count, by: 1) where times[i - 1] > times[i] { return false }
        return true
    }

    /// Brings rows already in time order into (time, id) order by reordering each run of equal
    /// times in place: feeds come in time order, and only the few ties whose ids are out of
    /// order move, instead of every column of every row being gathered anew.
    /// - Precondition: ``isTimeOrdered()``.
    /// - Complexity: O(rows) to find the runs, plus the bytes of the runs that move.
    package mutating func orderTies() {
        let times = ints[Column.time.rawValue]
        var runStart = 0
        while runStart < count {
            var runEnd = runStart + 1
            var inOrder = true
            let ids = text[Column.id.rawValue]
            while runEnd < count && times[runEnd] == times[runStart] {
                if inOrder && ids.compare(runEnd - 1, ids, runEnd) >= 0 { inOrder = false }
                runEnd += 1
            }
            if !inOrder {
                let order = (runStart..<runEnd).sorted { ids.compare($0, ids, $1) < 0 }
                reorder(runStart..<runEnd, order)
            }
            runStart = runEnd
        }
    }

    /// Puts rows `order` (a permutation of `run`) at positions `run`, column by column.
    private mutating func reorder(_ run: Range<Int>, _ order: [Int]) {
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                let sorted = order.map { ints[c.rawValue][$0] }
                ints[c.rawValue].replaceSubrange(run, with: sorted)
            } else {
                let moved = text[c.rawValue].gather(order)
                let start = run.lowerBound == 0 ? 0 : text[c.rawValue].ends[run.lowerBound - 1]
                let end = text[c.rawValue].ends[run.upperBound - 1]
                // the run's bytes keep their span; only their order within it changes
                text[c.rawValue].bytes.replaceSubrange(start..<end, with: moved.bytes)
                text[c.rawValue].ends.replaceSubrange(run, with: moved.ends.map { $0 + start })
            }
        }
        let sortedPresent = order.map { present[$0] }, sortedSeq = order.map { seq[$0] }
        present.replaceSubrange(run, with: sortedPresent)
        seq.replaceSubrange(run, with: sortedSeq)
        if !origins.isEmpty {
            let moved = order.map { origins[$0] }
            for (offset, origin) in moved.enumerated() { origins[run.lowerBound + offset] = origin }
        }
    }

    /// Brings the rows into (time, id) order the cheapest way: nothing when they are, runs of
    /// ties when only those are out of order, else one permutation of every column.
    package mutating func sortByTimeId() {
        if isTimeIdOrdered() { return }
        if isTimeOrdered() { orderTies() } else { permute(timeIdOrder()) }
    }
}
