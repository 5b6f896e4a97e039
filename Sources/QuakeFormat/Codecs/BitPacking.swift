/// Fixed-width bit packing of unsigned integers, little-endian, with random access by row.
///
/// Widths run from 0 (every value is the reference) to 64 bits. A packed run of `n` values is
/// `bytes(n, width)` long: its bits rounded up to whole 8-byte words, plus one spare word so a
/// reader can always load 8 bytes at any value's byte offset.
package enum BitPacking {
    /// Bytes taken by `n` values of `width` bits, padding included.
    @inline(__always)
    package static func bytes(_ n: Int, width: Int) -> Int {
        width == 0 ? 0 : ((n * width + 63) / 64 + 1) * 8
    }

    /// Bits needed for `v`: 0 for 0.
    @inline(__always)
    package static func width(_ v: UInt64) -> Int { 64 - v.leadingZeroBitCount }

    /// Appends `values` packed at `width` bits to `out`.
    package static func pack(_ values: UnsafeBufferPointer<UInt64>, width: Int, into out: inout [UInt8]) {
        guard width > 0 else { return }
        let start = out.count
        let size = bytes(values.count, width: width)
        out.append(contentsOf: repeatElement(0, count: size))
        out.withUnsafeMutableBytes { raw in
            // SAFETY: `raw` spans `out`; writes stay in [start, start + size), which holds every
            // word the values' bits touch (size counts whole words plus one spare).
            var word: UInt64 = 0
            var used = 0
            var pos = start
            for v in values {
                let x = width == 64 ? v : v & ((1 << UInt64(width)) - 1)
                word |= x << UInt64(used)
                used += width
                if used >= 64 {
                    raw.storeBytes(of: word.littleEndian, toByteOffset: pos, as: UInt64.self)
                    pos += 8
                    used -= 64
                    word = used == 0 ? 0 : x >> UInt64(width - used)
                }
            }
            if used > 0 { raw.storeBytes(of: word.littleEndian, toByteOffset: pos, as: UInt64.self) }
        }
    }

    /// Unpacks values `rows` of a packed run at `data` into `out[0..<rows.count]`, each added to
    /// `reference` with wrapping arithmetic (so damaged bytes never trap).
    ///
    /// The caller guarantees `data` holds `bytes(total, width)` bytes with `rows` inside `0..<total`.
    @inline(__always)
    package static func unpack(_ data: UnsafeRawBufferPointer, width: Int, rows: Range<Int>, reference: UInt64,
                       into out: UnsafeMutablePointer<UInt64>) {
        let n = rows.count
        if width == 0 {
            out.update(repeating: reference, count: n)
            return
        }
        let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) - 1
        assert(rows.lowerBound >= 0 && bytes(rows.upperBound, width: width) <= data.count,
               "packed run of \(data.count) bytes is shorter than rows \(rows) at width \(width)")
        // SAFETY: every load reads 8 bytes at byte offset (bit >> 3) for a bit inside the packed
        // run; the run's spare trailing word keeps that load inside `data`.
        guard let base = data.baseAddress else { return }
        var bit = rows.lowerBound * width
        if width <= 56 {
            for i in 0..<n {
                let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                out[i] = reference &+ ((w >> UInt64(bit & 7)) & mask)
                bit += width
            }
        } else {
            for i in 0..<n {
                let word = bit >> 6, shift = UInt64(bit & 63)
                let lo = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self))
                var v = lo >> shift
                if shift > 0 && Int(shift) + width > 64 {
                    let hi = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: word * 8 + 8, as: UInt64.self))
                    v |= hi << (64 - shift)
                }
                out[i] = reference &+ (v & mask)
                bit += width
            }
        }
    }

    /// One packed value (no reference added).
    @inline(__always)
    package static func value(_ data: UnsafeRawBufferPointer, width: Int, row: Int) -> UInt64 {
        var v: UInt64 = 0
        // SAFETY: the one row row..<row + 1 makes unpack write only `v`, whose pointer lives for this call.
        unpack(data, width: width, rows: row..<(row + 1), reference: 0, into: &v)
        return v
    }
}
