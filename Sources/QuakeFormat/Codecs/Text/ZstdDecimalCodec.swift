/// Rarely read decimals (`nst`, `gap`, error columns, ...): ``BytePlanes`` (zigzag values split
/// into byte planes) with zstd on top, chosen over ``ForDecimalCodec`` when smaller. A row range
/// decodes the whole chunk and keeps the range.
package enum ZstdDecimalCodec: ColumnCodec {
    package static let id = CodecID.zstdDecimal

    package static func analyze(_ values: [Int64], rows: Range<Int>) -> Int {
        Zstd.compress(BytePlanes.encode(values[rows], delta: false, decimals: true), level: ZstdFrame.level,
                      checksum: false).count + 4
    }

    package static func encode(_ values: [Int64], rows: Range<Int>, into out: inout [UInt8]) -> ChunkStats {
        ZstdFrame.wrap(BytePlanes.encode(values[rows], delta: false, decimals: true), into: &out)
        var stats = ChunkStats(nulls: 0, min: 0, max: 0)
        var lo = Double.infinity, hi = -Double.infinity
        for i in rows {
            if values[i] == RowBatch.null {
                stats.nulls += 1
                continue
            }
            let decoded = ScaledDecimal.double(values[i])
            lo = Swift.min(lo, decoded)
            hi = Swift.max(hi, decoded)
        }
        if stats.nulls == rows.count {
            lo = .nan
            hi = .nan
        }
        stats.min = Int64(bitPattern: lo.bitPattern)
        stats.max = Int64(bitPattern: hi.bitPattern)
        return stats
    }

    package static func decode(_ chunk: UnsafeRawBufferPointer, count: Int, rows: Range<Int>,
                       as form: VectorForm) throws(QuakeError) -> ColumnVector {
        guard rows.lowerBound >= 0, rows.upperBound <= count else { throw .corrupt("row range \(rows) outside chunk") }
        // SAFETY: `chunk` is only borrowed for this call: unwrap bounds-checks it (ByteReader) and copies the frame.
        let payload = try ZstdFrame.unwrap(chunk)
        // only the rows asked for are put back together from the byte planes
        if form == .doubles {
            return .doubles(try payload.withStoreBytes { (b) throws(QuakeError) in
                try BytePlanes.decodeDoubles(b, rows: count, range: rows)
            })
        }
        return .ints(try payload.withStoreBytes { (b) throws(QuakeError) in
            try BytePlanes.decode(b, rows: count, range: rows)
        })
    }
}
