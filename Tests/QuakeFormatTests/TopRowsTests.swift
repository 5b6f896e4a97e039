import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The magnitude projection (``TopRows``): exactly the stored rows of magnitude at least its
/// threshold, kept so through loads that add partitions, rewrite some and keep others, and
/// upserts that move events and change their magnitude and place; a top-N by magnitude that it
/// answers alone gives the naive answer, and one it cannot answer falls back to the partitions.
@Suite struct TopRowsTests {
    /// The projection holds the naive set of strong rows, column for column (`verify`), and
    /// within its capacity; with `least`, its threshold is the least that keeps it there.
    @discardableResult
    static func checkProjection(_ s: Store, _ quakes: [Quake], least: Bool) throws -> TopRows {
        let t = try #require(s.manifest.top)
        let strong = quakes.filter { ($0.magnitude ?? -.infinity) >= t.threshold }
        #expect(t.rows == strong.count)
        let stored = try PartitionReader(storePath: s.path, entry: t.entry).readAll()
        #expect(stored.quakes.map(\.id) == strong.sorted { ($0.timeMilliseconds, $0.id) < ($1.timeMilliseconds, $1.id) }
            .map(\.id))
        let capacity = TopRows.capacity(rows: s.manifest.rows)
        let mags = quakes.compactMap(\.magnitude)
        if strong.count > capacity {
            #expect(t.threshold == mags.max(), "only a single magnitude may pass the capacity")
        } else if least, let weaker = mags.filter({ $0 < t.threshold }).max() {
            #expect(quakes.filter { ($0.magnitude ?? -.infinity) >= weaker }.count > capacity)
        }
        _ = try s.verify()
        return t
    }

    /// Top-N by magnitude both ways, on filters with and without a place term, equals the naive
    /// query; returns how many the projection answered alone.
    static func checkQueries(_ s: Store, _ quakes: [Quake]) throws -> Int {
        let mid = quakes.map(\.timeMilliseconds).sorted()[quakes.count / 2]
        var filters: [Filter] = CatalogPlacesTests.needles.map { .contains(.place, $0.0, insensitive: $0.1) }
        filters += [.all, .numberRange(.depth, lower: .init(30, inclusive: true), upper: nil),
                    .timeRange(.time, lower: mid, upper: nil),
                    .and([.contains(.place, "Japan", insensitive: false), .timeRange(.time, lower: nil, upper: mid)]),
                    .numberRange(.mag, lower: nil, upper: .init(6, inclusive: false))]
        var answered = 0
        for f in filters {
            for (limit, offset) in [(1, 0), (10, 0), (100, 0), (40, 7), (2000, 0)] {
                for asc in [false, true] {
                    let spec = QuerySpec(filter: f, sort: [SortKey(.mag, ascending: asc)], limit: limit, offset: offset)
                    let r = try s.query(spec, columns: [.id, .mag, .place])
                    #expect(r.ids == (try Naive.query(quakes, spec).map(\.id)), "\(f) asc \(asc) limit \(limit)")
                    if r.stats.strategy.contains("magnitude projection") {
                        answered += 1
                        #expect(!asc)
                    }
                }
            }
        }
        return answered
    }

    @Test func theProjectionHoldsTheStrongRowsAndAnswersLikeTheNaiveQueryThroughUpserts() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 43)
        var quakes = try TestSupport.allRows(s).quakes
        let first = try Self.checkProjection(s, quakes, least: true)
        #expect(try Self.checkQueries(s, quakes) > 20)

        // upserts move events across partitions and change their magnitudes (some to none, some
        // above the threshold) and places; partitions the load does not touch keep their files
        // (events of 2021 only, moved by up to 300 days: the partitions of 2023 are kept)
        let y2021 = quakes.filter { $0.timeMilliseconds < Timestamp.parse("2022-01-01T00:00:00Z")! }
        let seen = TestSupport.writeUpserts(of: y2021, picks: 400, seed: 17, to: dir + "/update.csv") { q, rng in
            let mag = rng.next() % 3 == 0 ? String(format: "%.1f", 7 + Double(rng.next() % 25) / 10)
                : TestSupport.upsertMag(&rng)
            let place = rng.next() % 2 == 0 ? "\"9 km W of Zyzzyva, Japan\"" : "\"" + (q.place ?? "") + "\""
            return UpsertFields(mag: mag, place: place)
        }
        let before = Set(s.manifest.partitions.map(\.file))
        #expect(try s.load([dir + "/update.csv"]).updated == seen.count)
        #expect(!before.isDisjoint(with: s.manifest.partitions.map(\.file)), "some partitions are kept")
        quakes = try TestSupport.allRows(s).quakes
        let second = try Self.checkProjection(s, quakes, least: false)
        #expect(second.file != first.file && second.threshold >= first.threshold)
        let retired = "partitions/" + first.file
        #expect(!FileIO.exists(s.path + "/" + retired) || s.manifest.retired.contains(retired))
        #expect(try Self.checkQueries(s, quakes) > 20)

        // a load of new events in new months and old ones: kept, rewritten and new partitions
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2023; o.lastYear = 2024; o.seed = 99
        _ = try FeedGenerator.generate(o, into: dir + "/more")
        let files = Set(s.manifest.partitions.map(\.file))
        try s.load([dir + "/more"])
        #expect(!files.isDisjoint(with: s.manifest.partitions.map(\.file)), "some partitions are kept")
        quakes = try TestSupport.allRows(s).quakes
        try Self.checkProjection(s, quakes, least: false)
        #expect(try Self.checkQueries(s, quakes) > 20)
    }

    /// A commit that changes only rows under the threshold keeps the projection's file; one that
    /// changes a row at the top writes a new one. Both stay the naive set of strong rows.
    @Test func aSmallCommitUnderTheThresholdKeepsTheProjectionsFile() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 47)
        var quakes = try TestSupport.allRows(s).quakes
        let first = try Self.checkProjection(s, quakes, least: true)
        let weak = quakes.filter { ($0.magnitude ?? 0) < first.threshold - 1 }
        let seenWeak = TestSupport.writeUpserts(of: weak, picks: 5, seed: 71, to: dir + "/weak.csv") { _, _ in
            UpsertFields(mag: "0.5")
        }
        #expect(try s.load([dir + "/weak.csv"]).updated == seenWeak.count)
        quakes = try TestSupport.allRows(s).quakes
        let second = try Self.checkProjection(s, quakes, least: false)
        #expect(second.file == first.file, "the rows at the top did not change")
        #expect(try Self.checkQueries(s, quakes) > 20)

        let strong = quakes.filter { ($0.magnitude ?? -.infinity) >= first.threshold }
        let seenStrong = TestSupport.writeUpserts(of: strong, picks: 2, seed: 72, to: dir + "/strong.csv") { q, _ in
            UpsertFields(mag: String(format: "%.2f", (q.magnitude ?? 0) + 0.01))
        }
        #expect(try s.load([dir + "/strong.csv"]).updated == seenStrong.count)
        quakes = try TestSupport.allRows(s).quakes
        let third = try Self.checkProjection(s, quakes, least: false)
        #expect(third.file != first.file)
        #expect(try Self.checkQueries(s, quakes) > 20)
    }

    /// A store that grows past the size for a projection across loads gets one from the load
    /// that takes it there (its kept partitions' few rows read whole): the naive set of strong
    /// rows, answering top-N like the naive query.
    @Test func aStoreGrowingPastTheSizeForOneGetsOne() throws {
        let dir = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: dir + "/s", partitioning: .month)
        for (year, rows, seed) in [(2021, 3000, UInt64(48)), (2022, 4000, UInt64(49))] {
            var o = GeneratorOptions(rows: rows)
            o.firstYear = year
            o.lastYear = year
            o.seed = seed
            _ = try FeedGenerator.generate(o, into: dir + "/feed-\(year)")
            let summary = try s.load([dir + "/feed-\(year)"])
            #expect(summary.projection == (year == 2021 ? .none : .rebuilt))
        }
        #expect(s.manifest.rows >= TopRows.minimumStoreRows && s.manifest.top != nil)
        let quakes = try TestSupport.allRows(s).quakes
        try Self.checkProjection(s, quakes, least: true)
        #expect(try Self.checkQueries(s, quakes) > 20)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func theProjectionOnRealFeeds() throws {
        let loaded = try #require(Fixtures.real)
        try Self.checkProjection(loaded.store, loaded.quakes, least: true)
        #expect(try Self.checkQueries(loaded.store, loaded.quakes) > 0)
    }

    /// The rows per magnitude the threshold is chosen from, against a dictionary updated row by
    /// row: negative, zero and large values, one value at several scales (`2.5`, `2.50`), nulls.
    @Test func magnitudeCountsAgreeWithOneUpdatePerRow() throws {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            let count = [0, 1, 5, 255, 256, 3_000, 20_000][trial % 7]
            let mags = (0..<count).map { _ -> Int64 in
                if Int.random(in: 0..<20, using: &generator) == 0 { return RowBatch.null }
                // tenths of a magnitude at one, two or three decimals
                let scale = Int64.random(in: 1...3, using: &generator)
                var mantissa = Int64.random(in: -150...950, using: &generator)
                for _ in 1..<scale { mantissa *= 10 }
                return mantissa << 6 | scale
            }
            var naive: [Double: Int] = [:]
            for mag in mags where mag != RowBatch.null { naive[ScaledDecimal.double(mag) + 0.0, default: 0] += 1 }
            #expect(TopRowsCollector.counts(mags) == naive, "trial \(trial)")
        }
    }

    @Test func aSmallStoreHasNoProjectionAndQueriesTheNaiveAnswer() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: TopRows.minimumStoreRows - 1, years: 2022...2022, seed: 3)
        #expect(s.manifest.top == nil)
        #expect(try Self.checkQueries(s, try TestSupport.allRows(s).quakes) == 0)
    }

    @Test func aDamagedProjectionIsAnErrorUntilRepaired() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 8000, years: 2022...2022, seed: 5)
        let spec = QuerySpec(filter: .contains(.place, "Japan", insensitive: false),
                             sort: [SortKey(.mag, ascending: false)], limit: 5)
        let right = try s.query(spec)
        #expect(right.stats.strategy.contains("magnitude projection"))
        let t = try #require(s.manifest.top)
        let file = dir + "/store/partitions/" + t.file
        var bytes = try FileIO.readFile(file)
        // the middle of the magnitude chunk, which every top-N by magnitude reads
        let mag = try #require(try PartitionReader(storePath: s.path, entry: t.entry).blocks(.mag).first)
        bytes[mag.offset + mag.length / 2] ^= 0x10
        TestSupport.write(bytes, to: file)
        let fresh = try Store(path: dir + "/store")
        #expect { _ = try fresh.query(spec) } throws: { "\($0)".contains(file) }
        #expect(throws: QuakeError.self) { _ = try fresh.verify() }
        #expect(try Store.repair(path: dir + "/store").catalogOnly)
        let repaired = try Store(path: dir + "/store")
        let again = try repaired.query(spec)
        #expect(again.ids == right.ids && again.stats.strategy.contains("magnitude projection"))
        try Self.checkProjection(repaired, try TestSupport.allRows(repaired).quakes, least: true)
        #expect(throws: (any Error).self) { _ = try Store.repair(path: dir + "/store") }
    }

    /// A byte flipped in the projection's place index or unit aggregates (regions a reader of
    /// whole rows never reads): `verify` names the file, a commit that would keep the file drops
    /// it instead (`missing`), and `repair` rebuilds it; queries give the naive answer throughout.
    @Test(arguments: ["place index", "unit aggregates"])
    func aDamagedProjectionIndexIsFoundByVerifyAndRepair(region: String) throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 11)
        let quakes = try TestSupport.allRows(s).quakes
        let t = try #require(s.manifest.top)
        let directory = try PartitionReader(storePath: s.path, entry: t.entry).directory()
        let damaged = try #require(region == "place index" ? directory.placeIndex : directory.aggregates)
        let file = dir + "/store/partitions/" + t.file
        var bytes = try FileIO.readFile(file)
        bytes[damaged.offset + damaged.length / 3] ^= 0x5A
        TestSupport.write(bytes, to: file)
        let fresh = try Store(path: dir + "/store")
        #expect { _ = try fresh.verify() } throws: { "\($0)".contains("partitions/" + t.file) }
        // a commit of weak rows only would keep the file: it drops the damaged one instead
        let weak = quakes.filter { ($0.magnitude ?? 0) < t.threshold - 1 }
        let seen = TestSupport.writeUpserts(of: weak, picks: 3, seed: 91, to: dir + "/weak.csv") { _, _ in
            UpsertFields(mag: "0.4")
        }
        let loaded = try fresh.load([dir + "/weak.csv"])
        #expect(loaded.updated == seen.count)
        #expect(loaded.projection == .missing)
        let after = try Store(path: dir + "/store")
        #expect(after.manifest.top == nil)
        let now = try TestSupport.allRows(after).quakes
        #expect(try Self.checkQueries(after, now) == 0)
        #expect(try Store.repair(path: dir + "/store").rebuiltProjection)
        let repaired = try Store(path: dir + "/store")
        try Self.checkProjection(repaired, now, least: true)
        #expect(try Self.checkQueries(repaired, now) > 20)
    }

    /// The same damage found by `repair` alone, before any commit: it rebuilds the projection.
    @Test func repairRebuildsAProjectionWhoseIndexIsDamaged() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 12)
        let t = try #require(s.manifest.top)
        let directory = try PartitionReader(storePath: s.path, entry: t.entry).directory()
        let damaged = try #require(directory.placeIndex)
        let file = dir + "/store/partitions/" + t.file
        var bytes = try FileIO.readFile(file)
        bytes[damaged.offset + damaged.length / 2] ^= 0x5A
        TestSupport.write(bytes, to: file)
        #expect(try Store.repair(path: dir + "/store").rebuiltProjection)
        let repaired = try Store(path: dir + "/store")
        _ = try repaired.verify()
        try Self.checkProjection(repaired, try TestSupport.allRows(repaired).quakes, least: true)
    }

    /// A commit that rewrites partitions without rebuilding the projection drops it: a reader
    /// never takes it for partitions it was not built from.
    @Test func aProjectionOfOtherPartitionsIsDropped() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 8000, years: 2022...2022, seed: 7)
        var m = s.manifest
        let t = try #require(m.top)
        m.partitions.removeLast()
        m.rows = m.partitions.reduce(0) { $0 + $1.rows }
        m.generation += 1
        let committed = try Store.commit(m, storePath: s.path)
        #expect(committed.top == nil && committed.retired.contains("partitions/" + t.file))
        var stale = m
        stale.top = t
        #expect(QueryExecutor(store: s, snapshot: stale).topRows == nil)
        #expect(QueryExecutor(store: s, snapshot: s.manifest).topRows == t)
    }
}
