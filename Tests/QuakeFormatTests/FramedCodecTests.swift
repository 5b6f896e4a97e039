import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Framed and place-code chunks against the values they were written from: every row range,
/// across frame edges, in the frame sizes written before and after text and place frames shrank;
/// damaged frames and frame offsets past the data are errors, never traps.
@Suite struct FramedCodecTests {
    @Test func framedAndPlaceCodeChunksDecodeEveryRowRange() throws {
        var rng = SplitMix64(seed: 99)
        let columns = CodecSamples.textColumns(&rng)
        // 5,000 rows: two frames, so ranges cross a frame edge
        for (name, a) in columns where name != "category" {
            // frames of text's 512 rows and of 4,096 (as chunks written before text frames shrank)
            var framed: [UInt8] = [], wide: [UInt8] = []
            _ = FramedCodec.encode(inner: .zstdText, rows: 0..<a.count, frameRows: FramedCodec.textFrameRows, into: &framed,
                                   merge: FramedCodec.mergeCounts) { r, o in ZstdTextCodec.encode(a, rows: r, into: &o) }
            _ = FramedCodec.encode(inner: .zstdText, rows: 0..<a.count, frameRows: 4096, into: &wide,
                                   merge: FramedCodec.mergeCounts) { r, o in ZstdTextCodec.encode(a, rows: r, into: &o) }
            var codes: [UInt8] = [], older: [UInt8] = [], zstd: [UInt8] = []
            let stats = PlaceCodesCodec.encode(a, rows: 0..<a.count, into: &codes)
            #expect(stats.nulls == (0..<a.count).filter { a.isNull($0) }.count)
            #expect(codes[2] | codes[3] != 0 && codes[1] == FrameTable.summedFlag | PlaceCodesCodec.packedFlag)
            // a chunk written before place frames shrank: zstd frames of 4,096 rows, frame rows 0
            _ = PlaceCodesCodec.encode(a, rows: 0..<a.count, frameRows: 4096, packed: false, into: &older)
            older[2] = 0; older[3] = 0
            // and one written before they were bit-packed: zstd frames of 512 rows
            _ = PlaceCodesCodec.encode(a, rows: 0..<a.count, frameRows: PlaceCodesCodec.frameRows, packed: false,
                                       into: &zstd)
            #expect(zstd[1] == FrameTable.summedFlag)
            for r in CodecSamples.ranges(a.count, &rng) + [4095..<4097, 4096..<5000, 0..<4096, 511..<513, 1000..<1001] {
                var chunks: [(String, [UInt8], CodecID)] = [("framed", framed, .zstdFramed), ("wide", wide, .zstdFramed)]
                if name == "place" {
                    chunks += [("place-codes", codes, .placeCodes), ("older place-codes", older, .placeCodes),
                               ("zstd place-codes", zstd, .placeCodes)]
                }
                for (label, bytes, id) in chunks {
                    let got: ByteArena = try bytes.withStoreBytes { (chunk) throws(QuakeError) in
                        switch try id.decode(chunk, count: a.count, rows: r, as: .stored) {
                        case .text(let t): return t
                        case .place(let p): return p.arena()
                        default: throw .corrupt("wrong vector")
                        }
                    }
                    #expect(got.count == r.count, "\(label) \(name) \(r)")
                    if got.count != r.count { continue }
                    for (k, i) in r.enumerated() { #expect(got.string(k) == a.string(i), "\(label) \(name) row \(i)") }
                }
                if name == "place" {
                    let (dict, c) = try codes.withStoreBytes { (chunk) throws(QuakeError) in
                        let p = try PlaceCodesCodec.parse(chunk, count: a.count)
                        return (p.dictionary, try p.codes(r))
                    }
                    for (k, i) in r.enumerated() {
                        let locality = c[k] == 0 ? nil : dict.string(Int(c[k]) - 1)
                        if let s = a.string(i), !s.isEmpty { #expect(locality.map { s.hasSuffix($0) } == true) } else { #expect(c[k] == 0) }
                    }
                }
            }
        }
        // framed cold decimals: every row range, in both forms
        for (name, v) in CodecSamples.intColumns(&rng) where v.count > FramedCodec.frameRows {
            var framed: [UInt8] = []
            let stats = FramedCodec.encode(inner: .zstdDecimal, rows: 0..<v.count, into: &framed, merge: FramedCodec.mergeDecimals) { r, o in
                ZstdDecimalCodec.encode(v, rows: r, into: &o)
            }
            #expect(stats.nulls == v.filter { $0 == RowBatch.null }.count, "\(name) nulls")
            for r in CodecSamples.ranges(v.count, &rng) + [4095..<4097] {
                let got = try framed.withStoreBytes { (chunk) throws(QuakeError) in
                    try FramedCodec.decode(chunk, count: v.count, rows: r, as: .stored)
                }
                guard case .ints(let g) = got else { Issue.record("\(name): not ints"); continue }
                #expect(g == Array(v[r]), "framed \(name) rows \(r)")
            }
        }
        // a damaged frame, or a frame offset past the data, is an error, never a trap
        var framedText: [UInt8] = []
        _ = FramedCodec.encode(inner: .zstdText, rows: 0..<5000, into: &framedText, merge: FramedCodec.mergeCounts) { r, o in
            ZstdTextCodec.encode(columns[1].1, rows: r, into: &o)
        }
        for i in 16..<20 { framedText[i] = 0xFF }   // the second offset: header is 12 bytes, then offset 0
        #expect(throws: QuakeError.self) {
            try framedText.withStoreBytes { (chunk) throws(QuakeError) in _ = try FramedCodec.decode(chunk, count: 5000, rows: 0..<10, as: .stored) }
        }
        var bad: [UInt8] = []
        _ = PlaceCodesCodec.encode(columns[2].1, rows: 0..<5000, into: &bad)
        bad[bad.count - 1] ^= 0xFF
        #expect(throws: QuakeError.self) {
            try bad.withStoreBytes { (chunk) throws(QuakeError) in _ = try PlaceCodesCodec.decode(chunk, count: 5000, rows: 0..<5000, as: .stored) }
        }
    }
}
