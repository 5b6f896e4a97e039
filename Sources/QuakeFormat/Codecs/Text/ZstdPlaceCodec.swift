/// Place names: the ``PlacePayload`` pattern split (distance, direction, locality dictionary),
/// zstd on top. A row range decodes the whole chunk and keeps the range.
package enum ZstdPlaceCodec: ColumnCodec {
    package static let id = CodecID.zstdPlace

    package static func analyze(_ values: ByteArena, rows: Range<Int>) -> Int {
        Zstd.compress(PlacePayload.encode(values, rows: rows), level: ZstdFrame.level, checksum: false).count + 4
    }

    package static func encode(_ values: ByteArena, rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        ZstdFrame.wrap(PlacePayload.encode(values, rows: rows), into: &out)
        return ChunkStats(nulls: values.nullCount(rows), min: 0, max: 0)
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        // SAFETY: `chunk` is only borrowed for this call: unwrap bounds-checks it (ByteReader) and copies the frame.
        let payload = try ZstdFrame.unwrap(chunk)
        let all = try payload.withStoreBytes { (b) throws(QuakeError) in try PlacePayload.decode(b, rows: count) }
        if rows.count == count { return .place(all) }
        return .place(PlaceBlock(localities: all.localities, locality: Array(all.locality[rows]),
                                 direction: Array(all.direction[rows]), distance: Array(all.distance[rows])))
    }
}
