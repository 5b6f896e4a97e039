/// Encodes a block of `Int64` (timestamps, scaled decimals): nulls to a bitmap, optional delta
/// coding, zigzag, then byte planes of the narrowest width that holds every value. zstd then
/// sees long runs of near-equal bytes.
package enum BytePlanes {
    package static func encode(_ v: ArraySlice<Int64>, delta: Bool) -> [UInt8] {
        let n = v.count
        var hasNulls = false
        for x in v where x == RowBatch.null { hasNulls = true; break }
        var w = ByteWriter()
        var z = [UInt64](repeating: 0, count: n)
        var base: Int64 = 0
        var prev: Int64 = 0
        var first = true
        var bitmap = [UInt8](repeating: 0, count: hasNulls ? (n + 7) / 8 : 0)
        var maxZ: UInt64 = 0
        var k = 0
        for x in v {
            if x == RowBatch.null {
                bitmap[k >> 3] |= 1 << UInt8(k & 7)
            } else {
                var d = x
                if delta {
                    if first { base = x; prev = x; first = false }
                    d = x &- prev
                    prev = x
                }
                let zz = UInt64(bitPattern: (d << 1) ^ (d >> 63))
                z[k] = zz
                if zz > maxZ { maxZ = zz }
            }
            k += 1
        }
        let width = maxZ == 0 ? 0 : (64 - maxZ.leadingZeroBitCount + 7) / 8
        w.u8((delta ? 1 : 0) | (hasNulls ? 2 : 0))
        w.u8(UInt8(width))
        if hasNulls { w.bytes.append(contentsOf: bitmap) }
        if delta { w.i64(base) }
        let start = w.bytes.count
        w.bytes.append(contentsOf: repeatElement(0, count: n * width))
        w.bytes.withUnsafeMutableBufferPointer { out in
            z.withUnsafeBufferPointer { zp in
                for plane in 0..<width {
                    let o = start + plane * n
                    let shift = UInt64(plane * 8)
                    for i in 0..<n { out[o + i] = UInt8(truncatingIfNeeded: zp[i] >> shift) }
                }
            }
        }
        return w.bytes
    }

    /// Decodes a block of scaled decimals straight to doubles (NaN for null), in one pass
    /// over the byte planes and one conversion loop.
    package static func decodeDoubles(_ raw: UnsafeRawBufferPointer, rows n: Int) throws(StoreError) -> [Double] {
        var r = ByteReader(raw)
        let flags = try r.u8()
        let width = Int(try r.u8())
        guard width <= 8, flags & 1 == 0 else { return try decode(raw, rows: n).map { ScaledDecimal.double($0) } }
        let hasNulls = flags & 2 != 0
        var bitmapStart = -1
        if hasNulls { bitmapStart = r.pos; try r.need((n + 7) / 8); r.pos += (n + 7) / 8 }
        try r.need(n * width)
        let start = r.pos
        var z = [UInt64](repeating: 0, count: n)
        z.withUnsafeMutableBufferPointer { zp in
            let src = raw.bindMemory(to: UInt8.self)
            for plane in 0..<width {
                let base = src.baseAddress! + start + plane * n
                let shift = UInt64(plane * 8)
                for i in 0..<n { zp[i] |= UInt64(base[i]) << shift }
            }
        }
        return [Double](uninitializedCount: n) { out, initialized in
            z.withUnsafeBufferPointer { zp in
                ScaledDecimal.pow10.withUnsafeBufferPointer { p10 in
                    for i in 0..<n {
                        let zz = zp[i]
                        let e = Int64(bitPattern: (zz >> 1) ^ (0 &- (zz & 1)))
                        let m = e >> 6
                        if m.magnitude > 1 << 53 || (m == 0 && e & 32 != 0) {
                            out[i] = ScaledDecimal.double(e)
                        } else {
                            out[i] = Double(m) / p10[Int(e & 31)]
                        }
                    }
                }
            }
            if hasNulls {
                for i in 0..<n where raw[bitmapStart + (i >> 3)] & (1 << UInt8(i & 7)) != 0 { out[i] = .nan }
            }
            initialized = n
        }
    }

    package static func decode(_ raw: UnsafeRawBufferPointer, rows n: Int) throws(StoreError) -> [Int64] {
        var r = ByteReader(raw)
        let flags = try r.u8()
        let width = Int(try r.u8())
        guard width <= 8 else { throw .corrupt("integer block width \(width)") }
        let delta = flags & 1 != 0, hasNulls = flags & 2 != 0
        var bitmapStart = -1
        if hasNulls { bitmapStart = r.pos; try r.need((n + 7) / 8); r.pos += (n + 7) / 8 }
        var prev: Int64 = delta ? try r.i64() : 0
        try r.need(n * width)
        let start = r.pos
        var out = [Int64](repeating: 0, count: n)
        out.withUnsafeMutableBufferPointer { o in
            var z = [UInt64](repeating: 0, count: n)
            z.withUnsafeMutableBufferPointer { zp in
                for plane in 0..<width {
                    let base = start + plane * n
                    let shift = UInt64(plane * 8)
                    for i in 0..<n { zp[i] |= UInt64(raw[base + i]) << shift }
                }
                for i in 0..<n {
                    let zz = zp[i]
                    let d = Int64(bitPattern: (zz >> 1) ^ (0 &- (zz & 1)))
                    if hasNulls && raw[bitmapStart + (i >> 3)] & (1 << UInt8(i & 7)) != 0 {
                        o[i] = RowBatch.null
                        continue
                    }
                    if delta { prev = prev &+ d; o[i] = prev } else { o[i] = d }
                }
            }
        }
        return out
    }
}
