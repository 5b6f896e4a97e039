/// The null rows of a chunk as a bitmap, one bit a row, set for null.
///
/// A chunk starts with `u8 flags` (``hasNulls``, ``allNull``) and `u32 rows`; the bitmap follows
/// only when some but not all rows are null.
package enum NullBitmap {
    package static let hasNulls: UInt8 = 1
    package static let allNull: UInt8 = 2

    /// Writes flags, row count and bitmap for `isNull` over `n` rows; returns the null count.
    package static func write(_ n: Int, into w: inout ByteWriter, extraFlags: UInt8 = 0, isNull: (Int) -> Bool) -> Int {
        var bitmap = [UInt8](repeating: 0, count: (n + 7) / 8)
        var nulls = 0
        for i in 0..<n where isNull(i) {
            bitmap[i >> 3] |= 1 << UInt8(i & 7)
            nulls += 1
        }
        let flags: UInt8 = nulls == 0 ? 0 : nulls == n ? allNull : hasNulls
        w.u8(flags | extraFlags)
        w.u32(UInt32(n))
        if flags == hasNulls { w.bytes.append(contentsOf: bitmap) }
        return nulls
    }

    /// Reads what ``write`` wrote: the flags, and the bitmap (nil when no row or every row is null).
    /// The bitmap borrows the reader's bytes (the caller's chunk), kept alive while it is read.
    package static func read(_ r: inout ByteReader, count: Int)
        throws(QuakeError) -> (flags: UInt8, bitmap: ChunkBytes?) {
        let flags = try r.u8()
        let stored = Int(try r.u32())
        guard stored == count else { throw .corrupt("chunk holds \(stored) rows, directory says \(count)") }
        guard flags & hasNulls != 0 else { return (flags, nil) }
        return (flags, try r.take((stored + 7) / 8))
    }

    @inline(__always)
    package static func isNull(_ bitmap: ChunkBytes, _ i: Int) -> Bool {
        // the bitmap holds (count + 7) / 8 bytes and callers pass rows i < count, so i >> 3 is inside
        bitmap.byte(at: i >> 3) & (1 << UInt8(i & 7)) != 0
    }
}
