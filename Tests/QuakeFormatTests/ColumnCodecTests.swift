import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// One generic round trip for every v2 codec, over whole chunks and row ranges, plus range
/// selection on encoded values against decode-then-compare.
@Suite struct ColumnCodecTests {
    func checkInts<C: ColumnCodec>(_ codec: C.Type, _ name: String, _ v: [Int64], _ rng: inout SplitMix64) throws where C.Values == [Int64] {
        for rows in [0..<v.count, (v.count / 3)..<v.count] where !rows.isEmpty {
            var out: [UInt8] = [0xEE]   // chunks need not start at offset 0
            let stats = C.encode(v, rows: rows, into: &out)
            #expect(C.analyze(v, rows: rows) >= out.count - 1 - 8 || C.id == .zstdDecimal, "\(C.id) \(name) analyze")
            let slice = Array(v[rows])
            #expect(stats.nulls == slice.filter { $0 == RowBatch.null }.count, "\(C.id) \(name) nulls")
            try out.withStoreBytes { (raw) throws(QuakeError) in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[1...])
                for r in CodecSamples.ranges(slice.count, &rng) {
                    let got = try C.decode(chunk, count: slice.count, rows: r, as: .stored)
                    guard case .ints(let g) = got else { Issue.record("\(name): not ints"); return }
                    #expect(g == Array(slice[r]), "\(C.id) \(name) rows \(r)")
                    if C.id != .forInteger, case .doubles(let d) = try C.decode(chunk, count: slice.count, rows: r, as: .doubles) {
                        let want = slice[r].map { $0 == RowBatch.null ? Double.nan : ScaledDecimal.double($0) }
                        #expect(zip(d, want).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(C.id) \(name) doubles \(r)")
                    }
                }
            }
        }
    }

    @Test func everyCodecRoundTripsWholeChunksAndEveryRowRange() throws {
        var rng = SplitMix64(seed: 2026)
        for (name, v) in CodecSamples.intColumns(&rng) {
            if name.contains("time") || name == "extremes" || name == "all null" { try checkInts(ForIntegerCodec.self, name, v, &rng) }
            if !name.contains("time") {
                try checkInts(ForDecimalCodec.self, name, v, &rng)
                try checkInts(ZstdDecimalCodec.self, name, v, &rng)
            }
        }
        for (name, a) in CodecSamples.textColumns(&rng) {
            func check<C: ColumnCodec>(_ codec: C.Type) throws where C.Values == ByteArena {
                var out: [UInt8] = []
                let stats = C.encode(a, rows: 0..<a.count, into: &out)
                #expect(stats.nulls == (0..<a.count).filter { a.isNull($0) }.count)
                try out.withStoreBytes { (chunk) throws(QuakeError) in
                    for r in CodecSamples.ranges(a.count, &rng) {
                        let got: ByteArena
                        switch try C.decode(chunk, count: a.count, rows: r, as: .stored) {
                        case .category(let b): got = b.arena()
                        case .text(let t): got = t
                        case .place(let p): got = p.arena()
                        default: Issue.record("\(name): wrong vector"); return
                        }
                        #expect(got.count == r.count)
                        for (k, i) in r.enumerated() where got.count == r.count {
                            #expect(got.string(k) == a.string(i), "\(C.id) \(name) row \(i)")
                        }
                    }
                }
            }
            switch name {
            case "category": try check(DictionaryCodec.self)
            case "text": try check(ZstdTextCodec.self)
            default: try check(ZstdPlaceCodec.self)
            }
        }
    }

    /// Every direction, with and without the space before "km", at distances of one to six
    /// digits, is split as a pattern and comes back byte for byte from both place codecs (the
    /// text of a patterned place is rebuilt from a table of directions).
    @Test func everyPlaceDirectionComesBackByteForByte() throws {
        var a = ByteArena()
        for d in PlacePayload.directions {
            for space in ["", " "] {
                for n in [0, 7, 42, 999, 123_456, 999_999] {
                    a.append(Array("\(n)\(space)km \(d) of Ridgecrest, CA".utf8))
                }
            }
        }
        for i in 0..<a.count {
            let split = a.bytes.withUnsafeBytes { PlacePayload.split(UnsafeRawBufferPointer(rebasing: $0[a.range(i)])) }
            #expect(split != nil, "\(a.string(i) ?? "")")
        }
        // place codes with bit-packed frames (written now) and zstd frames (written before)
        var codes: [UInt8] = [], zstdFrames: [UInt8] = [], zstd: [UInt8] = []
        _ = PlaceCodesCodec.encode(a, rows: 0..<a.count, into: &codes)
        _ = PlaceCodesCodec.encode(a, rows: 0..<a.count, frameRows: PlaceCodesCodec.frameRows, packed: false,
                                   into: &zstdFrames)
        _ = ZstdPlaceCodec.encode(a, rows: 0..<a.count, into: &zstd)
        for (id, bytes) in [(CodecID.placeCodes, codes), (.placeCodes, zstdFrames), (.zstdPlace, zstd)] {
            let got: ByteArena = try bytes.withStoreBytes { (chunk) throws(QuakeError) in
                guard case .place(let p) = try id.decode(chunk, count: a.count, rows: 0..<a.count, as: .stored) else {
                    throw .corrupt("not a place vector")
                }
                return p.arena()
            }
            #expect(got == a, "\(id)")
        }
    }

    @Test func rangeSelectionOnEncodedValuesEqualsDecodeThenCompare() throws {
        var rng = SplitMix64(seed: 77)
        var accepted = 0
        let bounds: [Double] = [-0.0, 0, 2.5, 2.49, 4.5, -90, 38.8361667, 1e300, -1e300, 6.1, 0.085599999999999996]
        for (name, v) in CodecSamples.intColumns(&rng) where !name.contains("time") {
            var out: [UInt8] = []
            _ = ForDecimalCodec.encode(v, rows: 0..<v.count, into: &out)
            try out.withStoreBytes { (chunk) throws(QuakeError) in
                let decoded = try ForDecimalCodec.decode(chunk, count: v.count, rows: 0..<v.count, as: .doubles)
                guard case .doubles(let d) = decoded else {
                    Issue.record("\(name): decoded as \(decoded), not doubles")
                    return
                }
                for _ in 0..<40 {
                    let lo = bounds[Int(rng.next() % UInt64(bounds.count))], hi = bounds[Int(rng.next() % UInt64(bounds.count))]
                    let p = RangePredicate.number(lower: rng.next() % 4 == 0 ? nil : Filter.Bound(lo, inclusive: rng.next() % 2 == 0),
                                                  upper: rng.next() % 4 == 0 ? nil : Filter.Bound(hi, inclusive: rng.next() % 2 == 0))
                    for r in CodecSamples.ranges(v.count, &rng).prefix(6) {
                        var sel: [UInt32] = []
                        let want = r.filter { p.contains(d[$0]) }.map { UInt32($0) }
                        if try ForDecimalCodec.select(chunk, count: v.count, rows: r, p, into: &sel) {
                            #expect(sel == want, "\(name) \(p) rows \(r)")
                        } else {
                            // only chunks holding a value whose mantissa at the chunk's scale passes 2^53 may decline
                            #expect(["huge mantissas", "extremes", "mixed scales"].contains(name), "\(name) declined")
                        }
                        // an ascending subset of the range, dense or sparse
                        let every = [2, 5, 20][Int(rng.next() % 3)]
                        let among = r.filter { _ in rng.next() % UInt64(every) == 0 }.map { UInt32($0) }
                        var one: [UInt32] = []
                        if try ForDecimalCodec.select(chunk, count: v.count, among: among, p, into: &one) {
                            #expect(one == among.filter { p.contains(d[Int($0)]) }, "\(name) \(p) among \(among.count)")
                            accepted += 1
                        } else {
                            #expect(one.isEmpty)
                        }
                    }
                }
            }
        }
        #expect(accepted > 100, "reading rows one by one declined almost everywhere")
        // timestamps: sorted (delta-coded miniblocks), with nulls, and the extremes, bounds open or not
        for (name, times) in CodecSamples.intColumns(&rng) where name.contains("time") || name == "extremes" {
            var out: [UInt8] = []
            _ = ForIntegerCodec.encode(times, rows: 0..<times.count, into: &out)
            try out.withStoreBytes { (chunk) throws(QuakeError) in
                for _ in 0..<50 {
                    let pick = times[Int(rng.next() % UInt64(times.count))]
                    let a = pick != RowBatch.null && rng.next() % 2 == 0
                        ? pick : Int64(rng.next() % 4_000_000_000_000) - 1_000_000_000_000
                    let b = a &+ Int64(rng.next() % 500_000_000_000)
                    let edges: [Int64] = [Int64.min, Int64.min + 1, Int64.max, Int64.max - 5]
                    let lo = rng.next() % 5 == 0 ? nil : rng.next() % 6 == 0 ? edges[Int(rng.next() % 4)] : a
                    let hi = rng.next() % 5 == 0 ? nil : rng.next() % 6 == 0 ? edges[Int(rng.next() % 4)] : b
                    let p = RangePredicate.time(lower: lo, upper: hi)
                    let r = times.count > 3000 ? 100..<2900 : 0..<times.count
                    var sel: [UInt32] = []
                    #expect(try ForIntegerCodec.select(chunk, count: times.count, rows: r, p, into: &sel))
                    #expect(sel == r.filter { p.contains(times[$0]) }.map { UInt32($0) }, "\(name) \(p)")
                }
            }
        }
    }

    /// The run of a time range found from the miniblock headers equals a scan of the decoded
    /// times, on sorted times with repeats (runs of one value across miniblock edges) and on
    /// random row ranges; a chunk with nulls declines.
    @Test func aTimeRunFromMiniblockHeadersEqualsAScan() throws {
        var rng = SplitMix64(seed: 91)
        var repeats: [Int64] = []
        var t: Int64 = 1_000_000
        while repeats.count < 6000 {
            let n = 1 + Int(rng.next() % (rng.next() % 8 == 0 ? 1500 : 3))
            repeats += Array(repeating: t, count: n)
            t += Int64(rng.next() % 3)
        }
        let samples = CodecSamples.intColumns(&rng).filter { $0.0.contains("time") } + [("repeats", repeats)]
        var checked = 0
        for (name, times) in samples {
            var out: [UInt8] = []
            _ = ForIntegerCodec.encode(times, rows: 0..<times.count, into: &out)
            let sorted = times == times.sorted() && !times.contains(RowBatch.null)
            let least = times.filter { $0 != RowBatch.null }.min() ?? 0, most = times.max() ?? 0
            try out.withStoreBytes { (chunk) throws(QuakeError) in
                for k in 0..<300 {
                    let a = Int(rng.next() % UInt64(times.count)), b = Int(rng.next() % UInt64(times.count + 1))
                    let rows = k == 0 ? 0..<times.count : Swift.min(a, b)..<Swift.max(a, b)
                    func pick() -> Int64? {
                        switch rng.next() % 6 {
                        case 0: return nil
                        case 1: return times[Int(rng.next() % UInt64(times.count))]
                        case 2: return times[Int(rng.next() % UInt64(times.count))] + 1
                        case 3: return [Int64.min, Int64.max, least &- 1, most &+ 1][Int(rng.next() % 4)]
                        default: return least &+ Int64(rng.next() % UInt64(max(1, most &- least &+ 2)))
                        }
                    }
                    let lo = pick(), hi = pick()
                    let got = try ForIntegerCodec.sortedRun(chunk, count: times.count, rows: rows, lo, hi)
                    guard sorted else {
                        #expect(got == nil, "\(name): a chunk with nulls declines")
                        continue
                    }
                    let want = rows.filter { r in
                        times[r] >= (lo ?? Int64.min) && (hi.map { h in times[r] < h } ?? true)
                    }
                    #expect(got.map(Array.init) == want, "\(name) rows \(rows), \(String(describing: (lo, hi)))")
                    checked += 1
                }
            }
        }
        #expect(checked >= 600)
    }

    @Test func granuleStatisticsAndMagHistogramsAgreeWithAFullScan() throws {
        var o = GeneratorOptions(rows: 20_000)
        o.firstYear = 2021; o.lastYear = 2021
        let d = TestSupport.tempDir()
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        let (s, _, _) = try TestSupport.load([d + "/gen"], partitioning: .year)
        var rng = SplitMix64(seed: 5)
        for e in s.manifest.partitions {
            let r = s.reader(e)
            let g = try r.granules()
            let rows = try r.readAll()
            #expect(g == GranuleIndex(rows))
            #expect(g.hasMagHistogram)
            let mags = rows.ints[Column.mag.rawValue].map { $0 == RowBatch.null ? Double.nan : ScaledDecimal.double($0) }
            for _ in 0..<30 {
                let lo = Double(rng.next() % 80) / 10, hi = lo + Double(rng.next() % 30) / 10
                let p = RangePredicate.number(lower: .init(lo, inclusive: rng.next() % 2 == 0), upper: .init(hi))
                for k in 0..<g.granules {
                    #expect(g.magCount(granule: k, p) == g.range(k).filter { p.contains(mags[$0]) }.count)
                }
            }
            for (slot, c) in GranuleIndex.columns.enumerated() {
                for k in 0..<g.granules {
                    let v = g.range(k).map { rows.ints[c.rawValue][$0] }.filter { $0 != RowBatch.null }
                    #expect(Int(g.stats[slot][k].nulls) == g.range(k).count - v.count)
                    if c == .time, let lo = v.min() { #expect(g.stats[slot][k].min == lo) }
                    if c != .time, let lo = v.map(ScaledDecimal.double).min() { #expect(g.stats[slot][k].minDouble == lo) }
                }
            }
        }
    }

    @Test func aDamagedManifestIsAnErrorNeverAStore() throws {
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2022; o.lastYear = 2023
        let d = TestSupport.tempDir()
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        let (s, _, _) = try TestSupport.load([d + "/gen"])
        let path = s.path + "/" + Manifest.fileName
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try Manifest.read(path: path) == s.manifest)
        for k in 0..<original.count {
            var b = original
            b[k] ^= UInt8(1 << (k % 8))
            TestSupport.write(b, to: path)
            do {
                _ = try Store(path: s.path)
                Issue.record("flipped bit in manifest byte \(k) was accepted")
            } catch {
                #expect(error.description.contains(Manifest.fileName), "\(error)")
            }
        }
        for cut in [0, 8, original.count / 2, original.count - 1] {
            TestSupport.write(Array(original[0..<cut]), to: path)
            #expect(throws: QuakeError.self) { _ = try Store(path: s.path) }
        }
        TestSupport.write(original, to: path)
        #expect(try Store(path: s.path).fetchCount(FetchDescriptor<Quake>()) == s.manifest.rows)
    }
}
