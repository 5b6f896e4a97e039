import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// The execution v2 access paths against full scans and the naive reference: framed and
/// place-code chunks, granule verdicts and histogram counts, selections, and queries over
/// partitions of many granules, before and after upserts that move events and change their
/// mag and place.
@Suite struct ExecutionV2Tests {
    @Test func framedAndPlaceCodeChunksDecodeEveryRowRange() throws {
        var rng = SplitMix64(seed: 99)
        let columns = ColumnCodecTests.textColumns(&rng)
        // 5,000 rows: two frames, so ranges cross a frame edge
        for (name, a) in columns where name != "category" {
            // frames of text's 512 rows and of 4,096 (as chunks written before text frames shrank)
            var framed: [UInt8] = [], wide: [UInt8] = []
            _ = FramedCodec.encode(inner: .zstdText, rows: 0..<a.count, frameRows: FramedCodec.textFrameRows, into: &framed,
                                   merge: FramedCodec.mergeCounts) { r, o in ZstdTextCodec.encode(a, rows: r, into: &o) }
            _ = FramedCodec.encode(inner: .zstdText, rows: 0..<a.count, frameRows: 4096, into: &wide,
                                   merge: FramedCodec.mergeCounts) { r, o in ZstdTextCodec.encode(a, rows: r, into: &o) }
            var codes: [UInt8] = [], older: [UInt8] = []
            let stats = PlaceCodesCodec.encode(a, rows: 0..<a.count, into: &codes)
            #expect(stats.nulls == (0..<a.count).filter { a.isNull($0) }.count)
            #expect(codes[2] | codes[3] != 0)
            // a chunk written before place frames shrank: frames of 4,096 rows, frame rows 0
            _ = PlaceCodesCodec.encode(a, rows: 0..<a.count, frameRows: 4096, into: &older)
            older[2] = 0; older[3] = 0
            for r in ColumnCodecTests.ranges(a.count, &rng) + [4095..<4097, 4096..<5000, 0..<4096, 511..<513, 1000..<1001] {
                var chunks: [(String, [UInt8], CodecID)] = [("framed", framed, .zstdFramed), ("wide", wide, .zstdFramed)]
                if name == "place" { chunks += [("place-codes", codes, .placeCodes), ("older place-codes", older, .placeCodes)] }
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
        for (name, v) in ColumnCodecTests.intColumns(&rng) where v.count > FramedCodec.frameRows {
            var framed: [UInt8] = []
            let stats = FramedCodec.encode(inner: .zstdDecimal, rows: 0..<v.count, into: &framed, merge: FramedCodec.mergeDecimals) { r, o in
                ZstdDecimalCodec.encode(v, rows: r, into: &o)
            }
            #expect(stats.nulls == v.filter { $0 == RowBatch.null }.count, "\(name) nulls")
            for r in ColumnCodecTests.ranges(v.count, &rng) + [4095..<4097] {
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

    @Test func selectionsCombineLikeSets() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let n = 1 + Int(rng.next() % 300)
            func random() -> Selection {
                if rng.next() % 5 == 0 { return .all(n) }
                return .rows((0..<UInt32(n)).filter { _ in rng.next() % 3 == 0 })
            }
            let a = random(), b = random()
            let sa = Set(a.list), sb = Set(b.list)
            #expect(Set(a.intersection(b).list) == sa.intersection(sb))
            #expect(Set(a.union(b, window: n).list) == sa.union(sb))
            #expect(Set(a.complement(window: n).list) == Set(0..<UInt32(n)).subtracting(sa))
            #expect(a.intersection(b).list == a.intersection(b).list.sorted())
            #expect(a.filter { $0 % 2 == 0 }.list == a.list.filter { $0 % 2 == 0 })
        }
    }

    @Test func randomizedQueriesMatchTheReferenceOverManyGranules() throws {
        try QueryEngineTests.check(Fixtures.large, iterations: 200, seed: 3)
    }

    /// Per granule (cut by block edges): a `none` verdict has no matching row, an `all` verdict
    /// has no failing row, and a histogram count is the exact count.
    static func checkGranules(_ store: Store, filters: [Filter]) throws {
        for e in store.manifest.partitions {
            let r = store.reader(e)
            let d = try r.directory()
            let rows = try r.readAll()
            let quakes = (0..<rows.count).map { Quake(batch: rows, row: $0) }
            for f in filters {
                let hits = try quakes.map { try Naive.matches(f, $0) }
                var start = 0
                for (k, size) in d.blockSizes.enumerated() {
                    defer { start += size }
                    for g in (start / GranuleIndex.granuleRows)...((start + size - 1) / GranuleIndex.granuleRows) {
                        let gr = d.granules.range(g)
                        let cut = Swift.max(gr.lowerBound, start)..<Swift.min(gr.upperBound, start + size)
                        let z = try r.zoneMap(granule: g, block: k)
                        switch try z.verdict(f) {
                        case .none: #expect(!cut.contains { hits[$0] }, "\(e.key) granule \(g) \(f): none")
                        case .all: #expect(cut.allSatisfy { hits[$0] }, "\(e.key) granule \(g) \(f): all")
                        case .some: break
                        }
                        if cut == gr, let n = try z.histogramCount(f, index: d.granules, granule: g) {
                            #expect(n == gr.filter { hits[$0] }.count, "\(e.key) granule \(g) \(f): histogram")
                        }
                    }
                }
            }
        }
    }

    @Test func granuleVerdictsAndHistogramCountsAgreeWithAFullScan() throws {
        let f = Fixtures.large
        var rng = SplitMix64(seed: 11)
        var filters: [Filter] = (0..<40).map { _ in QueryEngineTests.randomFilter(f.quakes, &rng) }
        for m in [0.0, 2.5, 4.5, 6.0] {
            filters.append(.numberRange(.mag, lower: .init(m), upper: nil))
            filters.append(.and([.numberRange(.mag, lower: .init(m, inclusive: false), upper: .init(m + 1)),
                                 .timeRange(.time, lower: f.quakes[100].timeMilliseconds, upper: nil)]))
        }
        try Self.checkGranules(f.store, filters: filters)
    }

    static func csvField(_ s: String?) -> String {
        guard let s else { return "" }
        return s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    @Test func indexesStayExactAfterUpsertsThatMoveEventsAndChangeMagAndPlace() throws {
        let dir = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 24000)
        o.firstYear = 2022; o.lastYear = 2023; o.seed = 5
        _ = try FeedGenerator.generate(o, into: dir + "/gen")
        let s = try Store.openOrCreate(path: dir + "/store", partitioning: .year, blockRows: 8192)
        try s.load([dir + "/gen"])
        let before = try TestSupport.allRows(s)
        var rng = SplitMix64(seed: 12)
        var lines = ["time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"]
        var changed = Set<String>()
        for _ in 0..<400 {
            let q = Quake(batch: before, row: Int(rng.next() % UInt64(before.count)))
            if !changed.insert(q.id).inserted { continue }
            let shift = (Int64(rng.next() % 800) - 400) * 86_400_000
            let time = Timestamp.string(q.timeMilliseconds + shift)
            let updated = Timestamp.string(Int64((q.updated ?? q.time).timeIntervalSince1970 * 1000) + 86_400_000)
            let mag = rng.next() % 7 == 0 ? "" : String(Double(rng.next() % 90) / 10)
            let place = "\(rng.next() % 200) km NE of Testville, \(["Japan", "Chile", "Tonga"][Int(rng.next() % 3)])"
            lines.append([time, "\(q.latitude)", "\(q.longitude)", q.depth.map { "\($0)" } ?? "", mag, q.magType ?? "",
                          "", "", "", "", q.net ?? "", q.id, updated, Self.csvField(place), q.type ?? ""].joined(separator: ","))
        }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir + "/update.csv")
        let r = try s.load([dir + "/update.csv"])
        #expect(r.updated == changed.count)
        _ = try s.verify()
        let after = try TestSupport.allRows(s)
        let quakes = (0..<after.count).map { Quake(batch: after, row: $0) }
        #expect(quakes.filter { $0.place?.contains("Testville") == true }.count == changed.count)
        let loaded = Fixtures.Loaded(store: s, quakes: quakes)
        try QueryEngineTests.check(loaded, iterations: 120, seed: 4)
        var filters: [Filter] = [.contains(.place, "Testville", insensitive: false), .contains(.place, "testville, japan", insensitive: true)]
        for m in [1.0, 4.5, 8.0] { filters.append(.numberRange(.mag, lower: .init(m), upper: nil)) }
        try Self.checkGranules(s, filters: filters)
        for f in filters {
            #expect(try s.count(f) == quakes.filter { (try? Naive.matches(f, $0)) == true }.count, "\(f)")
            for key in [SortKey(.mag, ascending: false), SortKey(.mag, ascending: true), SortKey(.depth, ascending: false)] {
                let spec = QuerySpec(filter: f, sort: [key], limit: 25, offset: 3)
                #expect(try s.query(spec, columns: [.id]).ids == (try Naive.query(quakes, spec).map(\.id)), "\(f) \(key)")
            }
        }
    }
}
