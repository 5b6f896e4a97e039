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
        let rowsPerBlock = FrameOfReference.miniblockRows
        // the last of rows' miniblocks whose first value is below x: the answer lies in it or at
        // the start of the next (rows before it hold smaller values, rows after it larger ones)
        var lowBlock = rows.lowerBound / rowsPerBlock, highBlock = (rows.upperBound - 1) / rowsPerBlock + 1
        if first(ofMiniblock: lowBlock) >= x { return rows.lowerBound }
        while highBlock - lowBlock > 1 {
            let mid = (lowBlock + highBlock) / 2
            if first(ofMiniblock: mid) < x { lowBlock = mid } else { highBlock = mid }
        }
        let span = Swift.max(rows.lowerBound, lowBlock * rowsPerBlock)
            ..< Swift.min(rows.upperBound, (lowBlock + 1) * rowsPerBlock)
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
