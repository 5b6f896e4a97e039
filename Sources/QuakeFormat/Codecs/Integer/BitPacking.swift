/// Fixed-width bit packing of unsigned integers, little-endian, with random access by row.
///
/// Widths run from 0 (every value is the reference) to 64 bits. A packed run of `n` values is
/// `bytes(n, width)` long: its bits rounded up to whole 8-byte words, plus one spare word so a
/// reader can always load 8 bytes at any value's byte offset. Runs are read through
/// ``PackedRun``.
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
                let masked = width == 64 ? v : v & ((1 << UInt64(width)) - 1)
                word |= masked << UInt64(used)
                used += width
                if used >= 64 {
                    raw.storeBytes(of: word.littleEndian, toByteOffset: pos, as: UInt64.self)
                    pos += 8
                    used -= 64
                    word = used == 0 ? 0 : masked >> UInt64(width - used)
                }
            }
            if used > 0 { raw.storeBytes(of: word.littleEndian, toByteOffset: pos, as: UInt64.self) }
        }
    }
}
