import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The store catalog: magnitude counts over whole partitions from two rows of one file, equal
/// to the naive count on generated and real data, after upserts, and an error when damaged.
@Suite struct CatalogTests {
    /// Time bounds on partition edges (so the catalog answers) and inside partitions (so the
    /// partitions at the edges are read), with mag ranges of every bound kind.
    static func filters(_ m: Manifest, seed: UInt64) -> [Filter] {
        var rng = SplitMix64(seed: seed)
        let edges = m.partitions.map { m.partitioning.span($0.minTime).start } + [m.partitioning.span(m.partitions.last!.maxTime).end]
        let mags: [(Filter.Bound?, Filter.Bound?)] = [
            (.init(4.5), nil), (.init(2.5, inclusive: false), .init(4.0)), (nil, .init(1.0, inclusive: false)),
            (.init(3.0), .init(3.0)), (.init(-0.0), .init(0.5)), (.init(9.9), nil),
        ]
        var out: [Filter] = []
        for (lo, hi) in mags { out.append(.numberRange(.mag, lower: lo, upper: hi)) }
        for _ in 0..<40 {
            let a = Int(rng.next() % UInt64(edges.count)), b = Int(rng.next() % UInt64(edges.count))
            var lo = edges[min(a, b)], hi = edges[max(a, b)]
            if rng.next() % 3 == 0 { lo += Int64(rng.next() % 20) * 86_400_000 }
            if rng.next() % 3 == 0 { hi -= Int64(rng.next() % 20) * 86_400_000 }
            let (ml, mh) = mags[Int(rng.next() % UInt64(mags.count))]
            out.append(.and([.timeRange(.time, lower: lo, upper: hi), .numberRange(.mag, lower: ml, upper: mh)]))
            if rng.next() % 4 == 0 { out.append(.timeRange(.time, lower: lo, upper: hi)) }
        }
        return out
    }

    /// Every filter counts as the naive reference does; returns how many the catalog answered.
    static func check(_ s: Store, _ quakes: [Quake], seed: UInt64) throws -> Int {
        var fromCatalog = 0
        for f in filters(s.manifest, seed: seed) {
            let (n, stats) = try s.explainCount(f)
            #expect(n == quakes.filter { (try? Naive.matches(f, $0)) == true }.count, "\(f)")
            if stats.strategy.contains("store catalog") { fromCatalog += 1 }
        }
        return fromCatalog
    }

    /// A store under `dir` of `rows` generated events (month partitions of 4,096-row blocks unless told).
    static func generatedStore(_ dir: String, rows: Int, years: ClosedRange<Int>, seed: UInt64,
                               partitioning: Partitioning = .month, blockRows: Int = 4096) throws -> Store {
        var o = GeneratorOptions(rows: rows)
        o.firstYear = years.lowerBound; o.lastYear = years.upperBound; o.seed = seed
        _ = try FeedGenerator.generate(o, into: dir + "/gen")
        let s = try Store.openOrCreate(path: dir + "/store", partitioning: partitioning, blockRows: blockRows)
        try s.load([dir + "/gen"])
        return s
    }

    @Test func catalogCountsEqualTheNaiveCountBeforeAndAfterUpserts() throws {
        let dir = TestSupport.tempDir()
        let s = try Self.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 31)
        let first = try #require(s.manifest.catalog)
        var quakes = try TestSupport.allRows(s).quakes
        #expect(try Self.check(s, quakes, seed: 1) > 20)

