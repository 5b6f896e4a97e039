import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Split decimal chunks (``ForDecimalCodec/split``): mixed-scale columns are split, decode to
/// exactly what was written, and range selection, whole and among rows, equals
/// decode-then-compare, above all for bounds on the edge quotients; on real feeds, boxes whose
/// sides are the stored latitudes and longitudes count what the naive reference counts.
@Suite struct SplitDecimalTests {
    static func dec(_ s: String) -> Int64 {
        var t = s
        return (try? t.withUTF8 { try ScaledDecimal.parse(UnsafeRawBufferPointer($0)) }) ?? RowBatch.null
    }

    /// Latitudes with 4 or 7 decimals (as USGS networks write them), depths with 1 to 9, and
    /// magnitudes with 1 or 2, with nulls and `-0.0`.
    static func columns(_ rng: inout SplitMix64) -> [(String, [Int64])] {
        func text(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
        var out: [(String, [Int64])] = []
        out.append(("latitudes", (0..<70_000).map { i in
            if i % 97 == 5 { return RowBatch.null }
            if i % 1001 == 7 { return dec("-0.0") }
            let x = Double(Int64(rng.next() % 1_800_000_000) - 900_000_000) / 1e7
            return dec(text(x, rng.next() % 5 < 3 ? 4 : 7))
        }))
        out.append(("depths", (0..<9000).map { _ in
            let x = Double(rng.next() % 70_000_000) / 1e5
            return dec(text(x, 1 + Int(rng.next() % 9)))
        }))
        out.append(("magnitudes", (0..<5000).map { _ in
            dec(text(Double(rng.next() % 900) / 100 - 1, 1 + Int(rng.next() % 2)))
        }))
        // errors crowded about 0.1 with 2 to 4 decimals: a bound there puts thousands of rows on
        // an edge quotient (a 10 M-row store's magError took 10 s before they were read at once)
        out.append(("crowded errors", (0..<20_000).map { _ in
            dec(text(0.09 + Double(rng.next() % 300) / 10_000, 2 + Int(rng.next() % 3)))
        }))
        return out
    }

    @Test func mixedScaleChunksSplitAndMatchTheReference() throws {
        var rng = SplitMix64(seed: 4242)
        for (name, v) in Self.columns(&rng) {
            var out: [UInt8] = []
            _ = ForDecimalCodec.encode(v, rows: 0..<v.count, into: &out)
            #expect(out[0] & ForDecimalCodec.split != 0, "\(name) is not split")
            #expect(out[0] & ForDecimalCodec.exactDoubles != 0, "\(name): not exact doubles")
            var whole: [UInt8] = []
            _ = ForDecimalCodec.encode(v, rows: 0..<v.count, splitting: false, into: &whole)
            #expect(out.count < whole.count, "\(name): \(out.count) bytes split, \(whole.count) not")
            #expect(ForDecimalCodec.analyze(v, rows: 0..<v.count) >= out.count - 8)
            try ColumnCodecTests().checkInts(ForDecimalCodec.self, name, v, &rng)
            let want = v.map { $0 == RowBatch.null ? Double.nan : ScaledDecimal.double($0) }
            try out.withStoreBytes { (chunk) throws(QuakeError) in
                // bounds on stored values (the edge quotients), a step beside them, and round ones
                var bounds: [Double] = [0, -0.0, 1, 2.5, 10, -45.5]
                for _ in 0..<30 {
                    let x = want[Int(rng.next() % UInt64(want.count))]
                    if x.isNaN { continue }
                    bounds += [x, x.nextUp, x.nextDown, x + 1e-7, x - 1e-4]
                }
                var checked = 0
                for _ in 0..<150 {
                    let lo = bounds[Int(rng.next() % UInt64(bounds.count))]
                    let hi = Swift.max(lo, bounds[Int(rng.next() % UInt64(bounds.count))])
                    let lower = rng.next() % 6 == 0 ? nil : Filter.Bound(lo, inclusive: rng.next() % 2 == 0)
                    let upper = rng.next() % 6 == 0 ? nil : Filter.Bound(hi, inclusive: rng.next() % 2 == 0)
                    let p = RangePredicate.number(lower: lower, upper: upper)
                    let r = [0..<v.count, 1000..<5000, 1023..<1025, 3..<v.count - 3][Int(rng.next() % 4)]
                    var sel: [UInt32] = []
                    guard try ForDecimalCodec.select(chunk, count: v.count, rows: r, p, into: &sel) else {
                        Issue.record("\(name): a split chunk of exact doubles declined \(p)")
                        continue
                    }
                    #expect(sel == r.filter { p.contains(want[$0]) }.map { UInt32($0) }, "\(name) \(p) rows \(r)")
                    let among = r.filter { _ in rng.next() % 3 == 0 }.map { UInt32($0) }
                    var some: [UInt32] = []
                    #expect(try ForDecimalCodec.select(chunk, count: v.count, among: among, p, into: &some))
                    #expect(some == among.filter { p.contains(want[Int($0)]) }, "\(name) \(p) among")
                    checked += 1
                }
                #expect(checked == 150)
            }
        }
    }

    /// A damaged split header is an error, never a wrong answer.
    @Test func damagedRemaindersAreErrors() throws {
        var rng = SplitMix64(seed: 9)
        let (_, v) = try #require(Self.columns(&rng).first)
        var out: [UInt8] = []
        _ = ForDecimalCodec.encode(v, rows: 0..<v.count, into: &out)
        // flags, u32 rows, the null bitmap, scale, shift width, shifts, negative zeros, then k
        let bitmap = (v.count + 7) / 8
        let shiftWidth = Int(out[5 + bitmap + 1])
        let negZeros = Int(out[5 + bitmap + 2 + BitPacking.bytes(v.count, width: shiftWidth)])
        let kAt = 5 + bitmap + 2 + BitPacking.bytes(v.count, width: shiftWidth) + 4 + 4 * negZeros
        #expect((1...7).contains(out[kAt]))
        for (offset, value) in [(kAt, UInt8(0)), (kAt, 40), (kAt + 1, 3), (kAt + 6, 0xFF), (kAt + 5, 0x7F)] {
            var bad = out
            bad[offset] = value
            #expect(throws: QuakeError.self) {
                try bad.withStoreBytes { (chunk) throws(QuakeError) in
                    _ = try ForDecimalCodec.decode(chunk, count: v.count, rows: 0..<v.count, as: .stored)
                }
            }
        }
    }

