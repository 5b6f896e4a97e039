#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import QuakeFormat

/// Buffered output to standard output or to a file, flushed in 1 MiB writes through ``FileIO``.
///
/// Writers append to ``buffer`` without checking each write; the first failed write is kept
/// (``failure``), later output is dropped, and ``finish()`` throws it, naming the path (`stdout`
/// for standard output). ``check()`` lets a long writer stop early. A path sink opens its path through
/// ``OutputTarget``: a regular file is written under a temporary name and renamed into place only in
/// ``finish()``, so a failed or interrupted write leaves nothing under the final name, and a FIFO,
/// device or symlink is never replaced.
package final class OutputSink {
    private let fd: Int32
    /// The name errors use: the final path, or `stdout`.
    package let path: String
    /// The file, FIFO, device or descriptor a path sink writes to.
    private let target: OutputTarget?
    package var buffer: [UInt8] = []
    private var compressor: Compressor = .none
    private var finished = false
    /// The first write that failed; once set, nothing more is written.
    package private(set) var failure: QuakeError?

    /// Compression applied to what is written to a file.
    package enum Compression: String, Sendable, CaseIterable { case none, gz, zst }
    private enum Compressor {
        case none
        case gzip(GzipStream)
        case zstd(ZstdStreamEncoder)
    }

    /// Standard output. The CLI keeps one, so that all it prints stays in order.
    package init() {
        fd = 1
        path = "stdout"
        target = nil
        buffer.reserveCapacity(1 << 20)
    }

    /// A sink that keeps what is written in memory (``captured``), for output that must be
    /// reshaped before it is printed.
    package init(capturing: Void) {
        fd = -1
        path = "memory"
        target = nil
    }

    /// What a capturing sink has received, once flushed.
    package private(set) var captured: [UInt8] = []

    /// Everything a capturing sink holds, flushed or not, handed over and cleared: a server
    /// sends it as one piece of a streamed body.
    package func takeCaptured() -> [UInt8] {
        precondition(fd == -1, "takeCaptured() is for capturing sinks")
        var out = captured
        captured = []
        if out.isEmpty {
            swap(&out, &buffer)
        } else {
            out.append(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        return out
    }

    /// The output `path` names, opened by ``OutputTarget``: `-` is standard output, a symlink is
    /// followed, a FIFO or device is written in place, and a regular file is written under a
    /// temporary name beside it until ``finish()`` renames it into place.
    package init(path: String, compression: Compression = .none) throws(QuakeError) {
        let opened = try OutputTarget(path)
        target = opened
        fd = -2
        self.path = opened.path
        buffer.reserveCapacity(1 << 20)
        switch compression {
        case .none: compressor = .none
        case .gz:
            guard let stream = GzipStream(level: 6) else {
                opened.abandon()
                throw .io(path, "zlib could not start a deflate stream (out of memory?)")
            }
            compressor = .gzip(stream)
        case .zst: compressor = .zstd(ZstdStreamEncoder())
        }
    }

    deinit {
        // A file sink never finished (an error upstream) leaves nothing behind.
        if !finished { target?.abandon() }
    }

    /// Flushes, ends the compressed stream, and for a file syncs it and renames it into place.
    /// Throws the first write error, if any; after an error the temporary file is removed.
    package func finish() throws(QuakeError) {
        if finished {
            if let failure { throw failure }
            return
        }
        flush()
        switch compressor {
        case .none: break
        case .gzip(let gzip): writeAll(gzip.compress([], final: true))
        case .zstd(let zstd): writeAll(zstd.compress([], end: true))
        }
        finished = true
        guard let target else {
            if let failure { throw failure }
            return
        }
        if let failure {
            target.abandon()
            throw failure
        }
        try target.commit()
    }

    /// Gives up on a file sink: closes it and removes the temporary file, leaving nothing under
    /// ``path``. For the error path of a command that exits before the sink is released.
    package func discard() {
        guard !finished else { return }
        finished = true
        target?.abandon()
    }

    /// Throws the first write error, so a long writer can stop instead of computing output that
    /// cannot be written.
    package func check() throws(QuakeError) {
        if let failure { throw failure }
    }

    @inline(__always)
    package func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    package func write(_ s: String) { append(s.utf8) }

    package func maybeFlush() { if buffer.count >= 1 << 20 { flush() } }

    /// Writes what is buffered; a failure is kept in ``failure`` and thrown by ``finish()``.
    package func flush() {
        switch compressor {
        case .none: writeAll(buffer)
        case .gzip(let gzip): writeAll(gzip.compress(buffer))
        case .zstd(let zstd): writeAll(zstd.compress(buffer))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8]) {
        if fd == -1 {
            captured.append(contentsOf: bytes)
            return
        }
        guard failure == nil, !bytes.isEmpty else { return }
        do {
            if let target {
                try target.write(bytes)
            } else {
                // SAFETY: withStoreBytes lends the array's bytes for the call only; writeAll does not keep them.
                try bytes.withStoreBytes { (b) throws(QuakeError) in try FileIO.writeAll(fd, b, path: path) }
            }
        } catch {
            failure = error
        }
    }
}
