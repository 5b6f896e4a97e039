/// Timestamps (`time`, `updated`): a null bitmap, then ``FrameOfReference`` over the values
/// with each null replaced by the value before it (so it costs no bits). Sorted times pack as
/// deltas in a few bits a row; any row range decodes from its 1024-row miniblock.
package enum ForIntegerCodec: RangeSelectingCodec {
    package static let id = CodecID.forInteger

    /// The values with nulls replaced by their predecessor, and the statistics.
    private static func filled(_ v: [Int64], rows: Range<Int>) -> ([Int64], ChunkStats) {
        var out = [Int64](repeating: 0, count: rows.count)
        var prev: Int64 = 0
        var seen = false
        var stats = ChunkStats(nulls: 0, min: Int64.max, max: Int64.min)
        for (k, i) in rows.enumerated() {
            let value = v[i]
            if value == RowBatch.null {
                stats.nulls += 1
                out[k] = prev
                continue
            }
            if !seen {
                // nulls before the first value take it too
                for j in 0..<k { out[j] = value }
                seen = true
            }
            out[k] = value
            prev = value
            if value < stats.min { stats.min = value }
            if value > stats.max { stats.max = value }
        }
        if !seen {
            stats.min = 0
            stats.max = 0
        }
        return (out, stats)
    }

    package static func analyze(_ values: [Int64], rows: Range<Int>) -> Int {
        let (filledValues, filledStats) = filled(values, rows: rows)
        let bitmap = filledStats.nulls > 0 && filledStats.nulls < rows.count ? (rows.count + 7) / 8 : 0
        if filledStats.nulls == rows.count { return 5 }
        // SAFETY: `$0` spans v's count values and does not escape the closure.
        return 5 + bitmap + GranuleSums.size(rows.count)
            + filledValues.withUnsafeBufferPointer { FrameOfReference.size($0) }
    }

    package static func encode(_ values: [Int64], rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        let (filledValues, stats) = filled(values, rows: rows)
        var writer = ByteWriter()
        let lo = rows.lowerBound
        let some = stats.nulls < rows.count
        _ = NullBitmap.write(rows.count, into: &writer, extraFlags: some ? GranuleSums.flag : 0) {
            values[lo + $0] == RowBatch.null
        }
        if some {
            var body: [UInt8] = []
            // SAFETY: `$0` spans v's count values and does not escape the closure.
            filledValues.withUnsafeBufferPointer { FrameOfReference.encode($0, into: &body) }
            GranuleSums.write(body: body, count: rows.count, into: &writer)
            writer.bytes.append(contentsOf: body)
        }
        out.append(contentsOf: writer.bytes)
        return stats
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        // SAFETY: header reads go through ByteReader; the bitmap and body are slices of `chunk` after need().
        var reader = ByteReader(chunk)
        let (flags, bitmap) = try NullBitmap.read(&reader, count: count)
        if flags & NullBitmap.allNull != 0 { return .ints([Int64](repeating: RowBatch.null, count: rows.count)) }
        let body = try Self.body(&reader, chunk, flags: flags, count: count).body
        // SAFETY: rows lie in 0..<count (the guard above), the rows Body was checked for; `buf` stays inside.
        var out = [Int64](uninitializedCount: rows.count) { buf, n in
            // SAFETY: buf has rows.count slots; decode writes exactly that many.
            if let base = buf.baseAddress { body.decode(rows, into: base) }
            n = rows.count
        }
        if let bitmap {
            // SAFETY: rows lie in 0..<count and the bitmap holds (count + 7) / 8 bytes.
            for i in rows where NullBitmap.isNull(bitmap, i) { out[i - rows.lowerBound] = RowBatch.null }
        }
        return .ints(out)
    }

    package static func select(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>, _ range: RangePredicate,
                       into out: inout [UInt32]) throws(QuakeError) -> Bool {
        guard case .time(let lo, let hi) = range else { return false }
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        // SAFETY: header reads go through ByteReader; the bitmap and body are slices of `chunk` after need().
        var reader = ByteReader(chunk)
        let (flags, bitmap) = try NullBitmap.read(&reader, count: count)
        if flags & NullBitmap.allNull != 0 { return true }
        // [lo, hi) (hi nil: Int64.max, as RangePredicate.contains) as the closed l...h the kernel
        // takes; the null sentinel never matches
        let low = Swift.max(lo ?? Int64.min, RowBatch.null &+ 1), end = hi ?? Int64.max
        guard end > low else { return true }
        let high = end - 1
        let body = try Self.body(&reader, chunk, flags: flags, count: count).body
        // SAFETY: rows lie in 0..<count (the guard above), the rows Body was checked for; `buf` stays inside.
        var hits = [UInt32](uninitializedCount: rows.count) { buf, n in
            // SAFETY: buf has room for rows.count rows, as select requires.
            n = buf.baseAddress.map { body.select(rows, low, high, into: $0) } ?? 0
        }
        // SAFETY: every hit is a chunk row below count; the bitmap holds (count + 7) / 8 bytes.
        if let bitmap { hits.removeAll { NullBitmap.isNull(bitmap, Int($0)) } }
        out.append(contentsOf: hits)
        return true
    }

    /// For a chunk whose values do not decrease (a partition's times) and hold no null: the rows
    /// of `rows` whose value lies in `lo..<hi` (nil bounds: unbounded), found by searching the
    /// miniblock headers and decoding two miniblocks at most (``FrameOfReference/Body/lowerBound(_:in:)``);
    /// nil when the chunk has nulls.
    package static func sortedRun(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                                  _ lo: Int64?, _ hi: Int64?) throws(QuakeError) -> Range<Int>? {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        // SAFETY: header reads go through ByteReader; the body is a slice of `chunk` after need().
        var reader = ByteReader(chunk)
        let (flags, bitmap) = try NullBitmap.read(&reader, count: count)
        guard bitmap == nil, flags & NullBitmap.allNull == 0 else { return nil }
        let body = try Self.body(&reader, chunk, flags: flags, count: count).body
        let first = lo.map { body.lowerBound($0, in: rows) } ?? rows.lowerBound
        let end = hi.map { body.lowerBound($0, in: first..<rows.upperBound) } ?? rows.upperBound
        return first..<Swift.max(first, end)
    }

    /// The body after the null header at `r`, with the granule sums table when the chunk has
    /// one; checks the flags.
    private static func body(_ r: inout ByteReader, _ chunk: UnsafeRawBufferPointer, flags: UInt8, count: Int)
        throws(QuakeError) -> (body: FrameOfReference.Body, sums: ChunkBytes?) {
        guard flags & ~(NullBitmap.hasNulls | NullBitmap.allNull | GranuleSums.flag) == 0 else {
            throw .corrupt("timestamp chunk flags \(flags)")
        }
        let sums = flags & GranuleSums.flag != 0 ? try GranuleSums.read(&r, count: count) : nil
        assert(r.bytes.baseAddress == chunk.baseAddress && r.bytes.count == chunk.count, "`r` must read `chunk`")
        // the body runs from the reader's position to the chunk's end (rest() checks the position)
        return (try FrameOfReference.Body(try r.rest(), count: count), sums)
    }

    /// The chunk's granule sums with its body; nil for a chunk without them (older, or all null).
    package static func granuleSums(_ chunk: UnsafeRawBufferPointer, count: Int)
        throws(QuakeError) -> GranuleSums.Table? {
        // SAFETY: header reads go through ByteReader; the sums table is a slice of `chunk` after need().
        var reader = ByteReader(chunk)
        let (flags, _) = try NullBitmap.read(&reader, count: count)
        guard flags & NullBitmap.allNull == 0 else { return nil }
        let (body, sums) = try body(&reader, chunk, flags: flags, count: count)
        return sums.map { GranuleSums.Table(sums: $0, body: body, chunk: ChunkBytes(chunk)) }
    }
}
