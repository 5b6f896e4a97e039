#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered output to a file descriptor (stdout or a file), flushed in 1 MiB writes.
public final class OutputSink {
    private let fd: Int32
    private let owns: Bool
    var buffer: [UInt8] = []
    private var compressor: Compressor = .none
    private var finished = false

    /// Compression applied to what is written to a file.
    public enum Compression: String, Sendable, CaseIterable { case none, gz, zst }
    private enum Compressor {
        case none
        case gzip(GzipEncoder)
        case zstd(ZstdStreamEncoder)
    }

    /// Standard output.
    public init() { fd = 1; owns = false; buffer.reserveCapacity(1 << 20) }

    /// A sink that keeps what is written in memory (``captured``), for output that must be
    /// reshaped before it is printed.
    public init(capturing: Void) { fd = -1; owns = false }

    /// What a capturing sink has received, once flushed.
    public private(set) var captured: [UInt8] = []

    /// A new file at `path` (truncated).
    public init(path: String, compression: Compression = .none) throws(StoreError) {
        let f = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        guard f >= 0 else { throw .io("\(path): \(FileIO.errorText())") }
        fd = f
        owns = true
        buffer.reserveCapacity(1 << 20)
        switch compression {
        case .none: compressor = .none
        case .gz: compressor = .gzip(GzipEncoder())
        case .zst: compressor = .zstd(ZstdStreamEncoder())
        }
    }

    deinit {
        close()
    }

    /// Flushes, ends the compressed stream and closes the file.
    public func close() {
        if finished { return }
        flush()
        switch compressor {
        case .none: break
        case .gzip(let g): writeAll(g.finish())
        case .zstd(let z): writeAll(z.compress([], end: true))
        }
        finished = true
        if owns { Glibc.close(fd) }
    }

    @inline(__always)
    func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    public func write(_ s: String) { append(s.utf8) }

    func maybeFlush() { if buffer.count >= 1 << 20 { flush() } }

    public func flush() {
        switch compressor {
        case .none: writeAll(buffer)
        case .gzip(let g): writeAll(g.compress(buffer))
        case .zstd(let z): writeAll(z.compress(buffer))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8]) {
        if fd < 0 { captured.append(contentsOf: bytes); return }
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { if errno == EINTR { continue }; break }
            off += n
        }
    }
}
