#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// An append-only scratch file of zstd frames, each `[u32 length][frame]`, used by the loader
/// to stage rows on disk so memory stays bounded by batch size.
///
/// The file is created by the first append: a small load names a spill for every id bucket, and
/// creating and removing 64 empty files cost a one-event commit more than its own writes.
package final class SpillFile {
    package let path: String
    /// The open file; -1 until the first append.
    private var fd: Int32 = -1
    package private(set) var size = 0

    package init(path: String) {
        self.path = path
    }

    deinit {
        if fd >= 0 { FileIO.close(fd) }
    }

    /// The file, created (and emptied) on first use.
    private func opened() throws(QuakeError) -> Int32 {
        if fd < 0 { fd = try FileIO.open(path, O_CREAT | O_TRUNC | O_RDWR) }
        return fd
    }

    package func append(_ payload: [UInt8]) throws(QuakeError) {
        let fd = try opened()
        var writer = ByteWriter()
        let frame = Zstd.compress(payload, level: 1)
        writer.u32(UInt32(frame.count))
        writer.u32(UInt32(payload.count))
        writer.bytes.append(contentsOf: frame)
        try FileIO.pwriteAll(fd, writer.bytes, at: size, path: path)
        size += writer.bytes.count
    }

    /// Drops everything appended after `mark` (a failed input file).
    package func truncate(to mark: Int) throws(QuakeError) {
        guard mark != size else { return }
        try FileIO.truncate(try opened(), to: mark, path: path)
        size = mark
    }

    /// Calls `body` with each frame's decompressed payload, in order.
    package func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var off = 0
        while off < size {
            let fd = try opened()
            let head = try FileIO.preadExactly(fd, count: 8, at: off, path: path)
            // SAFETY: head holds exactly 8 bytes; the two loads read bytes 0..<4 and 4..<8.
            let clen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self) })
            let rlen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) })
            let frame = try FileIO.preadExactly(fd, count: clen, at: off + 8, path: path)
            // SAFETY: the frame's bytes are lent to the decompressor for the call only.
            let payload = try frame.withUnsafeBytes { (p) throws(QuakeError) in
                try Zstd.decompress(p, expectedSize: rlen)
            }
            // SAFETY: the payload's bytes are lent to body for the call only (its contract: not kept).
            try payload.withUnsafeBytes { try body($0) }
            off += 8 + clen
        }
    }
}
