/// A read-only view of a chunk's or frame's bytes: a base address and a count, through which
/// the codecs read every header, table and payload of a chunk (see ``PackedRun`` for bit-packed
/// runs). The pointer arithmetic on chunk bytes lives here and in ``PackedRun``, nowhere else.
///
/// Invariants, stated once for every member below:
/// - The view does not own its bytes. Whoever makes it keeps the owner (the ``MappedFile`` whose
///   mapping holds the chunk, or the array whose `withUnsafeBytes` closure it was made in) alive
///   and unchanged for as long as the view, or any view or run cut from it, is used.
/// - `base` points at `count` readable bytes (`base` may be nil only when `count` is 0).
/// - A view cut from another (``slice(_:)``, ``slice(from:)``, ``subrange(_:)``) lies inside it.
///
/// Bounds: ``slice(_:)`` and ``slice(from:)`` always check, and throw ``QuakeError/corrupt(_:)``;
/// they are for ranges read from the input. ``load(_:at:)``, ``byte(at:)`` and ``subrange(_:)``
/// only `assert` (debug, test and fuzz builds check; release builds do not): their callers must
/// already have checked any bound that depends on the input, as the parsers do once per chunk.
///
/// A plain struct of a pointer and an `Int`, with no reference counting, for the hot loops. Not
/// `Sendable`: a raw view says nothing of the owner's lifetime on another thread.
package struct ChunkBytes {
    let base: UnsafeRawPointer?
    /// Bytes in the view.
    package let count: Int

    /// A view of `raw`, whose owner the caller keeps alive for the view's life.
    @inline(__always)
    package init(_ raw: UnsafeRawBufferPointer) {
        // SAFETY: only the address and count are kept; the caller keeps the owner alive (the first invariant).
        base = raw.baseAddress
        count = raw.count
    }

    /// The empty view.
    package static var empty: ChunkBytes {
        // SAFETY: no address and no bytes: nothing is ever read through it.
        ChunkBytes(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    package var isEmpty: Bool { count == 0 }

    /// The same bytes as a buffer pointer, for zstd, checksums and copies (same lifetime rule).
    @inline(__always)
    package var raw: UnsafeRawBufferPointer {
        // SAFETY: base points at count bytes, or is nil with count 0 (the type's invariants).
        UnsafeRawBufferPointer(start: base, count: count)
    }

    /// The little-endian `T` at byte `offset`, at any alignment.
    ///
    /// The caller has checked `offset + MemoryLayout<T>.size <= count` against the input; this
    /// only asserts it.
    @inline(__always)
    package func load<T: FixedWidthInteger & BitwiseCopyable>(_: T.Type = T.self, at offset: Int) -> T {
        assert(offset >= 0 && offset <= count - MemoryLayout<T>.size,
               "\(MemoryLayout<T>.size)-byte load at \(offset) outside \(count) bytes")
        // SAFETY: the bytes offset..<offset + size(T) lie inside the view (asserted; checked by the
        // caller), so base is non-nil; loadUnaligned has no alignment requirement.
        return T(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The byte at `offset` (`0..<count`, asserted).
    @inline(__always)
    package func byte(at offset: Int) -> UInt8 {
        assert(offset >= 0 && offset < count, "byte \(offset) outside \(count) bytes")
        // SAFETY: offset lies in 0..<count (asserted; checked by the caller), so base is non-nil.
        return base.unsafelyUnwrapped.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// The bytes of `r`, checked: a range outside `0..<count` throws, in every build.
    @inline(__always)
    package func slice(_ r: Range<Int>) throws(QuakeError) -> ChunkBytes {
        guard r.lowerBound >= 0, r.upperBound <= count else {
            throw .corrupt("bytes \(r.lowerBound)..<\(r.upperBound) outside a block of \(count)")
        }
        return ChunkBytes(base: base, offset: r.lowerBound, count: r.count)
    }

    /// The bytes from `offset` to the end, checked as ``slice(_:)``.
    @inline(__always)
    package func slice(from offset: Int) throws(QuakeError) -> ChunkBytes {
        try slice(offset..<Swift.max(offset, count))
    }

    /// The bytes of `r`, for ranges already checked (a miniblock's run, a frame the table checked):
    /// only asserted.
    @inline(__always)
    package func subrange(_ r: Range<Int>) -> ChunkBytes {
        assert(r.lowerBound >= 0 && r.upperBound <= count, "bytes \(r) outside \(count) bytes")
        return ChunkBytes(base: base, offset: r.lowerBound, count: r.count)
    }

    /// Where `inner`, a view cut from this one, starts in it.
    package func offset(of inner: ChunkBytes) -> Int {
        // SAFETY: only the two addresses are compared, as numbers; no memory is read.
        let outerStart = Int(bitPattern: base), innerStart = Int(bitPattern: inner.base)
        assert(inner.isEmpty || (innerStart >= outerStart && innerStart - outerStart + inner.count <= count),
               "a view from another block")
        return innerStart - outerStart
    }

    /// `count` bytes at `offset` from `base`, a range the caller has checked lies in its view.
    @inline(__always)
    private init(base: UnsafeRawPointer?, offset: Int, count: Int) {
        // SAFETY: offset..<offset + count lies in the view `base` came from (both callers check),
        // so base + offset stays in (or one past) its bytes; a nil base (an empty view) stays nil.
        self.base = base.map { $0 + offset }
        self.count = count
    }
}
