import CZlib

/// A streaming gzip (RFC 1952) decoder over zlib's inflate.
///
/// Pull-based: ``read(minimum:)`` inflates until at least the requested number of bytes is
/// ready, so memory holds zlib's 32 KiB window, one compressed chunk and one output chunk.
/// Concatenated members (`cat a.gz b.gz`) decode as one stream, as gzip(1) does. zlib checks
/// every member's CRC-32 and length; truncated or damaged input throws.
package final class GzipDecoder {
    private let pull: () throws(QuakeError) -> [UInt8]?
    // SAFETY: `stream` is allocated once, initialised by inflateInit2_ and released by inflateEnd
    // in deinit; zlib keeps pointers into it, so it never moves (a heap allocation, not a value).
    private let stream: UnsafeMutablePointer<z_stream>
    private let ready: Bool
    /// The compressed chunk zlib is reading, and how far it has read.
    private var input: [UInt8] = []
    private var inPos = 0
    private var eof = false
    /// A member has begun and not yet ended.
    private var inMember = false
    private var done = false

    /// `pull` returns the next chunk of compressed bytes, or nil at end of input.
    package init(pull: @escaping () throws(QuakeError) -> [UInt8]?) {
        self.pull = pull
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 window bits + 16: a gzip header and trailer, not zlib's
        ready = inflateInit2_(stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        // SAFETY: deinit runs once: inflateEnd frees zlib's state before the z_stream is deinitialised and freed.
        if ready { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Returns the next chunk of decoded bytes (at least `minimum` unless the stream ends first),
    /// or nil at the end of the stream.
    package func read(minimum: Int = 1 << 20) throws(QuakeError) -> [UInt8]? {
        guard ready else { throw .decompression("zlib could not start an inflate stream (out of memory?)") }
        if done { return nil }
        let want = Swift.max(1, minimum)
        var out = [UInt8](repeating: 0, count: Swift.max(want, 1 << 16))
        var filled = 0
        while filled < want {
            if inPos == input.count && !eof {
                if let next = try pull(), !next.isEmpty {
                    input = next
                    inPos = 0
                } else {
                    eof = true
                }
            }
            if inPos == input.count && eof {
                if inMember { throw .decompression("truncated gzip stream") }
                done = true
                break
            }
            let before = (inPos, filled)
            let rc = inflateOnce(into: &out, filled: &filled)
            if inPos > before.0 { inMember = true }
            switch rc {
            case Z_STREAM_END:
                // a member ended (its CRC and length checked): another may follow
                inMember = false
                inflateReset(stream)
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // no progress: zlib wants more input (fetched above) or more room (the chunk is full)
                if inPos == before.0 && filled == before.1 && filled == out.count { return Array(out[0..<filled]) }
            case Z_DATA_ERROR:
                let why = stream.pointee.msg.map { String(cString: $0) } ?? "bad data"
                throw .decompression("corrupt gzip stream (\(why))")
            case Z_MEM_ERROR:
                throw .decompression("zlib ran out of memory inflating a gzip stream")
            default:
                throw .decompression("corrupt gzip stream (zlib status \(rc))")
            }
            if filled == out.count { break }
        }
        if filled == 0 { return done ? nil : [] }
        out.removeLast(out.count - filled)
        return out
    }

    /// One inflate call from `input` at `inPos` into `out` at `filled`, moving both past what it
    /// used; returns zlib's status.
    private func inflateOnce(into out: inout [UInt8], filled: inout Int) -> Int32 {
        input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                assert(inPos < inp.count && filled < o.count, "inflate called with no input or no room")
                // SAFETY: zlib reads `avail_in` bytes from `next_in` (inside `inp`, alive in this
                // closure, never written: the cast drops a const zlib's API omits) and writes at
                // most `avail_out` bytes at `next_out` (inside `o`).
                stream.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress! + inPos)
                stream.pointee.avail_in = UInt32(Swift.min(inp.count - inPos, Int(UInt32.max)))
                stream.pointee.next_out = o.baseAddress! + filled
                stream.pointee.avail_out = UInt32(Swift.min(o.count - filled, Int(UInt32.max)))
                let availIn = Int(stream.pointee.avail_in), availOut = Int(stream.pointee.avail_out)
                let rc = inflate(stream, Z_NO_FLUSH)
                inPos += availIn - Int(stream.pointee.avail_in)
                filled += availOut - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                return rc
            }
        }
    }
}
