import QuakeFormat
import QuakeSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input file (or stdin), decompressed on the fly.
///
/// Compression is detected from the first bytes (gzip `1F 8B`, zstd `28 B5 2F FD`), not from
/// the file name. ``next()`` yields chunks of decompressed bytes; a compressed file is
/// decompressed on a thread of its own, a few chunks ahead of the parser (``ReadAhead``).
/// Used by one thread at a time.
package final class FeedInput {
    /// The name used in messages: the path, or `-` for stdin.
    package let name: String
    /// Size of the file on disk, when known.
    package let fileSize: Int?
    /// Raw bytes read from the file for the chunks handed out so far.
    package private(set) var bytesRead = 0
    /// The compression detected: "gzip", "zstd" or "none".
    package let compression: String

    /// The file and its decompressor: this thread's until a read-ahead thread takes it over.
    private let source: Exclusive<Source>
    private var ahead: ReadAhead?
    private var finished = false

    package static let chunkSize = 1 << 20

    /// Opens `path`; `-` reads standard input.
    package init(path: String) throws(QuakeError) {
        name = path
        if path == "-" {
            source = Exclusive(Source(name: path, fd: 0, ownsFD: false, window: nil))
            fileSize = nil
        } else {
            let fd = try FileIO.openForReading(path)
            source = Exclusive(Source(name: path, fd: fd, ownsFD: true, window: nil))
            fileSize = try? FileIO.size(of: fd, path: path)
        }
        compression = try source.locked { (s) throws(QuakeError) in try s.detect() }
    }

    /// Opens bytes `range` of a plain (uncompressed) file, for one worker of a split parse.
    package init(path: String, range: Range<Int>) throws(QuakeError) {
        name = path
        source = Exclusive(Source(name: path, fd: try FileIO.openForReading(path), ownsFD: true, window: range))
        fileSize = range.count
        compression = "none"
    }

    deinit { ahead?.close() }

    /// The next chunk of decompressed bytes, or nil at the end.
    package func next() throws(QuakeError) -> [UInt8]? {
        if finished { return nil }
        guard compression != "none" else {
            let (chunk, raw) = try source.locked { (s) throws(QuakeError) in (try s.next(), s.rawRead) }
            bytesRead = raw
            if chunk == nil { finished = true }
            return chunk
        }
        if ahead == nil {
            // from here on the read-ahead thread alone reads `source` (a chunk at a time)
            let source = source
            ahead = ReadAhead { () throws(QuakeError) -> ([UInt8], Int)? in
                try source.locked { (s) throws(QuakeError) -> ([UInt8], Int)? in
                    guard let chunk = try s.next() else { return nil }
                    return (chunk, s.rawRead)
                }
            }
        }
        switch ahead!.take() {
        case .chunk(let chunk, let raw):
            bytesRead = raw
            return chunk
        case .end:
            finished = true
            return nil
        case .failed(let error):
            finished = true
            throw error
        }
    }
}

/// The file descriptor and the decompressor behind a ``FeedInput``: used by the parsing
/// thread, or (for compressed input) by the read-ahead thread alone once it starts; always
/// through the ``Exclusive`` that holds it.
private final class Source {
    let name: String
    private let fd: Int32
    private let ownsFD: Bool
    /// The byte range a split-parse worker reads (nil: the whole stream).
    private let window: Range<Int>?
    private var codec: Codec = .plain
    private var peeked: [UInt8]?
    private var finished = false
    /// Raw bytes read so far.
    private(set) var rawRead = 0

    private enum Codec {
        case plain
        case gzip(GzipDecoder)
        case zstd(ZstdStreamDecoder)
    }

    init(name: String, fd: Int32, ownsFD: Bool, window: Range<Int>?) {
        self.name = name
        self.fd = fd
        self.ownsFD = ownsFD
        self.window = window
    }

    deinit { if ownsFD { FileIO.close(fd) } }

    /// Reads the first chunk and picks the decompressor from its magic bytes.
    func detect() throws(QuakeError) -> String {
        let first = try readRaw()
        peeked = first
        if let bytes = first, bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
            codec = .gzip(GzipDecoder(pull: { [unowned self] () throws(QuakeError) -> [UInt8]? in
                try self.takeRaw()
            }))
            return "gzip"
        } else if let bytes = first, bytes.count >= 4, bytes[0] == 0x28, bytes[1] == 0xB5, bytes[2] == 0x2F,
                  bytes[3] == 0xFD {
            codec = .zstd(ZstdStreamDecoder())
            return "zstd"
        }
        return "none"
    }

    private func readRaw() throws(QuakeError) -> [UInt8]? {
        var want = FeedInput.chunkSize
        if let window {
            let left = window.upperBound - (window.lowerBound + rawRead)
            if left <= 0 { return nil }
            want = min(want, left)
        }
        var failure: QuakeError?
        // filled by read(2) straight away: no zeroing of a megabyte per chunk first
        // SAFETY: count < want == buffer.count inside the loop, so each read lands inside the capacity
        // (read(2) writes at most want - count bytes); only the bytes read are counted as
        // initialized.
        let buf = [UInt8](unsafeUninitializedCapacity: want) { buffer, count in
            count = 0
            assert(buffer.count >= want)
            guard let base = buffer.baseAddress else { return }
            while count < want {
                let at = window.map { $0.lowerBound + rawRead + count }
                do throws(QuakeError) {
                    let got = try FileIO.read(fd, into: base + count, count: want - count, at: at, path: name)
                    if got == 0 { break }
                    count += got
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        if buf.isEmpty { return nil }
        rawRead += buf.count
        return buf
    }

    private func takeRaw() throws(QuakeError) -> [UInt8]? {
        if let first = peeked {
            peeked = nil
            return first
        }
        return try readRaw()
    }

    /// The next chunk of decompressed bytes, or nil at the end.
    func next() throws(QuakeError) -> [UInt8]? {
        if finished { return nil }
        do throws(QuakeError) {
            switch codec {
            case .plain:
                let chunk = try takeRaw()
                if chunk == nil { finished = true }
                return chunk
            case .gzip(let gzip):
                let chunk = try gzip.read()
                if chunk == nil { finished = true }
                return chunk
            case .zstd(let zstd):
                var out: [UInt8] = []
                while out.count < FeedInput.chunkSize / 2 {
                    guard let raw = try takeRaw() else {
                        try zstd.finish()
                        finished = true
                        break
                    }
                    // SAFETY: `bytes` is `raw`'s storage for the closure's span; decode only reads it.
                    let decoded = raw.withUnsafeBytes { bytes in
                        Result { () throws(QuakeError) in try zstd.decode(bytes, into: &out) }
                    }
                    try decoded.get()
                }
                return out.isEmpty && finished ? nil : out
            }
        } catch {
            if error.kind == .decompression { throw error.at(name) }
            throw error
        }
    }
}
