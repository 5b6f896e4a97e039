/// The zstd wrapping the zstd codecs share: `u32 raw length`, then one frame. Frames written
/// since granule sums carry no zstd content checksum: the directory's chunk checksum or the
/// frame table's per-frame sum covers every frame, and is checked before it is decompressed
/// (older frames keep theirs, and zstd still checks it).
package enum ZstdFrame {
    package static let level: Int32 = 3

    package static func wrap(_ payload: [UInt8], into out: inout [UInt8]) {
        var writer = ByteWriter()
        writer.u32(UInt32(payload.count))
        out.append(contentsOf: writer.bytes)
        out.append(contentsOf: Zstd.compress(payload, level: level, checksum: false))
    }

    package static func unwrap(_ chunk: UnsafeRawBufferPointer) throws(QuakeError) -> [UInt8] {
        try unwrap(ChunkBytes(chunk))
    }

    /// The frame's bytes, decompressed (checked against the raw length it starts with).
    package static func unwrap(_ chunk: ChunkBytes) throws(QuakeError) -> [UInt8] {
        var reader = ByteReader(chunk.raw)
        let rawSize = Int(try reader.u32())
        guard rawSize <= 1 << 31 else { throw .corrupt("zstd chunk claims \(rawSize) bytes") }
        return try Zstd.decompress(try reader.rest().raw, expectedSize: rawSize)
    }

    /// The frame's raw length, without decompressing.
    package static func rawLength(_ chunk: UnsafeRawBufferPointer) -> Int {
        let bytes = ChunkBytes(chunk)
        // the guard keeps count >= 4, so the load of bytes 0..<4 lies inside
        return bytes.count < 4 ? 0 : Int(bytes.load(UInt32.self, at: 0))
    }
}