        // move events across partitions and change their magnitudes (some to none)
        let seen = TestSupport.writeUpserts(of: quakes, picks: 500, seed: 8, to: dir + "/update.csv") { _, rng in
            UpsertFields(mag: TestSupport.upsertMag(&rng))
        }
        #expect(try s.load([dir + "/update.csv"]).updated == seen.count)
        let second = try #require(s.manifest.catalog)
        #expect(second != first)
        #expect(s.manifest.retired.contains("partitions/" + first))
        _ = try s.verify()
        quakes = try TestSupport.allRows(s).quakes
        #expect(try Self.check(s, quakes, seed: 2) > 20)
    }

    /// The catalog a commit writes from the old one's rows (opening only the partitions it wrote),
    /// or the delta it lays over it, reads as the one built by opening every partition; an old
    /// catalog damaged in a row or missing is passed over, and the partitions are opened instead.
    @Test func aSmallCommitsCatalogEqualsOneBuiltFromEveryPartition() throws {
        let dir = TestSupport.tempDir()
        let s = try Self.generatedStore(dir, rows: 12000, years: 2021...2023, seed: 41)
        var quakes = try TestSupport.allRows(s).quakes
        for step in 0..<3 {
            let picks = [1, 40, 3][step]
            let seen = TestSupport.writeUpserts(of: quakes, picks: picks, seed: UInt64(50 + step),
                                                to: dir + "/update\(step).csv") { _, rng in
                UpsertFields(mag: TestSupport.upsertMag(&rng))
            }
            if step == 2 {
                // damage one row of the catalog the commit starts from (past the header the manifest sums)
                let old = dir + "/store/partitions/" + (try #require(s.manifest.catalog))
                var bytes = try FileIO.readFile(old)
                bytes[bytes.count - 20] ^= 0x10
                TestSupport.write(bytes, to: old)
            }
            #expect(try s.load([dir + "/update\(step).csv"]).updated == seen.count)
            // a damaged catalog is not carried forward under a delta: it is written whole
            if step == 2 { #expect(s.manifest.catalogDelta == nil) }
            try CatalogDeltaTests.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole-\(step).qkc")
            _ = try s.verify()
            quakes = try TestSupport.allRows(s).quakes
            #expect(try Self.check(s, quakes, seed: UInt64(60 + step)) > 10)
        }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func catalogCountsEqualTheNaiveCountOnRealFeeds() throws {
        let loaded = try #require(Fixtures.real)
        #expect(loaded.store.manifest.catalog != nil)
        #expect(try Self.check(loaded.store, loaded.quakes, seed: 3) > 20)
    }

    @Test func aDamagedCatalogIsAnErrorUntilRepaired() throws {
        let dir = TestSupport.tempDir()
        let s = try Self.generatedStore(dir, rows: 3000, years: 2022...2022, seed: 4)
        let f = Filter.numberRange(.mag, lower: .init(2.0), upper: nil)
        let right = try s.count(f)
        let file = dir + "/store/partitions/" + (try #require(s.manifest.catalog))
        var bytes = try FileIO.readFile(file)
        bytes[bytes.count - 12] ^= 0x40
        TestSupport.write(bytes, to: file)
        let fresh = try Store(path: dir + "/store")
        #expect { _ = try fresh.count(f) } throws: { "\($0)".contains(file) && "\($0)".contains("checksum") }
        #expect(throws: QuakeError.self) { _ = try fresh.verify() }
        // a flip anywhere in the head (lengths, partition names, magnitudes) is an error naming the file,
        // also where a name no longer decodes (a user trial found those errors without it)
        let original = bytes
        bytes[bytes.count - 12] ^= 0x40
        var errors = 0
        for offset in 8..<Swift.min(300, bytes.count) {
            for bit in [0, 3, 7] {
                var flipped = bytes
                flipped[offset] ^= UInt8(1 << bit)
                TestSupport.write(flipped, to: file)
                do {
                    #expect(try Store(path: dir + "/store").count(f) == right, "offset \(offset) bit \(bit)")
                } catch {
                    #expect("\(error)".contains(file), "offset \(offset) bit \(bit): \(error)")
                    errors += 1
                }
            }
        }
        #expect(errors > 0)
        TestSupport.write(original, to: file)
        let report = try Store.repair(path: dir + "/store")
        #expect(report.catalogOnly)
        let repaired = try Store(path: dir + "/store")
        #expect(try repaired.count(f) == right)
        _ = try repaired.verify()
        #expect(throws: QuakeError.self) { _ = try Store.repair(path: dir + "/store") }

        // a missing catalog is an error too, and repair writes it again
        FileIO.remove(dir + "/store/partitions/" + (try #require(repaired.manifest.catalog)))
        #expect(throws: QuakeError.self) { _ = try Store(path: dir + "/store").count(f) }
        #expect(try Store.repair(path: dir + "/store").catalogOnly)
        #expect(try Store(path: dir + "/store").count(f) == right)
    }

    @Test func theCatalogKeepsTheRowCountsOfEveryPartition() throws {
        let loaded = Fixtures.generated
        let m = loaded.store.manifest
        let c = try #require(try loaded.store.catalog(m))
        var running = 0
        for i in 0...m.partitions.count {
            let row = try c.row(i)
            #expect(row.reduce(0) { $0 + Int($1) } == running)
            if i < m.partitions.count { running += m.partitions[i].rows }
        }
        let nulls = loaded.quakes.filter { $0.magnitude == nil }.count
        #expect(try c.row(m.partitions.count).last.map(Int.init) == nulls)
    }
}

extension RowBatch {
    var quakes: [Quake] { (0..<count).map { Quake(batch: self, row: $0) } }
}
