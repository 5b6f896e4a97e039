import CZlib

/// A streaming gzip compressor over zlib's deflate: the server compresses a response body piece
/// by piece, so memory holds one piece, never the whole answer.
package final class GzipStream {
    // SAFETY: `stream` is allocated once, initialised by deflateInit2_ and released by deflateEnd in
    // deinit; zlib keeps pointers into it, so it never moves (a heap allocation, not a Swift value).
    private let stream: UnsafeMutablePointer<z_stream>
    private var ended = false

    /// A compressor at `level` (1 fastest ... 9 smallest; 6 is zlib's default).
    package init?(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 window bits + 16: a gzip header and trailer rather than zlib's
        let rc = deflateInit2_(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                               ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            // SAFETY: deflateInit2_ failed, so zlib holds no state; the trivial z_stream needs no deinitialise.
            stream.deallocate()
            return nil
        }
    }

    deinit {
        // SAFETY: deinit runs once: deflateEnd frees zlib's state before the z_stream is deinitialised and freed.
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input`; with `final`, ends the gzip member. Returns what deflate produced
    /// (possibly nothing until enough input has arrived).
    package func compress(_ input: [UInt8], final: Bool = false) -> [UInt8] {
        guard !ended else { return [] }
        // zlib counts in 32 bits: feed larger inputs in pieces
        if input.count > 1 << 30 {
            var out: [UInt8] = []
            var at = 0
            while at < input.count {
                let end = Swift.min(input.count, at + (1 << 30))
                out += compress(Array(input[at..<end]), final: final && end == input.count)
                at = end
            }
            return out
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(1 << 14, input.count / 2 + 64))
        var status = Z_OK
        input.withUnsafeBufferPointer { inp in
            // SAFETY: zlib reads `avail_in` bytes from `next_in`, which `inp` keeps alive for this
            // closure; it never writes through it (the cast drops a const zlib's API omits).
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            stream.pointee.avail_in = UInt32(inp.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { o in
                    // SAFETY: deflate writes at most `avail_out` bytes into `o`, alive in this closure.
                    stream.pointee.next_out = o.baseAddress
                    stream.pointee.avail_out = UInt32(o.count)
                    status = deflate(stream, final ? Z_FINISH : Z_NO_FLUSH)
                    out.append(contentsOf: o[0..<(o.count - Int(stream.pointee.avail_out))])
                }
            } while status == Z_OK && (stream.pointee.avail_out == 0 || final)
            stream.pointee.next_in = nil
        }
        if final { ended = true }
        return out
    }
}
