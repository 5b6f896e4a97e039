/// The codec of a decimal column that is neither a coordinate, the depth nor the magnitude:
/// frame-of-reference or zstd byte planes, whichever is smaller.
extension PartitionFile {
    /// Rows of a chunk's start on which both codecs are tried: a quarter of the chunk, at most
    /// one zstd frame.
    package static let decimalSampleRows = FramedCodec.frameRows
    /// Chunks with fewer rows than four times this are encoded both ways.
    package static let minimumSampleRows = 512

    /// Encodes `rows` of `v` with frame-of-reference or zstd byte planes.
    ///
    /// A chunk of at least 2,048 rows is encoded with the codec that is smaller on its first
    /// quarter (at most ``decimalSampleRows`` rows). A smaller chunk is encoded both ways and the
    /// smaller kept. On the benchmark feeds the sample picks the whole chunk's smaller codec in
    /// all but a few chunks: the stores grew by 0.02-0.03 %, and these columns encode 1.3-1.8x
    /// faster.
    /// The choice depends on the rows alone, so a partition encodes to the same bytes each time.
    /// - Complexity: O(n): one codec over the chunk and both over the sample.
    package static func smallerDecimal(_ v: [Int64], rows: Range<Int>,
                                       into out: inout [UInt8]) -> (CodecID, ChunkStats) {
        let sample = Swift.min(decimalSampleRows, rows.count / 4)
        if sample >= minimumSampleRows {
            let head = rows.lowerBound..<(rows.lowerBound + sample)
            var forBytes: [UInt8] = [], zstdBytes: [UInt8] = []
            _ = ForDecimalCodec.encode(v, rows: head, into: &forBytes)
            _ = ZstdDecimalCodec.encode(v, rows: head, into: &zstdBytes)
            if forBytes.count <= zstdBytes.count {
                return (.forDecimal, ForDecimalCodec.encode(v, rows: rows, into: &out))
            }
            return framed(.zstdDecimal, rows, &out, FramedCodec.mergeDecimals) { r, o in
                ZstdDecimalCodec.encode(v, rows: r, into: &o)
            }
        }
        var forBytes: [UInt8] = [], zstdBytes: [UInt8] = []
        let fs = ForDecimalCodec.encode(v, rows: rows, into: &forBytes)
        if forBytes.count <= 64 {
            out.append(contentsOf: forBytes)
            return (.forDecimal, fs)
        }
        let (zc, zs) = framed(.zstdDecimal, rows, &zstdBytes, FramedCodec.mergeDecimals) { r, o in
            ZstdDecimalCodec.encode(v, rows: r, into: &o)
        }
        if zstdBytes.count < forBytes.count {
            out.append(contentsOf: zstdBytes)
            return (zc, zs)
        }
        out.append(contentsOf: forBytes)
        return (.forDecimal, fs)
    }
}
