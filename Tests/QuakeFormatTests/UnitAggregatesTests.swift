import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// Unit aggregates: a grouped aggregate folds the units its filter covers whole from the stored
/// per-unit counts, sums and bounds, with the same answer as folding the rows (bit for bit) and
/// as the naive reference, on generated and real data, after upserts, and an error when damaged.
@Suite struct UnitAggregatesTests {
    static let metrics: [Metric] = [.count, .min(.mag), .max(.mag), .avg(.mag), .sum(.depth), .max(.depth),
                                    .min(.latitude), .avg(.longitude)]

    static func cases(_ m: Manifest) -> [([GroupBy], Filter)] {
        let first = m.partitions.first?.minTime ?? 0, last = m.partitions.last?.maxTime ?? 0
        let inside = Filter.timeRange(.time, lower: first + (last - first) / 7, upper: last - (last - first) / 5)
        return [
            ([.value(.net)], .all), ([.time(.month)], inside), ([.time(.year), .value(.magType)], .all),
            ([.value(.status)], .numberRange(.mag, lower: .init(2.5), upper: nil)), ([.time(.day), .value(.type)], inside),
            ([], .all), ([.time(.week)], .all), ([.value(.net), .time(.month)], inside),
        ]
    }

    /// Every case gives the row path's answer bit for bit and the naive reference's; returns
    /// the units folded from aggregates.
    static func check(_ s: Store, _ quakes: [Quake]) throws -> Int {
        var folded = 0
        for (groups, filter) in cases(s.manifest) {
            let fast = try Aggregator(executor: QueryExecutor(store: s), filter: filter, groups: groups, metrics: metrics)
            let slow = try Aggregator(executor: QueryExecutor(store: s), filter: filter, groups: groups, metrics: metrics)
            slow.usesUnitAggregates = false
            let (rows, stats) = try fast.run()
            let (reference, _) = try slow.run()
            folded += stats.granulesFromStatistics
            #expect(rows.map(\.keys) == reference.map(\.keys), "\(groups)")
            #expect(rows.map { $0.values.map { $0?.bitPattern } } == reference.map { $0.values.map { $0?.bitPattern } },
                    "\(groups) \(filter)")
            var want: [[SortValue]: [Quake]] = [:]
            for q in try quakes.filter({ try Naive.matches(filter, $0) }) {
                let key = groups.map { Naive.groupKey(q, $0) }
                want[key, default: []].append(q)
            }
            #expect(rows.count == want.count, "\(groups)")
            for r in rows {
                let qs = try #require(want[r.keyValues], "\(groups) \(r.keys)")
                let mags = qs.compactMap(\.magnitude), depths = qs.compactMap(\.depth)
                #expect(r.values[0] == Double(qs.count))
                #expect(r.values[1] == mags.min())
                #expect(r.values[2] == mags.max())
                if let a = r.values[3] { #expect(abs(a - mags.reduce(0, +) / Double(mags.count)) < 1e-9) } else { #expect(mags.isEmpty) }
                if let x = r.values[4] { #expect(abs(x - depths.reduce(0, +)) < 1e-6 * max(1, abs(x))) } else { #expect(depths.isEmpty) }
                #expect(r.values[5] == depths.max())
                #expect(r.values[6] == qs.map(\.latitude).min())
                let lon = qs.map(\.longitude).reduce(0, +) / Double(qs.count)
                #expect(abs((r.values[7] ?? .nan) - lon) < 1e-9)
            }
        }
        return folded
    }

    /// Magnitude bins and values folded from the granules' mag histograms: the row path's answer
    /// bit for bit and the naive reference's, with the null group, time keys beside the bin, and
    /// a filter that leaves some granules to their rows.
    static func checkHistograms(_ s: Store, _ quakes: [Quake]) throws -> Int {
        let metrics: [Metric] = [.count, .countValues(.mag), .min(.mag), .max(.mag)]
        var folded = 0
        let first = s.manifest.partitions.first?.minTime ?? 0, last = s.manifest.partitions.last?.maxTime ?? 0
        let inside = Filter.timeRange(.time, lower: first + (last - first) / 7, upper: last - (last - first) / 5)
        let cases: [([GroupBy], Filter)] = [([.bin(.mag, width: 0.5)], .all), ([.bin(.mag, width: 0.01)], .all),
                                            ([.time(.year), .bin(.mag, width: 0.1)], inside),
                                            ([.bin(.mag, width: 1), .time(.month)], .all)]
        for (groups, filter) in cases {
            let fast = try Aggregator(executor: QueryExecutor(store: s), filter: filter, groups: groups, metrics: metrics)
            let slow = try Aggregator(executor: QueryExecutor(store: s), filter: filter, groups: groups, metrics: metrics)
            slow.usesUnitAggregates = false
            let (rows, stats) = try fast.run()
            let (reference, slowStats) = try slow.run()
            folded += stats.unitsFromHistograms
            #expect(slowStats.unitsFromHistograms == 0)
            #expect(rows.map(\.keys) == reference.map(\.keys), "\(groups)")
            #expect(rows.map { $0.values.map { $0?.bitPattern } } == reference.map { $0.values.map { $0?.bitPattern } },
                    "\(groups) \(filter)")
            var want: [[SortValue]: [Quake]] = [:]
            for quake in try quakes.filter({ try Naive.matches(filter, $0) }) {
                want[groups.map { Naive.groupKey(quake, $0) }, default: []].append(quake)
            }
            #expect(rows.count == want.count, "\(groups)")
            for row in rows {
                let group = try #require(want[row.keyValues], "\(groups) \(row.keys)")
                let mags = group.compactMap(\.magnitude)
                #expect(row.values == [Double(group.count), Double(mags.count), mags.min(), mags.max()], "\(row.keys)")
            }
        }
        return folded
    }

