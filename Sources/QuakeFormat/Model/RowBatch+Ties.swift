extension RowBatch {
    /// True when the times never decrease (ties may still be out of id order).
    package func isTimeOrdered() -> Bool {
        let t = ints[Column.time.rawValue]
        for i in stride(from: 1, to: count, by: 1) where t[i - 1] > t[i] { return false }
        return true
    }

    /// Brings rows already in time order into (time, id) order by reordering each run of equal
    /// times in place: feeds come in time order, and only the few ties whose ids are out of
    /// order move, instead of every column of every row being gathered anew.
    /// - Precondition: ``isTimeOrdered()``.
    /// - Complexity: O(rows) to find the runs, plus the bytes of the runs that move.
    package mutating func orderTies() {
        let t = ints[Column.time.rawValue]
        var a = 0
        while a < count {
            var b = a + 1
            var inOrder = true
            let ids = text[Column.id.rawValue]
            while b < count && t[b] == t[a] {
                if inOrder && ids.compare(b - 1, ids, b) >= 0 { inOrder = false }
                b += 1
            }
            if !inOrder {
                let order = (a..<b).sorted { ids.compare($0, ids, $1) < 0 }
                reorder(a..<b, order)
            }
            a = b
        }
    }

    /// Puts rows `order` (a permutation of `run`) at positions `run`, column by column.
    private mutating func reorder(_ run: Range<Int>, _ order: [Int]) {
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                let v = order.map { ints[c.rawValue][$0] }
                ints[c.rawValue].replaceSubrange(run, with: v)
            } else {
                let moved = text[c.rawValue].gather(order)
                let start = run.lowerBound == 0 ? 0 : text[c.rawValue].ends[run.lowerBound - 1]
                let end = text[c.rawValue].ends[run.upperBound - 1]
                // the run's bytes keep their span; only their order within it changes
                text[c.rawValue].bytes.replaceSubrange(start..<end, with: moved.bytes)
                text[c.rawValue].ends.replaceSubrange(run, with: moved.ends.map { $0 + start })
            }
        }
        let p = order.map { present[$0] }, s = order.map { seq[$0] }
        present.replaceSubrange(run, with: p)
        seq.replaceSubrange(run, with: s)
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