    /// Files of the older magics (`QKPART02`, before split chunks, and `QKPART03`, before
    /// granule sums) still read and verify; an unknown magic
    /// is an error naming the file, never a store read as something else.
    @Test func partitionFilesOfTheOlderMagicReadAndUnknownOnesAreRefused() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 5000, years: 2022...2022, seed: 21)
        let want = try s.query(QuerySpec(filter: .all, sort: [SortKey(.mag, ascending: false)], limit: 50)).ids
        let files = s.manifest.partitions.map { dir + "/store/partitions/" + $0.file }
        for (i, file) in files.enumerated() {
            var bytes = try FileIO.readFile(file)
            #expect(Array(bytes.suffix(8)) == PartitionFile.magic)
            let older = i % 2 == 0 ? PartitionFile.magicBeforeSplit : PartitionFile.magicBeforeGranuleSums
            bytes.replaceSubrange((bytes.count - 8)..., with: older)
            TestSupport.write(bytes, to: file)
        }
        let older = try Store(path: dir + "/store")
        #expect(try older.query(QuerySpec(filter: .all, sort: [SortKey(.mag, ascending: false)], limit: 50)).ids == want)
        _ = try older.verify()
        let first = try #require(files.first)
        var bytes = try FileIO.readFile(first)
        bytes.replaceSubrange((bytes.count - 8)..., with: Array("QKPART05".utf8))
        TestSupport.write(bytes, to: first)
        let newer = try Store(path: dir + "/store")
        let every = QuerySpec(filter: .all, sort: [SortKey(.time, ascending: true)], limit: 10_000)
        #expect { _ = try newer.query(every) } throws: { "\($0)".contains("magic") }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func boxesOnStoredCoordinatesCountWhatTheReferenceCounts() throws {
        let f = try #require(Fixtures.real, "real feeds present but not loaded")
        var rng = SplitMix64(seed: 31)
        var checked = 0
        for _ in 0..<40 {
            let a = f.quakes[Int(rng.next() % UInt64(f.quakes.count))]
            let b = f.quakes[Int(rng.next() % UInt64(f.quakes.count))]
            let filter = Filter.box(minLatitude: Swift.min(a.latitude, b.latitude),
                                    maxLatitude: Swift.max(a.latitude, b.latitude),
                                    minLongitude: Swift.min(a.longitude, b.longitude),
                                    maxLongitude: Swift.max(a.longitude, b.longitude))
            let want = try f.quakes.filter { try Naive.matches(filter, $0) }.count
            #expect(try f.store.count(filter) == want, "\(filter)")
            let depth = Filter.numberRange(.depth, lower: .init(a.depth ?? 0), upper: .init(b.depth ?? 10))
            #expect(try f.store.count(depth) == (try f.quakes.filter { try Naive.matches(depth, $0) }.count), "\(depth)")
            checked += 1
        }
        #expect(checked == 40)
    }
}