    /// Sums, averages and deviations do not depend on which worker folded which partition: the
    /// same question gives the same bits every time (a user saw 4 answers in 12 runs).
    @Test func floatingSumsGiveTheSameBitsEveryRun() throws {
        let loaded = Fixtures.real ?? Fixtures.generated
        let metrics: [Metric] = [.avg(.mag), .sum(.depth), .stddev(.depth), .count]
        for groups in [[GroupBy](), [.value(.net)], [.value(.place)]] {
            var answers: Set<[UInt64?]> = []
            for _ in 0..<8 {
                let (rows, _) = try loaded.store.aggregate(.all, by: groups, metrics: metrics)
                answers.insert(rows.flatMap { $0.values.map { $0?.bitPattern } })
            }
            #expect(answers.count == 1, "\(groups): \(answers.count) different answers in 8 runs")
        }
    }

    /// Equal values spread over several partitions have a deviation of exactly 0: merging a
    /// group into a table that lacks it copies its moments rather than recomputing the mean.
    @Test func equalValuesAcrossPartitionsDeviateByExactlyZero() throws {
        let dir = TestSupport.tempDir()
        var lines = ["time,latitude,longitude,depth,mag,net,id,updated,type"]
        for index in 0..<90 {
            let month = 1 + index % 3
            lines.append("2014-0\(month)-1\(index % 9)T00:00:0\(index % 10).000Z,34,-117,0.01,1.\(index % 10),ci,"
                         + "ci\(index),2014-06-01T00:00:00.000Z,quarry blast")
        }
        try lines.joined(separator: "\n").appending("\n").write(toFile: dir + "/blasts.csv", atomically: true,
                                                               encoding: .utf8)
        let store = try Store.openOrCreate(path: dir + "/store")
        try store.load([dir + "/blasts.csv"])
        #expect(store.manifest.partitions.count == 3)
        let (rows, _) = try store.aggregate(.all, by: [.value(.net)], metrics: [.stddev(.depth), .count])
        #expect(rows.count == 1 && rows.first?.values == [0, 90], "\(rows.map(\.values))")
    }

    @Test func magnitudeBinsFromHistogramsEqualTheRowsAndTheNaiveReference() throws {
        let loaded = Fixtures.generated
        #expect(try Self.checkHistograms(loaded.store, loaded.quakes) > 20)
        if let real = Fixtures.real { #expect(try Self.checkHistograms(real.store, real.quakes) > 20) }
    }

    @Test func aggregatesFromUnitsEqualTheRowsAndTheNaiveReference() throws {
        let loaded = Fixtures.generated
        #expect(try loaded.store.reader(loaded.store.manifest.partitions[0]).unitAggregates(group: 0) != nil)
        #expect(try Self.check(loaded.store, loaded.quakes) > 20)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aggregatesFromUnitsEqualTheNaiveReferenceOnRealFeeds() throws {
        let loaded = try #require(Fixtures.real)
        #expect(try Self.check(loaded.store, loaded.quakes) > 20)
    }

    @Test func aggregatesStayExactAfterUpsertsThatMoveEventsAndChangeMagAndNet() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 41)
        var quakes = try TestSupport.allRows(s).quakes
        #expect(try Self.check(s, quakes) > 20)
        let seen = TestSupport.writeUpserts(of: quakes, picks: 600, seed: 17, to: dir + "/update.csv") { _, rng in
            let mag = TestSupport.upsertMag(&rng)
            let depth = rng.next() % 5 == 0 ? "" : String(Double(rng.next() % 7000) / 100)
            let net = ["us", "ak", "zz", ""][Int(rng.next() % 4)]
            return UpsertFields(depth: depth, mag: mag, magType: "ml", net: net, type: "earthquake")
        }
        #expect(try s.load([dir + "/update.csv"]).updated == seen.count)
        _ = try s.verify()
        quakes = try TestSupport.allRows(s).quakes
        #expect(quakes.contains { $0.net == "zz" })
        #expect(try Self.check(s, quakes) > 20)
    }

    @Test func damagedUnitAggregatesAreAnErrorNeverAWrongAnswer() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 6000, years: 2022...2022, seed: 9)
        let e = s.manifest.partitions[0]
        let region = try #require(try s.reader(e).directory().aggregates)
        let file = dir + "/store/partitions/" + e.file
        var bytes = try FileIO.readFile(file)
        bytes[region.offset + region.length - 5] ^= 0x10
        TestSupport.write(bytes, to: file)
        let fresh = try Store(path: dir + "/store")
        #expect { _ = try fresh.aggregate(by: [.value(.net)], metrics: [.count, .avg(.mag)]) } throws: {
            "\($0)".contains(e.file) && "\($0)".contains("unit aggregates")
        }
        #expect(throws: QuakeError.self) { _ = try fresh.verify() }
    }
}

