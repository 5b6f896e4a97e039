/// Encodes a block of `Int64` (timestamps, scaled decimals): nulls to a bitmap, optional delta
/// coding, zigzag, then byte planes of the narrowest width that holds every value. zstd then
/// sees long runs of near-equal bytes.
///
/// Layout: `u8 flags, u8 width`, the null bitmap (flag 2), `i64 base` (flag 1, delta), `u8 scale`
/// (flag 4, ``uniformScale``), then `width` planes. A block of ``ScaledDecimal``s that all share
/// one scale (and hold no `-0`) keeps their mantissas only, without the 6 scale bits each value
/// carries, when the caller passes `decimals`.
package enum BytePlanes {
    /// The values are scaled decimals of one scale, stored as mantissas.
    private static let uniformScale: UInt8 = 4

    /// The scale every non-null decimal of `v` shares, or nil (none, mixed, or a `-0`).
    private static func sharedScale(_ v: ArraySlice<Int64>) -> Int64? {
        var scale: Int64 = -1
        for x in v where x != RowBatch.null {
            let valueScale = x & 63
            if valueScale & 32 != 0 || (scale >= 0 && valueScale != scale) { return nil }
            scale = valueScale
        }
        return scale >= 0 ? scale : nil
    }

    package static func encode(_ v: ArraySlice<Int64>, delta: Bool, decimals: Bool = false) -> [UInt8] {
        let count = v.count
        var hasNulls = false
        for x in v where x == RowBatch.null {
            hasNulls = true
            break
        }
        let scale = decimals && !delta ? sharedScale(v) : nil
        let shift: Int64 = scale == nil ? 0 : 6
        var writer = ByteWriter()
        var zigzag = [UInt64](repeating: 0, count: count)
        var base: Int64 = 0
        var prev: Int64 = 0
        var first = true
        var bitmap = [UInt8](repeating: 0, count: hasNulls ? (count + 7) / 8 : 0)
        var maxZ: UInt64 = 0
        var index = 0
        for x in v {
            if x == RowBatch.null {
                bitmap[index >> 3] |= 1 << UInt8(index & 7)
            } else {
                var encoded = x >> shift
                if delta {
                    if first {
                        base = x
                        prev = x
                        first = false
                    }
                    encoded = x &- prev
                    prev = x
                }
                let zz = UInt64(bitPattern: (encoded << 1) ^ (encoded >> 63))
                zigzag[index] = zz
                if zz > maxZ { maxZ = zz }
            }
            index += 1
        }
        let width = maxZ == 0 ? 0 : (64 - maxZ.leadingZeroBitCount + 7) / 8
        writer.u8((delta ? 1 : 0) | (hasNulls ? 2 : 0) | (scale == nil ? 0 : uniformScale))
        writer.u8(UInt8(width))
        if hasNulls { writer.bytes.append(contentsOf: bitmap) }
        if delta { writer.i64(base) }
        if let scale { writer.u8(UInt8(scale)) }
        let start = writer.bytes.count
        writer.bytes.append(contentsOf: repeatElement(0, count: count * width))
        // SAFETY: offset + i < start + width * n = writer.bytes.count and i < n = zigzag.count; neither pointer
        // escapes.
        writer.bytes.withUnsafeMutableBufferPointer { out in
            zigzag.withUnsafeBufferPointer { zp in
                for plane in 0..<width {
                    let offset = start + plane * count
                    let shift = UInt64(plane * 8)
                    for i in 0..<count { out[offset + i] = UInt8(truncatingIfNeeded: zp[i] >> shift) }
                }
            }
        }
        return writer.bytes
    }

    /// The zigzag values of rows `range` of `n` rows whose `width` byte planes start at `start` in
    /// `raw` (value `i` of the result is row `range.lowerBound + i`'s).
    private static func planes(_ raw: UnsafeRawBufferPointer, start: Int, width: Int, rows n: Int,
                               range: Range<Int>) -> [UInt64] {
        var zigzag = [UInt64](repeating: 0, count: range.count)
        assert(start + n * width <= raw.count, "byte planes run past the block")
        assert(range.lowerBound >= 0 && range.upperBound <= n, "rows outside the block")
        // SAFETY: the caller's need(n * width) checked start + n * width <= raw.count, so base[i] (i in
        // range, within 0..<n) stays in `raw`; raw holds >= 2 bytes (the header), so baseAddress is non-nil;
        // the bytes are a decompressed [UInt8], already bound to UInt8. zp has range.count slots, indexed
        // i - first. No pointer escapes the closure.
        zigzag.withUnsafeMutableBufferPointer { zp in
            let src = raw.bindMemory(to: UInt8.self)
            let first = range.lowerBound
            for plane in 0..<width {
                let base = src.baseAddress! + start + plane * n
                let shift = UInt64(plane * 8)
                for i in range { zp[i - first] |= UInt64(base[i]) << shift }
            }
        }
        return zigzag
    }

    /// Decodes rows `range` (all `n` when nil) of a block of scaled decimals straight to doubles
    /// (NaN for null), in one pass over the byte planes and one conversion loop.
    package static func decodeDoubles(_ raw: UnsafeRawBufferPointer, rows n: Int,
                                      range wanted: Range<Int>? = nil) throws(QuakeError) -> [Double] {
        let range = wanted ?? 0..<n
        guard range.lowerBound >= 0, range.upperBound <= n else { throw .corrupt("rows \(range) outside the block") }
        var reader = ByteReader(raw)
        let flags = try reader.u8()
        let width = Int(try reader.u8())
        guard width <= 8, flags & 1 == 0 else {
            return try decode(raw, rows: n, range: range).map { ScaledDecimal.double($0) }
        }
        let hasNulls = flags & 2 != 0
        var bitmapStart = -1
        if hasNulls {
            bitmapStart = reader.pos
            try reader.need((n + 7) / 8)
            reader.pos += (n + 7) / 8
        }
        let scale: Int64? = flags & uniformScale != 0 ? try Self.scale(&reader) : nil
        try reader.need(n * width)
        let zigzag = planes(raw, start: reader.pos, width: width, rows: n, range: range)
        let count = range.count
        let first = range.lowerBound
        // SAFETY: `out` and `zp` hold count slots (i < count); p10 holds 32 powers and its index is scale <=
        // maxScale (checked by scale(_:)) or encoded & 31; the bitmap reads (rows first + i < n) lie in the
        // need((n + 7) / 8) bytes.
        return [Double](uninitializedCount: count) { out, initialized in
            zigzag.withUnsafeBufferPointer { zp in
                ScaledDecimal.pow10.withUnsafeBufferPointer { p10 in
                    if let scale {
                        let divisor = p10[Int(scale)]
                        for i in 0..<count {
                            let zz = zp[i]
                            let mantissa = Int64(bitPattern: (zz >> 1) ^ (0 &- (zz & 1)))
                            out[i] = mantissa.magnitude > 1 << 53 ? ScaledDecimal.double(mantissa << 6 | scale)
                                : Double(mantissa) / divisor
                        }
                        return
                    }
                    for i in 0..<count {
                        let zz = zp[i]
                        let encoded = Int64(bitPattern: (zz >> 1) ^ (0 &- (zz & 1)))
                        let mantissa = encoded >> 6
                        if mantissa.magnitude > 1 << 53 || (mantissa == 0 && encoded & 32 != 0) {
                            out[i] = ScaledDecimal.double(encoded)
                        } else {
                            out[i] = Double(mantissa) / p10[Int(encoded & 31)]
                        }
                    }
                }
            }
            if hasNulls {
                for i in 0..<count {
                    let row = first + i
                    if raw[bitmapStart + (row >> 3)] & (1 << UInt8(row & 7)) != 0 { out[i] = .nan }
                }
            }
            initialized = count
        }
    }

    /// Decodes rows `range` (all `n` when nil) of a block. A delta block is summed from its first
    /// row; the others reassemble only the rows asked for.
    package static func decode(_ raw: UnsafeRawBufferPointer, rows n: Int,
                               range wanted: Range<Int>? = nil) throws(QuakeError) -> [Int64] {
        let range = wanted ?? 0..<n
        guard range.lowerBound >= 0, range.upperBound <= n else { throw .corrupt("rows \(range) outside the block") }
        var reader = ByteReader(raw)
        let flags = try reader.u8()
        let width = Int(try reader.u8())
        guard width <= 8 else { throw .corrupt("integer block width \(width)") }
        let delta = flags & 1 != 0
        let hasNulls = flags & 2 != 0
        var bitmapStart = -1
        if hasNulls {
            bitmapStart = reader.pos
            try reader.need((n + 7) / 8)
            reader.pos += (n + 7) / 8
        }
        var prev: Int64 = delta ? try reader.i64() : 0
        let scale: Int64? = flags & uniformScale != 0 ? try Self.scale(&reader) : nil
        guard scale == nil || !delta else { throw .corrupt("integer block: deltas of one scale") }
        try reader.need(n * width)
        // a delta block sums from row 0: its planes are read from there
        let read = delta ? 0..<range.upperBound : range
        let zigzag = planes(raw, start: reader.pos, width: width, rows: n, range: read)
        var out = [Int64](repeating: 0, count: range.count)
        // SAFETY: zp holds read.count slots (i - read.lowerBound < read.count); o holds range.count, written
        // at i - range.lowerBound for i in range; bitmap reads (i < n) lie in the need((n + 7) / 8) bytes at
        // bitmapStart. No pointer escapes.
        out.withUnsafeMutableBufferPointer { o in
            zigzag.withUnsafeBufferPointer { zp in
                for i in read {
                    let zz = zp[i - read.lowerBound]
                    let decoded = Int64(bitPattern: (zz >> 1) ^ (0 &- (zz & 1)))
                    let isNull = hasNulls && raw[bitmapStart + (i >> 3)] & (1 << UInt8(i & 7)) != 0
                    var value: Int64
                    if isNull {
                        value = RowBatch.null
                    } else if let scale {
                        value = decoded &<< 6 | scale
                    } else if delta {
                        prev = prev &+ decoded
                        value = prev
                    } else {
                        value = decoded
                    }
                    if i >= range.lowerBound { o[i - range.lowerBound] = value }
                }
            }
        }
        return out
    }

    /// The shared scale of a ``uniformScale`` block.
    private static func scale(_ r: inout ByteReader) throws(QuakeError) -> Int64 {
        let storedScale = try r.u8()
        guard Int(storedScale) <= ScaledDecimal.maxScale else { throw .corrupt("integer block: scale \(storedScale)") }
        return Int64(storedScale)
    }
}
