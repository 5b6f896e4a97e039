import QuakeFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input file (or stdin), decompressed on the fly.
///
/// Compression is detected from the first bytes (gzip `1F 8B`, zstd `28 B5 2F FD`), not from
/// the file name. ``next()`` yields chunks of decompressed bytes.
package final class FeedInput {
    /// The name used in messages: the path, or `-` for stdin.
    package let name: String
    private let fd: Int32
    private let ownsFD: Bool
    private var codec: Codec = .plain
    private var peeked: [UInt8]?
    private var finished = false
    /// Raw bytes read from the file so far.
    package private(set) var bytesRead = 0
    /// Size of the file on disk, when known.
    package let fileSize: Int?

    private enum Codec {
        case plain
        case gzip(GzipDecoder)
        case zstd(ZstdStreamDecoder)
    }

    package static let chunkSize = 1 << 20

    /// Opens `path`; `-` reads standard input.
    package init(path: String) throws(IngestError) {
        name = path
        if path == "-" {
            fd = 0
            ownsFD = false
            fileSize = nil
        } else {
            let f = try FileIO.openForReading(path)
            fd = f
            ownsFD = true
            fileSize = try? FileIO.size(of: f, path: path)
        }
        let first = try readRaw()
        peeked = first
        if let b = first, b.count >= 2, b[0] == 0x1F, b[1] == 0x8B {
            codec = .gzip(GzipDecoder(pull: { [unowned self] () throws(IngestError) -> [UInt8]? in try self.takeRaw() }))
        } else if let b = first, b.count >= 4, b[0] == 0x28, b[1] == 0xB5, b[2] == 0x2F, b[3] == 0xFD {
            codec = .zstd(ZstdStreamDecoder())
        }
    }

    /// Opens bytes `range` of a plain (uncompressed) file, for one worker of a split parse.
    package init(path: String, range: Range<Int>) throws(IngestError) {
        name = path
        fd = try FileIO.openForReading(path)
        ownsFD = true
        fileSize = range.count
        window = range
    }

    /// The byte range a split-parse worker reads (nil: the whole stream).
    private var window: Range<Int>?

    deinit { if ownsFD { FileIO.close(fd) } }

    /// The compression detected: "gzip", "zstd" or "none".
    package var compression: String {
        switch codec {
        case .plain: return "none"
        case .gzip: return "gzip"
        case .zstd: return "zstd"
        }
    }

    private func readRaw() throws(IngestError) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: FeedInput.chunkSize)
        var filled = 0
        if let w = window {
            let left = w.upperBound - (w.lowerBound + bytesRead)
            if left <= 0 { return nil }
            if left < buf.count { buf.removeLast(buf.count - left) }
        }
        while filled < buf.count {
            let at = window.map { $0.lowerBound + bytesRead + filled }
            let r = buf.withUnsafeMutableBytes { b -> Result<Int, QuakeError> in
                // SAFETY: filled < b.count, so the destination stays inside buf.
                guard let base = b.baseAddress else { return .success(0) }
                return Result { () throws(QuakeError) in
                    try FileIO.read(fd, into: base + filled, count: b.count - filled, at: at, path: name)
                }
            }
            let n = try r.get()
            if n == 0 { break }
            filled += n
        }
        if filled == 0 { return nil }
        buf.removeLast(buf.count - filled)
        bytesRead += filled
        return buf
    }

    private func takeRaw() throws(IngestError) -> [UInt8]? {
        if let p = peeked { peeked = nil; return p }
        return try readRaw()
    }

    /// The next chunk of decompressed bytes, or nil at the end.
    package func next() throws(IngestError) -> [UInt8]? {
        if finished { return nil }
        do throws(IngestError) {
            switch codec {
            case .plain:
                let c = try takeRaw()
                if c == nil { finished = true }
                return c
            case .gzip(let g):
                let c = try g.read()
                if c == nil { finished = true }
                return c
            case .zstd(let z):
                var out: [UInt8] = []
                while out.count < FeedInput.chunkSize / 2 {
                    guard let raw = try takeRaw() else {
                        try z.finish()
                        finished = true
                        break
                    }
                    let r = raw.withUnsafeBytes { p in Result { () throws(IngestError) in try z.decode(p, into: &out) } }
                    try r.get()
                }
                return out.isEmpty && finished ? nil : out
            }
        } catch {
            if error.kind == .decompression { throw error.at(name) }
            throw error
        }
    }
}
