/// Selection over the codes of a dictionary-coded column (``DictionaryCodec``): the packed codes
/// are compared where they lie, with no unpacking into an array and no branch per row.
extension PackedRun {
    /// Writes to `out` (room for `rows.count`) the rows of `rows` whose code lies in
    /// `lo...lo + span`, in order, and returns how many; `highest` becomes the largest code read
    /// (for the caller's damage check). Values are at most 32 bits wide (codes).
    package func select(_ rows: Range<Int>, lo: UInt64, span: UInt64, into out: UnsafeMutablePointer<UInt32>,
                        highest: inout UInt64) -> Int {
        assert(width <= 32 && rows.lowerBound >= 0 && holds(rows.upperBound), "codes \(rows) at width \(width)")
        var kept = 0, top: UInt64 = 0
        if width == 0 {
            // every code is 0 (null), which no wanted code equals: lo >= 1
            if lo == 0 {
                for r in rows {
                    out[kept] = UInt32(truncatingIfNeeded: r)
                    kept += 1
                }
            }
            highest = 0
            return kept
        }
        let mask = self.mask, width = self.width
        var bit = rows.lowerBound &* width, row = UInt32(truncatingIfNeeded: rows.lowerBound)
        // SAFETY: each row of `rows` lies in the run (asserted above; the parser checked the run
        // holds its count values), so every word(atBit:) load stays inside; out has room for
        // rows.count rows and kept counts at most the rows visited.
        for _ in rows {
            let code = word(atBit: bit) & mask
            out[kept] = row
            kept &+= code &- lo <= span ? 1 : 0
            top = Swift.max(top, code)
            bit &+= width
            row &+= 1
        }
        highest = top
        return kept
    }

    /// As ``select(_:lo:span:into:highest:)`` with the wanted codes marked in `table`, whose last
    /// entry is false: a code past it reads that entry, so it is kept out (and reported in `highest`).
    package func select(_ rows: Range<Int>, table: UnsafeBufferPointer<Bool>, into out: UnsafeMutablePointer<UInt32>,
                        highest: inout UInt64) -> Int {
        assert(width <= 32 && rows.lowerBound >= 0 && holds(rows.upperBound), "codes \(rows) at width \(width)")
        guard let tableBase = table.baseAddress, table.count > 0, width > 0 else {
            highest = 0
            return 0
        }
        var kept = 0, top: UInt64 = 0
        let last = UInt64(table.count - 1), mask = self.mask, width = self.width
        var bit = rows.lowerBound &* width, row = UInt32(truncatingIfNeeded: rows.lowerBound)
        // SAFETY: as above for the run and `out`; the code is clamped to table.count - 1 before
        // the table is read.
        for _ in rows {
            let code = word(atBit: bit) & mask
            out[kept] = row
            kept &+= tableBase[Int(truncatingIfNeeded: Swift.min(code, last))] ? 1 : 0
            top = Swift.max(top, code)
            bit &+= width
            row &+= 1
        }
        highest = top
        return kept
    }

    /// The rows of `among` (ascending, each below the run's count) whose code is marked in
    /// `table`, appended to `out`; returns the largest code read.
    package func select(among: UnsafeBufferPointer<UInt32>, table: [Bool], into out: inout [UInt32]) -> UInt64 {
        var top: UInt64 = 0
        for r in among {
            let code = value(at: Int(r))
            top = Swift.max(top, code)
            if code < UInt64(table.count) && table[Int(truncatingIfNeeded: code)] { out.append(r) }
        }
        return top
    }
}
