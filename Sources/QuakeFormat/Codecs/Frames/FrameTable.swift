/// The frame offset table of a chunk cut into independently compressed frames (``FramedCodec``,
/// ``PlaceCodesCodec``): `frames + 1` u32 offsets into the frame data that follows, the first 0
/// and the last the data's length, then, in a summed table, one ``Checksum/wide(_:)`` u64 per
/// frame. Checked in order once, so any frame can be sliced safely.
///
/// A summed chunk's checksum in the partition directory covers only the chunk's head (every
/// byte before the frame data): each frame is checked against its own sum when it is read, so a
/// query that reads one frame of a block never hashes, nor faults in, the rest.
package struct FrameTable {
    package let frames: Int
    /// Bytes of the chunk before the frame data: what the directory's checksum covers when summed.
    package let headLength: Int
    /// Views of the chunk's bytes, whose owner the caller keeps alive (see ``ChunkBytes``).
    private let offsets: ChunkBytes
    private let sums: ChunkBytes?
    private let checks: FrameChecks?
    private let data: ChunkBytes

    /// Reads the table at `r`'s position in `chunk`; the frame data runs to the chunk's end.
    /// `checks`, when given, remembers the frames whose sums were checked, so each is hashed once.
    package init(_ chunk: UnsafeRawBufferPointer, at r: inout ByteReader, frames: Int,
                 summed: Bool, checks: FrameChecks? = nil) throws(QuakeError) {
        self.checks = checks
        let table = 4 * (frames + 1), sumBytes = summed ? 8 * frames : 0
        try r.need(table + sumBytes)
        assert(r.bytes.baseAddress == chunk.baseAddress && r.bytes.count == chunk.count, "`r` must read `chunk`")
        // need(table + sumBytes) checked the offsets and sums lie in `chunk`; take and rest check again
        offsets = try r.take(table)
        sums = try summed ? r.take(sumBytes) : nil
        headLength = r.pos
        data = try r.rest()
        self.frames = frames
        var last = 0
        // f <= frames, so each 4-byte load at 4 * f lies in the 4 * (frames + 1) offset bytes
        for f in 0...frames {
            let offset = Int(offsets.load(UInt32.self, at: 4 * f))
            guard offset >= last, offset <= data.count, f > 0 || offset == 0 else {
                throw .corrupt("frame offset \(f) out of order")
            }
            last = offset
        }
        guard last == data.count else { throw .corrupt("frames end at \(last) of \(data.count) bytes") }
    }

    /// The bytes of frame `f` (`0..<frames`), checked against its sum in a summed table; a view
    /// of the chunk, alive as long as it.
    package func frame(_ f: Int) throws(QuakeError) -> ChunkBytes {
        assert(f >= 0 && f < frames, "frame \(f) outside 0..<\(frames)")
        // callers pass f < frames; init checked the offsets ascend within data.count, so a <= b <= data.count,
        // and the sum load at 8 * f lies in the 8 * frames sum bytes
        let start = Int(offsets.load(UInt32.self, at: 4 * f)), end = Int(offsets.load(UInt32.self, at: 4 * f + 4))
        let payload = data.subrange(start..<end)
        guard let sums, checks?.contains(payload.raw) != true else { return payload }
        guard Checksum.wide(payload.raw) == sums.load(UInt64.self, at: 8 * f) else {
            throw .corrupt("frame \(f): checksum mismatch")
        }
        checks?.insert(payload.raw)
        return payload
    }

    /// Appends a summed table for the frames in `data`, each ending at its offset in `ends`.
    package static func write(ends: [UInt32], data: [UInt8], into w: inout ByteWriter) {
        w.u32(0)
        for e in ends { w.u32(e) }
        var start = 0
        // SAFETY: `ends` ascend up to data.count (the writer's own offsets), so each slice lies in `d`; the
        // pointer does not escape the closure.
        data.withUnsafeBytes { d in
            for e in ends {
                w.u64(Checksum.wide(UnsafeRawBufferPointer(rebasing: d[start..<Int(e)])))
                start = Int(e)
            }
        }
    }

    /// The header byte of a chunk whose table is summed (the byte is 0 in older chunks).
    package static let summedFlag: UInt8 = 1

    /// Reads the summed flag from a reserved header byte: 0 or ``summedFlag``.
    package static func summed(_ byte: UInt8) throws(QuakeError) -> Bool {
        guard byte <= summedFlag else { throw .corrupt("frame table flag \(byte)") }
        return byte == summedFlag
    }
}
