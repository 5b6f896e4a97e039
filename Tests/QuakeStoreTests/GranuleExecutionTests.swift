import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// The access paths of the execution against full scans and the naive reference: selections,
/// granule verdicts and histogram counts, and queries over partitions of many granules, before
/// and after upserts that move events and change their mag and place.
@Suite struct GranuleExecutionTests {
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
