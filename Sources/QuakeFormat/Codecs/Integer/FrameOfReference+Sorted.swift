extension FrameOfReference.Body {
    /// For values that do not decrease over the chunk (a partition's times): the first row of
    /// `rows` whose value is not below `x`, or `rows.upperBound` when none is. The miniblocks'
    /// first values (in their headers) are searched, then only the one miniblock the answer
    /// lies in is decoded.
    ///
    /// On values that do decrease (a damaged chunk) the answer is some row of `rows`, never a trap.
    ///
    /// - Complexity: O(log(rows / 1024) + 1024).
    package func lowerBound(_ x: Int64, in rows: Range<Int>) -> Int {
        assert(rows.lowerBound >= 0 && rows.upperBound <= count, "rows \(rows) outside 0..<\(count)")
        guard !rows.isEmpty else { return rows.lowerBound }
        let m = FrameOfReference.miniblockRows
        // the last of rows' miniblocks whose first value is below x: the answer lies in it or at
        // the start of the next (rows before it hold smaller values, rows after it larger ones)
        var a = rows.lowerBound / m, b = (rows.upperBound - 1) / m + 1
        if first(ofMiniblock: a) >= x { return rows.lowerBound }
        while b - a > 1 {
            let mid = (a + b) / 2
            if first(ofMiniblock: mid) < x { a = mid } else { b = mid }
        }
        let span = Swift.max(rows.lowerBound, a * m)..<Swift.min(rows.upperBound, (a + 1) * m)
        var values = [Int64](repeating: 0, count: span.count)
        // SAFETY: `p` has span.count slots, the rows decode writes; span lies in rows, inside 0..<count.
        values.withUnsafeMutableBufferPointer { p in if let base = p.baseAddress { decode(span, into: base) } }
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return span.lowerBound + lo
    }
}
