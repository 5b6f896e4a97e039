/// Folding an event's versions by row index: which row supplies each column, without building
/// a row per version. The same result as ``RowBatch/appendMerged(older:_:newer:_:)`` applied
/// oldest to newest, at no allocation per event.
extension RowBatch {
    /// The fold of the versions at `order` (oldest first): per column, in `sources`, the row
    /// whose value the event keeps. A version sets the columns its source had (`present`),
    /// except a text that is a double-encoded (mojibake) copy of the text kept so far, and a time
    /// that is a coarser copy (see ``TimePrecision``) of the time kept so far from a version with
    /// the same `updated`.
    /// - Returns: the folded row's `present` mask (every version's, or-ed).
    @discardableResult
    package func foldSources(_ order: ArraySlice<Int>, into sources: inout [Int]) -> UInt64 {
        var kept = false
        return foldSources(order, into: &sources, keptPreciseTime: &kept)
    }

    /// ``foldSources(_:into:)``, setting `keptPreciseTime` when a coarser time was refused.
    package func foldSources(_ order: ArraySlice<Int>, into sources: inout [Int],
                             keptPreciseTime: inout Bool) -> UInt64 {
        guard let first = order.first else { return 0 }
        for c in 0..<Column.count { sources[c] = first }
        var present = self.present[first]
        let time = Column.time.rawValue, updated = ints[Column.updated.rawValue]
        for j in order.dropFirst() {
            let mask = self.present[j]
            present |= mask
            for c in Column.allCases where mask & c.bit != 0 {
                let k = c.rawValue
                if k == time, updated[j] == updated[sources[k]],
                   TimePrecision.coarsens(ints[k][j], ints[k][sources[k]]) {
                    keptPreciseTime = true
                    continue
                }
                if RowBatch.isInt(c) || !text[k].garbles(j, of: text[k], sources[k]) { sources[k] = j }
            }
        }
        return present
    }

    /// The columns in which the folded event (its `sources`) differs from row `s`.
    package func changedColumns(sources: [Int], _ s: Int) -> UInt64 {
        var mask: UInt64 = 0
        for c in Column.allCases {
            let k = c.rawValue, r = sources[k]
            if r == s { continue }
            let same = RowBatch.isInt(c) ? ints[k][r] == ints[k][s] : text[k].equal(r, text[k], s)
            if !same { mask |= c.bit }
        }
        return mask
    }

    /// Appends the folded event: each column's value from its source row of `rows`.
    package mutating func append(folding rows: RowBatch, sources: [Int], present mask: UInt64, seq s: Int64) {
        for c in Column.allCases {
            let k = c.rawValue
            if RowBatch.isInt(c) {
                ints[k].append(rows.ints[k][sources[k]])
            } else {
                text[k].append(from: rows.text[k], row: sources[k])
            }
        }
        present.append(mask)
        seq.append(s)
        count += 1
    }
}
