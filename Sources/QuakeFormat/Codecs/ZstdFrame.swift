/// The zstd wrapping the zstd codecs share: `u32 raw length`, then one frame. Frames written
/// since granule sums carry no zstd content checksum: the directory's chunk checksum or the
/// frame table's per-frame sum covers every frame, and is checked before it is decompressed
/// (older frames keep theirs, and zstd still checks it).
package enum ZstdFrame {
    package static let level: Int32 = 3

    package static func wrap(_ payload: [UInt8], into out: inout [UInt8]) {
        var w = ByteWriter()
        w.u32(UInt32(payload.count))
        out.append(contentsOf: w.bytes)
        out.append(contentsOf: Zstd.compress(payload, level: level, checksum: false))
    }

    package static func unwrap(_ chunk: UnsafeRawBufferPointer) throws(QuakeError) -> [UInt8] {
        var r = ByteReader(chunk)
        let n = Int(try r.u32())
        guard n <= 1 << 31 else { throw .corrupt("zstd chunk claims \(n) bytes") }
        // SAFETY: r.u32() succeeded, so chunk.count >= 4 and chunk[4...] is a valid (maybe empty) slice of it.
        return try Zstd.decompress(UnsafeRawBufferPointer(rebasing: chunk[4...]), expectedSize: n)
    }

    /// The frame's raw length, without decompressing.
    package static func rawLength(_ chunk: UnsafeRawBufferPointer) -> Int {
        // SAFETY: the guard keeps chunk.count >= 4; loadUnaligned reads bytes 0..<4 at any alignment.
        chunk.count < 4 ? 0 : Int(UInt32(littleEndian: chunk.loadUnaligned(as: UInt32.self)))
    }
}
