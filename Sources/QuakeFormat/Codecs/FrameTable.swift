/// The frame offset table of a chunk cut into independently compressed frames (``FramedCodec``,
/// ``PlaceCodesCodec``): `frames + 1` u32 offsets into the frame data that follows, the first 0
/// and the last the data's length. Checked in order once, so any frame can be sliced safely.
package struct FrameTable {
    package let frames: Int
    private let offsets: UnsafeRawBufferPointer
    private let data: UnsafeRawBufferPointer

    /// Reads the table at `r`'s position in `chunk`; the frame data runs to the chunk's end.
    package init(_ chunk: UnsafeRawBufferPointer, at r: inout ByteReader, frames: Int) throws(StoreError) {
        try r.need(4 * (frames + 1))
        offsets = UnsafeRawBufferPointer(rebasing: chunk[r.pos..<(r.pos + 4 * (frames + 1))])
        data = UnsafeRawBufferPointer(rebasing: chunk[(r.pos + 4 * (frames + 1))...])
        self.frames = frames
        var last = 0
        for f in 0...frames {
            let o = Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: 4 * f, as: UInt32.self)))
            guard o >= last, o <= data.count, f > 0 || o == 0 else { throw .corrupt("frame offset \(f) out of order") }
            last = o
        }
        guard last == data.count else { throw .corrupt("frames end at \(last) of \(data.count) bytes") }
    }

    /// The bytes of frame `f` (`0..<frames`).
    package func frame(_ f: Int) -> UnsafeRawBufferPointer {
        let a = Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: 4 * f, as: UInt32.self)))
        let b = Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: 4 * f + 4, as: UInt32.self)))
        return UnsafeRawBufferPointer(rebasing: data[a..<b])
    }

    /// Appends a table for frames ending at `ends` (each frame's end offset, ascending).
    package static func write(ends: [UInt32], into w: inout ByteWriter) {
        w.u32(0)
        for e in ends { w.u32(e) }
    }
}
