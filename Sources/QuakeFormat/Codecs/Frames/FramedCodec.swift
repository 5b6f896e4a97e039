/// A chunk cut into independent frames of ``frameRows`` rows (``textFrameRows`` for text), each
/// frame a whole chunk of an inner zstd codec, so that a row range decompresses only the frames
/// it touches. Frames line up with the granules of ``GranuleIndex`` (blocks start at multiples
/// of the frame size, which divides the granule size), so a day or a page materializes a part
/// of one granule's text instead of the whole block's, and fetching one row's id decompresses
/// 512 ids.
///
/// Chunk: `u8 inner codec, u8 summed, u16 0, u32 frame rows, u32 frames`, then the
/// ``FrameTable`` (summed when `summed` is 1; chunks written before per-frame sums have 0), then
/// the frames.
package enum FramedCodec {
    package static let id = CodecID.zstdFramed
    package static let frameRows = GranuleIndex.granuleRows
    /// Rows per frame of text (ids, urls): read a row or a few at a time, by pages and top-N.
    package static let textFrameRows = GranuleIndex.granuleRows / 8
    /// The codecs a frame may use (place has its own framing, ``PlaceCodesCodec``).
    package static let inner: [CodecID] = [.zstdText, .zstdDecimal]

    /// Appends a framed chunk for `rows`, each frame encoded by `encodeFrame`, and returns the
    /// summed statistics (`merge` combines two frames' min and max).
    package static func encode(inner codec: CodecID, rows: Range<Int>, frameRows: Int = frameRows,
                       into out: inout [UInt8], merge: (ChunkStats, ChunkStats) -> ChunkStats,
                       encodeFrame: (Range<Int>, inout [UInt8]) -> ChunkStats) -> ChunkStats {
        let frames = Swift.max(1, (rows.count + frameRows - 1) / frameRows)
        var data: [UInt8] = []
        var ends: [UInt32] = []
        var stats: ChunkStats?
        for f in 0..<frames {
            let lo = rows.lowerBound + f * frameRows
            let frameStats = encodeFrame(lo..<Swift.min(rows.upperBound, lo + frameRows), &data)
            ends.append(UInt32(data.count))
            stats = stats.map { merge($0, frameStats) } ?? frameStats
        }
        var writer = ByteWriter()
        writer.u8(codec.rawValue)
        writer.u8(FrameTable.summedFlag)
        writer.u8(0)
        writer.u8(0)
        writer.u32(UInt32(frameRows))
        writer.u32(UInt32(frames))
        FrameTable.write(ends: ends, data: data, into: &writer)
        out.append(contentsOf: writer.bytes)
        out.append(contentsOf: data)
        return stats ?? .none
    }

    /// Zone-map merge for string chunks: null counts add up.
    package static func mergeCounts(_ a: ChunkStats, _ b: ChunkStats) -> ChunkStats {
        ChunkStats(nulls: a.nulls + b.nulls, min: 0, max: 0)
    }

    /// Zone-map merge for decimal chunks (min and max are `Double` bit patterns, NaN when all null).
    package static func mergeDecimals(_ a: ChunkStats, _ b: ChunkStats) -> ChunkStats {
        let amin = Double(bitPattern: UInt64(bitPattern: a.min)), bmin = Double(bitPattern: UInt64(bitPattern: b.min))
        let amax = Double(bitPattern: UInt64(bitPattern: a.max)), bmax = Double(bitPattern: UInt64(bitPattern: b.max))
        let lo = amin.isNaN ? bmin : bmin.isNaN ? amin : Swift.min(amin, bmin)
        let hi = amax.isNaN ? bmax : bmax.isNaN ? amax : Swift.max(amax, bmax)
        return ChunkStats(nulls: a.nulls + b.nulls, min: Int64(bitPattern: lo.bitPattern),
                          max: Int64(bitPattern: hi.bitPattern))
    }

    /// The parsed header: the inner codec and each frame's bytes.
    private struct Header {
        package var inner: CodecID
        package var frameRows: Int
        package var table: FrameTable
    }

    private static func header(_ chunk: UnsafeRawBufferPointer, count: Int,
                               checks: FrameChecks? = nil) throws(QuakeError) -> Header {
        // SAFETY: every header read goes through ByteReader; FrameTable slices `chunk` only after its need().
        var reader = ByteReader(chunk)
        let code = try reader.u8()
        let summed = try FrameTable.summed(try reader.u8())
        _ = try reader.u8()
        _ = try reader.u8()
        guard let inner = CodecID(rawValue: code), Self.inner.contains(inner) else {
            throw .corrupt("framed chunk names inner codec \(code)")
        }
        let frameRows = Int(try reader.u32()), frames = Int(try reader.u32())
        guard frameRows >= 1, frames == Swift.max(1, (count + frameRows - 1) / frameRows) else {
            throw .corrupt("framed chunk holds \(frames) frames of \(frameRows) rows for \(count) rows")
        }
        let table = try FrameTable(chunk, at: &reader, frames: frames, summed: summed, checks: checks)
        return Header(inner: inner, frameRows: frameRows, table: table)
    }

    /// The bytes the directory's checksum covers: the head of a summed chunk, else all of it.
    package static func covered(_ chunk: UnsafeRawBufferPointer, count: Int) throws(QuakeError) -> Int {
        let table = try header(chunk, count: count).table
        // SAFETY: chunk.count > 1 is checked before chunk[1] is read.
        return chunk.count > 1 && chunk[1] == FrameTable.summedFlag ? table.headLength : chunk.count
    }

    /// Decodes rows `rows`, decompressing only the frames they touch.
    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm, checks: FrameChecks? = nil) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        let parsed = try header(chunk, count: count, checks: checks)
        if rows.isEmpty {
            // SAFETY: header checked frames >= 1, so frame 0 exists; its bytes lie in `chunk`, alive for this call.
            return try parsed.inner.decode(parsed.table.frame(0).raw, count: Swift.min(count, parsed.frameRows),
                                           rows: 0..<0, as: form)
        }
        var parts: [ColumnVector] = []
        let first = rows.lowerBound / parsed.frameRows, last = (rows.upperBound - 1) / parsed.frameRows
        // SAFETY: header checked frames == ceil(count / frameRows), and rows.upperBound <= count, so
        // last < frames and every frame(f) is in range; its bytes lie in `chunk`, alive for this call.
        for f in first...last {
            let start = f * parsed.frameRows
            let frameCount = Swift.min(count, start + parsed.frameRows) - start
            let lo = Swift.max(rows.lowerBound, start) - start
            let hi = Swift.min(rows.upperBound, start + frameCount) - start
            parts.append(try parsed.inner.decode(parsed.table.frame(f).raw, count: frameCount, rows: lo..<hi, as: form))
        }
        return try ColumnVector.concatenating(parts)
    }
}
