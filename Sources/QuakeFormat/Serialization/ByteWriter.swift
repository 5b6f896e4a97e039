/// Appends little-endian integers and raw arrays to a byte buffer.
package struct ByteWriter {
    package var bytes: [UInt8] = []
    package init() {}

    @inline(__always) package mutating func u8(_ v: UInt8) { bytes.append(v) }

    @inline(__always) package mutating func u32(_ v: UInt32) {
        // SAFETY: the closure copies the 4 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func u64(_ v: UInt64) {
        // SAFETY: the closure copies the 8 bytes of a local value; the pointer does not escape it.
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }

    package mutating func raw<T: BitwiseCopyable>(_ a: [T]) {
        // SAFETY: the closure copies the array's count * stride bytes; the pointer does not escape it.
        a.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    package mutating func blob(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes.append(contentsOf: b)
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with the array's bytes, keeping `body`'s typed error.
    package func withStoreBytes<T>(_ body: (UnsafeRawBufferPointer) throws(QuakeError) -> T) throws(QuakeError) -> T {
        // SAFETY: `raw` is valid only inside this closure; `body` must not keep it (callers decode and copy).
        let result = withUnsafeBytes { raw in Result { () throws(QuakeError) -> T in try body(raw) } }
        return try result.get()
    }
}

/// Reads what ``ByteWriter`` wrote, with bounds checks that report corruption instead of trapping.
package struct ByteReader {
    package let bytes: UnsafeRawBufferPointer
    package var pos: Int

    package init(_ bytes: UnsafeRawBufferPointer, at pos: Int = 0) {
        self.bytes = bytes
        self.pos = pos
    }

    package var remaining: Int { bytes.count - pos }

    @inline(__always) package mutating func need(_ n: Int) throws(QuakeError) {
        guard n >= 0, pos + n <= bytes.count else { throw .corrupt("record runs past the end of its block") }
    }

    @inline(__always) package mutating func u8() throws(QuakeError) -> UInt8 {
        try need(1)
        defer { pos += 1 }
        // SAFETY: need(1) checked pos + 1 <= bytes.count just above.
        return bytes[pos]
    }

    @inline(__always) package mutating func u32() throws(QuakeError) -> UInt32 {
        try need(4)
        defer { pos += 4 }
        // SAFETY: need(4) checked pos + 4 <= bytes.count; loadUnaligned has no alignment requirement.
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: pos, as: UInt32.self))
    }

    @inline(__always) package mutating func u64() throws(QuakeError) -> UInt64 {
        try need(8)
        defer { pos += 8 }
        // SAFETY: need(8) checked pos + 8 <= bytes.count; loadUnaligned has no alignment requirement.
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: pos, as: UInt64.self))
    }

    @inline(__always) package mutating func i64() throws(QuakeError) -> Int64 { Int64(bitPattern: try u64()) }

    package mutating func raw<T: BitwiseCopyable>(_ count: Int, as: T.Type) throws(QuakeError) -> [T] {
        let byteCount = count * MemoryLayout<T>.stride
        try need(byteCount)
        let out = [T](uninitializedCount: count) { buf, initialized in
            // SAFETY: need(n) checked pos + n <= bytes.count; `buf` holds count elements, exactly n bytes.
            UnsafeMutableRawBufferPointer(buf)
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[pos..<(pos + byteCount)]))
            initialized = count
        }
        pos += byteCount
        return out
    }

    /// The next `n` bytes as a view (checked), the reader moved past them. The view borrows
    /// the reader's bytes: their owner must outlive it (see ``ChunkBytes``).
    package mutating func take(_ n: Int) throws(QuakeError) -> ChunkBytes {
        try need(n)
        defer { pos += n }
        return try ChunkBytes(bytes).slice(pos..<(pos + n))
    }

    /// The bytes from the position to the end as a view (checked); the reader does not move.
    package func rest() throws(QuakeError) -> ChunkBytes { try ChunkBytes(bytes).slice(from: pos) }

    package mutating func blob() throws(QuakeError) -> [UInt8] {
        let length = Int(try u32())
        return try raw(length, as: UInt8.self)
    }
}
