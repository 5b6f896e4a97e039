#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only scratch file of zstd frames, each `[u32 length][frame]`, used by the loader
/// to stage rows on disk so memory stays bounded by batch size.
final class SpillFile {
    let path: String
    private let fd: Int32
    private(set) var size = 0

    init(path: String) throws(StoreError) {
        self.path = path
        fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0o644)
        guard fd >= 0 else { throw .io("\(path): \(FileIO.errorText())") }
    }

    deinit { close(fd) }

    func append(_ payload: [UInt8]) throws(StoreError) {
        var w = ByteWriter()
        let frame = Zstd.compress(payload, level: 1)
        w.u32(UInt32(frame.count))
        w.u32(UInt32(payload.count))
        w.bytes.append(contentsOf: frame)
        try FileIO.pwriteAll(fd, w.bytes, at: size, path: path)
        size += w.bytes.count
    }

    /// Drops everything appended after `mark` (a failed input file).
    func truncate(to mark: Int) {
        ftruncate(fd, off_t(mark))
        size = mark
    }

    /// Calls `body` with each frame's decompressed payload, in order.
    func forEach(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var off = 0
        while off < size {
            let head = try FileIO.preadExactly(fd, count: 8, at: off, path: path)
            let clen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self) })
            let rlen = Int(head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) })
            let frame = try FileIO.preadExactly(fd, count: clen, at: off + 8, path: path)
            let payload = try frame.withUnsafeBytes { (p) throws(StoreError) in try Zstd.decompress(p, expectedSize: rlen) }
            try payload.withUnsafeBytes { try body($0) }
            off += 8 + clen
        }
    }
}
