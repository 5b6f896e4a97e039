/// One bit-packed run (``BitPacking``) of a chunk: values of `width` bits (0 to 64), little-endian,
/// value `i` at bits `i * width ..< (i + 1) * width`. A run of `n` values is
/// `BitPacking.bytes(n, width: width)` bytes: its bits rounded up to whole 8-byte words, plus one
/// spare word, so an 8-byte load at any value's byte offset stays inside the run.
///
/// Invariants, stated once for every member below:
/// - As ``ChunkBytes``, which a run is cut from: the caller keeps the bytes' owner alive for the
///   run's life, and `base` points at `byteCount` readable bytes (nil only when `byteCount` is 0).
/// - Rows are below the run's value count `n`, with `BitPacking.bytes(n, width) <= byteCount`.
///   The parser checks that once per run against the input (``holds(_:)``); the reads here only
///   `assert` their loads lie inside, so debug, test and fuzz builds check every load and release
///   builds none.
///
/// A plain struct (a pointer and two `Int`s) for the decode and range-select loops; not
/// `Sendable`, as ``ChunkBytes``.
package struct PackedRun {
    private let base: UnsafeRawPointer?
    /// Bytes of the run, padding included.
    package let byteCount: Int
    /// Bits per value, 0 to 64.
    package let width: Int

    /// The run packed at `width` bits in `bytes`.
    @inline(__always)
    package init(_ bytes: ChunkBytes, width: Int) {
        assert(width >= 0 && width <= 64, "packed width \(width)")
        base = bytes.base
        byteCount = bytes.count
        self.width = width
    }

    /// Whether the run is long enough for `n` values (padding included): what a parser checks.
    package func holds(_ n: Int) -> Bool { n >= 0 && BitPacking.bytes(n, width: width) <= byteCount }

    /// The low `width` bits set.
    @inline(__always)
    package var mask: UInt64 { width >= 64 ? ~0 : (1 &<< UInt64(width)) &- 1 }

    /// The run's bits from bit `bit` on, in the low bits: the 8 bytes at byte `bit >> 3` shifted
    /// right by `bit & 7`, so at least 57 bits are valid. With `bit` a value's first bit (a value of
    /// at most 56 bits), `word(atBit: bit) & mask` is that value.
    @inline(__always)
    package func word(atBit bit: Int) -> UInt64 {
        assert(bit >= 0 && bit &>> 3 <= byteCount &- 8, "8-byte load at bit \(bit) outside \(byteCount) bytes")
        // SAFETY: the 8 bytes at bit >> 3 lie in the run (asserted; a value's byte offset always
        // does, by the spare word), so base is non-nil; loadUnaligned has no alignment requirement.
        let word = base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: bit &>> 3, as: UInt64.self)
        return UInt64(littleEndian: word) &>> UInt64(bit & 7)
    }

    /// The 8-byte word `index` of the run (bytes `8 * index ..< 8 * index + 8`).
    @inline(__always)
    private func word(at index: Int) -> UInt64 {
        assert(index >= 0 && 8 &* index <= byteCount &- 8, "word \(index) outside \(byteCount) bytes")
        // SAFETY: the word lies in the run (asserted; see wide(atBit:)), so base is non-nil;
        // loadUnaligned has no alignment requirement.
        return UInt64(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: 8 &* index, as: UInt64.self))
    }

    /// The 64 bits from `bit` on, read as one or two whole words: for values of 57 to 64 bits.
    @inline(__always)
    private func wide(atBit bit: Int) -> UInt64 {
        let word = bit >> 6, shift = UInt64(bit & 63)
        var value = self.word(at: word) >> shift
        // the second word only when the value crosses into it: then it lies inside the run's bits
        if shift > 0 && Int(shift) + width > 64 { value |= self.word(at: word + 1) << (64 - shift) }
        return value
    }

    /// Value `row` (no reference added).
    @inline(__always)
    package func value(at row: Int) -> UInt64 {
        if width == 0 { return 0 }
        let bit = row &* width
        return (width <= 56 ? word(atBit: bit) : wide(atBit: bit)) & mask
    }

    /// Unpacks values `rows` into `out[0..<rows.count]`, each added to `reference` with wrapping
    /// arithmetic (so damaged bytes never trap). `out` has room for `rows.count` values.
    @inline(__always)
    package func unpack(_ rows: Range<Int>, reference: UInt64, into out: UnsafeMutablePointer<UInt64>) {
        let count = rows.count
        if width == 0 {
            out.update(repeating: reference, count: count)
            return
        }
        let mask = self.mask, width = self.width
        assert(rows.lowerBound >= 0 && holds(rows.upperBound),
               "packed run of \(byteCount) bytes is shorter than rows \(rows) at width \(width)")
        // a run of width > 0 holds at least two words; an empty one (damage the caller missed) reads nothing
        guard base != nil else { return }
        var bit = rows.lowerBound * width
        // SAFETY (both loops): out has room for count values (the caller's contract), and i < count.
        if width <= 56 {
            for i in 0..<count {
                out[i] = reference &+ (word(atBit: bit) & mask)
                bit += width
            }
        } else {
            for i in 0..<count {
                out[i] = reference &+ (wide(atBit: bit) & mask)
                bit += width
            }
        }
    }
}
