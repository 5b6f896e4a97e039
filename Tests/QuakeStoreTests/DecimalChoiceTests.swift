import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport

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

    /// The smaller of the two whole-chunk encodings, as a load chose before sampling.
    static func naive(_ v: [Int64], rows: Range<Int>) -> (CodecID, [UInt8]) {
        var f: [UInt8] = [], z: [UInt8] = []
        _ = ForDecimalCodec.encode(v, rows: rows, into: &f)
        if f.count <= 64 { return (.forDecimal, f) }
        let codec: CodecID = rows.count <= FramedCodec.frameRows ? .zstdDecimal : .zstdFramed
        if rows.count <= FramedCodec.frameRows {
            _ = ZstdDecimalCodec.encode(v, rows: rows, into: &z)
        } else {
            _ = FramedCodec.encode(inner: .zstdDecimal, rows: rows, frameRows: FramedCodec.frameRows, into: &z,
                                   merge: FramedCodec.mergeDecimals) { r, o in ZstdDecimalCodec.encode(v, rows: r, into: &o) }
        }
        return z.count < f.count ? (codec, z) : (.forDecimal, f)
    }

    /// The whole chunk in one of the two codecs.
    static func encoded(_ v: [Int64], rows: Range<Int>, as codec: CodecID) -> [UInt8] {
        var out: [UInt8] = []
        if codec == .forDecimal { _ = ForDecimalCodec.encode(v, rows: rows, into: &out); return out }
        _ = FramedCodec.encode(inner: .zstdDecimal, rows: rows, frameRows: FramedCodec.frameRows, into: &out,
                               merge: FramedCodec.mergeDecimals) { r, o in ZstdDecimalCodec.encode(v, rows: r, into: &o) }
        return out
    }

    @Test(arguments: [1, 700, 2 * sample, 2 * sample + 1, 5 * sample + 77, 16 * sample])
    func theChosenChunkDecodesToItsRowsAndIsOneOfTheTwoEncodings(rows n: Int) throws {
        var rng = SplitMix64(seed: UInt64(n))
        for (name, v) in DecimalChoiceTests.columns(rows: n, &rng) {
            let rows = 0..<n
            var out: [UInt8] = []
            let (codec, stats) = PartitionFile.smallerDecimal(v, rows: rows, into: &out)
            #expect(stats.nulls == v.filter { $0 == RowBatch.null }.count, "\(name) \(n): nulls")
            let got = try out.withStoreBytes { (raw) throws(StoreError) in
                try codec.decode(raw, count: n, rows: rows, as: .stored)
            }
            guard case .ints(let g) = got else { Issue.record("\(name) \(n): not ints"); continue }
            #expect(g == v, "\(name) \(n): decoded rows")
            let (naiveCodec, naiveBytes) = DecimalChoiceTests.naive(v, rows: rows)
            if n <= 2 * DecimalChoiceTests.sample {
                #expect(codec == naiveCodec && out == naiveBytes, "\(name) \(n): a small chunk keeps the smaller")
            } else {
                // the codec the first frame favours, encoding the whole chunk
                let head = 0..<DecimalChoiceTests.sample
                let sampleCodec = DecimalChoiceTests.naive(v, rows: head).0 == .forDecimal ? CodecID.forDecimal : .zstdFramed
                #expect(codec == sampleCodec, "\(name) \(n): the sample's codec")
                #expect(out == DecimalChoiceTests.encoded(v, rows: rows, as: sampleCodec), "\(name) \(n): whole chunk")
                if codec == naiveCodec { #expect(out == naiveBytes, "\(name) \(n): the same bytes as the naive choice") }
            }
        }
    }

    @Test func aClearColumnGetsTheNaiveChoiceAndAMisleadingHeadDecides() {
        var rng = SplitMix64(seed: 7)
        let n = 8 * DecimalChoiceTests.sample
        let cols = Dictionary(uniqueKeysWithValues: DecimalChoiceTests.columns(rows: n, &rng).map { ($0.0, $0.1) })
        for (name, want) in [("uniform", CodecID.forDecimal), ("repeated wide", .zstdFramed), ("all null", .forDecimal)] {
            var out: [UInt8] = []
            let v = cols[name]!
            let (codec, _) = PartitionFile.smallerDecimal(v, rows: 0..<n, into: &out)
            let (naiveCodec, naiveBytes) = DecimalChoiceTests.naive(v, rows: 0..<n)
            #expect(codec == want && naiveCodec == want && out == naiveBytes, "\(name)")
        }
        // the first frame favours frame-of-reference, the whole chunk zstd: the first frame decides
        let v = cols["uniform head, repeated tail"]!
        var out: [UInt8] = []
        let (codec, _) = PartitionFile.smallerDecimal(v, rows: 0..<n, into: &out)
        #expect(codec == .forDecimal && DecimalChoiceTests.naive(v, rows: 0..<n).0 == .zstdFramed)
    }
}
