import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The codec choice of the decimal columns that try both frame-of-reference and zstd byte planes:
/// compared with encoding both ways and keeping the smaller, the naive rule it replaces.
@Suite struct DecimalChoiceTests {
    static let sample = PartitionFile.decimalSampleRows

    /// Columns whose better codec differs: uniform values over a power of two (frame-of-reference
    /// wins), narrow or a few repeated wide values (zstd wins), all null, and one whose first
    /// frame is unlike the rest.
    static func columns(rows n: Int, _ rng: inout SplitMix64) -> [(String, [Int64])] {
        func dec(_ mantissa: Int64, _ scale: Int64) -> Int64 { mantissa << 6 | scale }
        let repeated = (0..<8).map { _ in Int64(rng.next() % 90_000_000) }
        var out: [(String, [Int64])] = []
        out.append(("narrow", (0..<n).map { _ in dec(Int64(rng.next() % 40), 1) }))
        out.append(("repeated wide", (0..<n).map { _ in dec(repeated[Int(rng.next() % 8)], 4) }))
        out.append(("all null", [Int64](repeating: RowBatch.null, count: n)))
        out.append(("nulls and mixed scales", (0..<n).map { i in
            i % 5 == 0 ? RowBatch.null : dec(Int64(rng.next() % 2_000), Int64(rng.next() % 4))
        }))
        out.append(("uniform", (0..<n).map { _ in dec(Int64(rng.next() % 512), 3) }))
        out.append(("uniform head, repeated tail", (0..<n).map { i in
            i < sample ? dec(Int64(rng.next() % 512), 3) : dec(repeated[Int(rng.next() % 8)], 4)
        }))
        return out
    }

    /// The whole chunk in frame-of-reference, or in zstd byte planes (framed past one frame).
    static func encoded(_ v: [Int64], rows: Range<Int>, zstd: Bool) -> (CodecID, [UInt8]) {
        var out: [UInt8] = []
        if !zstd { _ = ForDecimalCodec.encode(v, rows: rows, into: &out); return (.forDecimal, out) }
        if rows.count <= FramedCodec.frameRows {
            _ = ZstdDecimalCodec.encode(v, rows: rows, into: &out)
            return (.zstdDecimal, out)
        }
        _ = FramedCodec.encode(inner: .zstdDecimal, rows: rows, frameRows: FramedCodec.frameRows, into: &out,
                               merge: FramedCodec.mergeDecimals) { r, o in
            ZstdDecimalCodec.encode(v, rows: r, into: &o)
        }
        return (.zstdFramed, out)
    }

    /// The smaller of the two whole-chunk encodings, as a load chose before sampling.
    static func naive(_ v: [Int64], rows: Range<Int>) -> (CodecID, [UInt8]) {
        let f = encoded(v, rows: rows, zstd: false)
        if f.1.count <= 64 { return f }
        let z = encoded(v, rows: rows, zstd: true)
        return z.1.count < f.1.count ? z : f
    }

    @Test(arguments: [1, 700, 2047, 2048, 3001, 2 * sample + 1, 5 * sample + 77, 16 * sample])
    func theChosenChunkDecodesToItsRowsAndIsOneOfTheTwoEncodings(rows n: Int) throws {
        var rng = SplitMix64(seed: UInt64(n))
        for (name, v) in DecimalChoiceTests.columns(rows: n, &rng) {
            let rows = 0..<n
            var out: [UInt8] = []
            let (codec, stats) = PartitionFile.smallerDecimal(v, rows: rows, into: &out)
            #expect(stats.nulls == v.filter { $0 == RowBatch.null }.count, "\(name) \(n): nulls")
            let got = try out.withStoreBytes { (raw) throws(QuakeError) in
                try codec.decode(raw, count: n, rows: rows, as: .stored)
            }
            guard case .ints(let g) = got else { Issue.record("\(name) \(n): not ints"); continue }
            #expect(g == v, "\(name) \(n): decoded rows")
            let (naiveCodec, naiveBytes) = DecimalChoiceTests.naive(v, rows: rows)
            let head = 0..<Swift.min(DecimalChoiceTests.sample, n / 4)
            if head.count < PartitionFile.minimumSampleRows {
                let same = codec == naiveCodec && out == naiveBytes
                #expect(same, "\(name) \(n): a small chunk keeps the smaller")
            } else {
                // the codec the chunk's first quarter (at most a frame) favours, encoding the whole chunk
                let sampleFOR = DecimalChoiceTests.naive(v, rows: head).0 == .forDecimal
                let (wantCodec, wantBytes) = DecimalChoiceTests.encoded(v, rows: rows, zstd: !sampleFOR)
                let same = codec == wantCodec && out == wantBytes
                #expect(same, "\(name) \(n): the sample's codec over the whole chunk")
            }
        }
    }

    @Test func aClearColumnGetsTheNaiveChoiceAndAMisleadingHeadDecides() throws {
        var rng = SplitMix64(seed: 7)
        let n = 8 * DecimalChoiceTests.sample
        let cols = DecimalChoiceTests.columns(rows: n, &rng)
        let clear: [(String, CodecID)] = [("uniform", .forDecimal), ("repeated wide", .zstdFramed), ("all null", .forDecimal)]
        for (name, want) in clear {
            var out: [UInt8] = []
            let v = try #require(cols.first { $0.0 == name }?.1, "\(name)")
            let (codec, _) = PartitionFile.smallerDecimal(v, rows: 0..<n, into: &out)
            let (naiveCodec, naiveBytes) = DecimalChoiceTests.naive(v, rows: 0..<n)
            let same = codec == want && naiveCodec == want && out == naiveBytes
            #expect(same, "\(name)")
        }
        // the first frame favours frame-of-reference, the whole chunk zstd: the first frame decides
        let v = try #require(cols.first { $0.0 == "uniform head, repeated tail" }?.1)
        var out: [UInt8] = []
        let (codec, _) = PartitionFile.smallerDecimal(v, rows: 0..<n, into: &out)
        #expect(codec == .forDecimal && DecimalChoiceTests.naive(v, rows: 0..<n).0 == .zstdFramed)
    }
}
