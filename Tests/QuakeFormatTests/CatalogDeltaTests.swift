import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The catalog delta: small commits write the partitions they replaced, not the catalog's
/// running counts, and the catalog read with its delta gives what a catalog built from every
/// partition gives; past its limits the catalog is written whole; a damaged or missing delta is
/// an error until `repair`.
@Suite struct CatalogDeltaTests {
    /// The counts of one running-count row by magnitude (nulls under NaN's stand-in), zeros left out.
    static func counts(_ values: [Double], _ row: [UInt64]) -> [Double: UInt64] {
        var out: [Double: UInt64] = [:]
        for (index, count) in row.enumerated() where count > 0 {
            out[index < values.count ? values[index] + 0.0 : -1_000] = count
        }
        return out
    }

    /// The catalog `s` names, read with its delta, gives every row, histogram and place summary
    /// a catalog built from every partition gives; without a delta it is that catalog byte for byte.
    static func expectCatalogMatchesThePartitions(_ s: Store, scratch: String,
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let m = s.manifest
        var histograms: [Catalog.Histogram] = []
        var places: [PlaceSummary?] = []
        for entry in m.partitions {
            let reader = PartitionReader(storePath: s.path, entry: entry)
            histograms.append(try #require(Catalog.Histogram(try reader.granules())))
            places.append(try PlaceSummary(reader))
        }
        let files = m.partitions.map(\.file)
        let whole = try #require(Catalog.encode(files: files, histograms: histograms, places: places))
        TestSupport.write(whole.bytes, to: scratch)
        let rebuilt = try Catalog(path: scratch, checksum: whole.checksum, files: files)
        let catalog = try #require(try Store.openCatalog(m, storePath: s.path, files: files))
        #expect(catalog.files == files, sourceLocation: sourceLocation)
        for i in 0...m.partitions.count {
            #expect(Self.counts(catalog.values, try catalog.row(i)) == Self.counts(rebuilt.values, try rebuilt.row(i)),
                    "row \(i)", sourceLocation: sourceLocation)
        }
        let sections = try #require(try catalog.places())
        for index in m.partitions.indices {
            #expect(try catalog.histogram(partition: index) == histograms[index], sourceLocation: sourceLocation)
            #expect(try sections.summary(partition: index) == places[index], sourceLocation: sourceLocation)
        }
        if m.catalogDelta == nil {
            let stored = try FileIO.readFile(s.path + "/partitions/" + (try #require(m.catalog)))
            #expect(stored == whole.bytes, sourceLocation: sourceLocation)
        }
    }

    /// Upserts of `picks` events of `quakes` with magnitudes the store holds and their own places.
    static func revise(_ s: Store, _ quakes: [Quake], picks: Int, seed: UInt64, dir: String) throws -> Int {
        let pool = Array(Set(quakes.compactMap(\.magnitude))).sorted()
        let path = dir + "/revise-\(seed).csv"
        let seen = TestSupport.writeUpserts(of: quakes, picks: picks, seed: seed, to: path) { quake, rng in
            UpsertFields(mag: rng.next() % 8 == 0 ? "" : String(pool[Int(rng.next() % UInt64(pool.count))]),
                         place: quake.place.map { "\"\($0)\"" } ?? "")
        }
        return try s.load([path]).updated == seen.count ? seen.count : -1
    }

    static let revisionHeader = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"

    /// A CSV line revising `quake` where it stands (same time, position and place), a day after
    /// its last update, with magnitude `mag`.
    static func revision(of quake: Quake, mag: String) -> String {
        let updated = Int64((quake.updated ?? quake.time).timeIntervalSince1970 * 1000) + 86_400_000
        return [Timestamp.string(quake.timeMilliseconds), "\(quake.latitude)", "\(quake.longitude)", "", mag,
                "", "", "", "", "", "", quake.id, Timestamp.string(updated),
                quake.place.map { "\"\($0)\"" } ?? "", ""].joined(separator: ",")
    }

    /// Revisions of `picks` events of `quakes` where they stand (same time, place and position)
    /// with magnitudes the store holds: the commits that replace a partition, never add one.
    static func reviseInPlace(_ s: Store, _ quakes: [Quake], picks: Int, seed: UInt64, dir: String) throws -> Int {
        var rng = SplitMix64(seed: seed)
        let pool = Array(Set(quakes.compactMap(\.magnitude))).sorted()
        var lines = [Self.revisionHeader]
        var seen = Set<String>()
        for _ in 0..<picks {
            let quake = quakes[Int(rng.next() % UInt64(quakes.count))]
            guard seen.insert(quake.id).inserted else { continue }
            lines.append(Self.revision(of: quake, mag: String(pool[Int(rng.next() % UInt64(pool.count))])))
        }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir + "/in-place-\(seed).csv")
        return try s.load([dir + "/in-place-\(seed).csv"]).updated == seen.count ? seen.count : -1
    }

    @Test func smallCommitsWriteADeltaThatReadsAsTheWholeCatalog() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 12000, years: 2021...2023, seed: 71)
        var previous = s.manifest
        var quakes = try TestSupport.allRows(s).quakes
        var deltas = 0
        var lastEntries = 0
        for step in 0..<10 {
            let picks = 1 + step % 3
            let seed = UInt64(700 + step)
            let revised = step % 2 == 0 ? try Self.reviseInPlace(s, quakes, picks: picks, seed: seed, dir: dir)
                : try Self.revise(s, quakes, picks: picks, seed: seed, dir: dir)
            #expect(revised > 0)
            let m = s.manifest
            if let name = m.catalogDelta {
                deltas += 1
                let delta = try CatalogDelta(path: s.path + "/partitions/" + name, checksum: m.catalogDeltaChecksum)
                #expect(delta.entries.count <= CatalogDelta.maximumPartitions)
                if previous.catalogDelta != nil {
                    // a delta lies over the catalog the one before lay over, and lists at least its partitions
                    #expect(m.catalog == previous.catalog)
                    #expect(delta.entries.count >= lastEntries)
                }
                if let old = previous.catalogDelta { #expect(m.retired.contains("partitions/" + old)) }
                lastEntries = delta.entries.count
            }
            previous = m
            try Self.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole-\(step).qkc")
            _ = try s.verify()
            quakes = try TestSupport.allRows(s).quakes
            #expect(try CatalogTests.check(s, quakes, seed: UInt64(80 + step)) > 10)
            // a store opened afresh reads the same counts
            #expect(try CatalogTests.check(try Store(path: s.path), quakes, seed: UInt64(90 + step)) > 10)
        }
        #expect(deltas >= 5, "small commits of magnitudes and places the catalog lists write deltas")
        #expect(try Store(path: s.path).info().catalogBytes > 0)
    }

    /// The same on real feeds (mixed decimals, long places, deleted rows), day partitions: the
    /// revisions in place write deltas, and every count equals the naive count, then after `compact`.
    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func smallCommitsOnRealFeedsCountAsTheNaiveCount() throws {
        let names = ["csv_2019-06-19_2019-07-19_3121.csv", "csv_2023-03-05_2023-04-04_12569.csv"]
        let files = try names.map { try #require(TestSupport.usgs($0)) }
        let dir = TestSupport.tempDir("delta-real")
        let s = try Store.openOrCreate(path: dir + "/s", partitioning: .day)
        _ = try s.load(files)
        var quakes = try TestSupport.allRows(s).quakes
        var deltas = 0
        for step in 0..<6 {
            let revised = try Self.reviseInPlace(s, quakes, picks: 1 + step % 3, seed: UInt64(7_100 + step), dir: dir)
            #expect(revised > 0)
            if s.manifest.catalogDelta != nil { deltas += 1 }
            try Self.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole-\(step).qkc")
            _ = try s.verify()
            quakes = try TestSupport.allRows(s).quakes
            #expect(try CatalogTests.check(s, quakes, seed: UInt64(7_200 + step)) > 10)
        }
        #expect(deltas >= 3, "revisions in place of magnitudes the catalog lists write deltas")
        let report = try Store.compact(path: s.path)
        #expect(report.foldedPartitions > 0)
        let compacted = try Store(path: s.path)
        #expect(compacted.manifest.catalogDelta == nil)
        try Self.expectCatalogMatchesThePartitions(compacted, scratch: dir + "/whole-compacted.qkc")
        #expect(try CatalogTests.check(compacted, quakes, seed: 7_300) > 10)
    }

    @Test func aDeltaPastItsLimitIsFoldedIntoAWholeCatalog() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 16000, years: 2020...2023, seed: 72)
        var quakes = try TestSupport.allRows(s).quakes
        var folded = 0
        var previous = s.manifest
        for step in 0..<14 {
            #expect(try Self.revise(s, quakes, picks: 3, seed: UInt64(800 + step), dir: dir) > 0)
            let m = s.manifest
            if previous.catalogDelta != nil && m.catalogDelta == nil {
                folded += 1
                #expect(m.catalog != previous.catalog)
                #expect(m.retired.contains("partitions/" + (try #require(previous.catalogDelta))))
            }
            try Self.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole-\(step).qkc")
            previous = m
            quakes = try TestSupport.allRows(s).quakes
        }
        #expect(folded >= 1, "about 40 replaced partitions pass the delta's limit of \(CatalogDelta.maximumPartitions)")
        // one commit replacing more partitions than a delta holds writes the catalog whole
        #expect(try Self.revise(s, quakes, picks: 400, seed: 899, dir: dir) > 0)
        #expect(s.manifest.catalogDelta == nil)
        try Self.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole-last.qkc")
        _ = try s.verify()
        quakes = try TestSupport.allRows(s).quakes
        #expect(try CatalogTests.check(s, quakes, seed: 99) > 10)
    }

    @Test func aNewMagnitudeWritesTheCatalogWhole() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 6000, years: 2022...2022, seed: 73)
        let quakes = try TestSupport.allRows(s).quakes
        #expect(try Self.reviseInPlace(s, quakes, picks: 1, seed: 5, dir: dir) > 0)
        let before = s.manifest
        #expect(before.catalogDelta != nil)
        let held = Set(quakes.compactMap(\.magnitude))
        let unheld = try #require((0..<1000).map { 9.0 + Double($0) / 1000 }.first { !held.contains($0) })
        let seen = TestSupport.writeUpserts(of: quakes, picks: 1, seed: 6, to: dir + "/new.csv") { _, _ in
            UpsertFields(mag: String(unheld))
        }
        #expect(try s.load([dir + "/new.csv"]).updated == seen.count)
        #expect(s.manifest.catalogDelta == nil)
        #expect(s.manifest.catalog != before.catalog)
        try Self.expectCatalogMatchesThePartitions(s, scratch: dir + "/whole.qkc")
        _ = try s.verify()
    }

    @Test func aDamagedOrMissingDeltaIsAnErrorUntilRepaired() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 6000, years: 2022...2022, seed: 74)
        let quakes = try TestSupport.allRows(s).quakes
        #expect(try Self.reviseInPlace(s, quakes, picks: 2, seed: 7, dir: dir) > 0)
        let f = Filter.numberRange(.mag, lower: .init(2.0), upper: nil)
        let right = try s.count(f)
        let name = try #require(s.manifest.catalogDelta)
        let file = dir + "/store/partitions/" + name
        let original = try FileIO.readFile(file)
        var rng = SplitMix64(seed: 75)
        for trial in 0..<12 {
            var bytes = original
            if trial % 3 == 2 {
                bytes.removeLast(1 + Int(rng.next() % UInt64(bytes.count)))
            } else {
                bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
            }
            TestSupport.write(bytes, to: file)
            let fresh = try Store(path: dir + "/store")
            #expect { _ = try fresh.count(f) } throws: { "\($0)".contains(name) }
            #expect { _ = try fresh.verify() } throws: { "\($0)".contains(name) }
        }
        let report = try Store.repair(path: dir + "/store")
        #expect(report.catalogOnly && report.rebuiltCatalog)
        let repaired = try Store(path: dir + "/store")
        #expect(repaired.manifest.catalogDelta == nil)
        #expect(try repaired.count(f) == right)
        _ = try repaired.verify()
        try Self.expectCatalogMatchesThePartitions(repaired, scratch: dir + "/whole.qkc")

        // compact writes a damaged delta's catalog whole from the partitions, as a load would
        #expect(try Self.reviseInPlace(repaired, quakes, picks: 2, seed: 10, dir: dir) > 0)
        let rightNow = try repaired.count(f)
        let damagedName = try #require(repaired.manifest.catalogDelta)
        var damagedBytes = try FileIO.readFile(dir + "/store/partitions/" + damagedName)
        damagedBytes[damagedBytes.count / 2] ^= 0x08
        TestSupport.write(damagedBytes, to: dir + "/store/partitions/" + damagedName)
        let compacted = try Store.compact(path: dir + "/store")
        #expect(compacted.rebuiltDamagedCatalog && compacted.changed, "\(compacted)")
        #expect(try Store(path: dir + "/store").count(f) == rightNow)
        _ = try Store(path: dir + "/store").verify()

        // a missing delta is an error too, and repair writes the catalog again
        #expect(try Self.reviseInPlace(repaired, quakes, picks: 2, seed: 8, dir: dir) > 0)
        let right2 = try repaired.count(f)
        FileIO.remove(dir + "/store/partitions/" + (try #require(repaired.manifest.catalogDelta)))
        #expect(throws: QuakeError.self) { _ = try Store(path: dir + "/store").count(f) }
        #expect(try Store.repair(path: dir + "/store").catalogOnly)
        #expect(try Store(path: dir + "/store").count(f) == right2)
        _ = try Store(path: dir + "/store").verify()
    }

    /// `compact` folds the delta into a whole catalog and rebuilds a projection that revisions of
    /// the strongest events shrank; the rows and every answer stay the same; a second run finds
    /// nothing to do and commits nothing.
    @Test func compactFoldsTheDeltaAndRebuildsAShrunkProjection() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 8000, years: 2021...2022, seed: 77)
        var quakes = try TestSupport.allRows(s).quakes
        // the strongest events revised down: the projection keeps its threshold and loses them,
        // where a rebuild would lower the threshold to keep as many rows as it may
        let strongest = quakes.filter { $0.magnitude != nil }.sorted { $0.magnitude! > $1.magnitude! }.prefix(150)
        let lines = [Self.revisionHeader] + strongest.map { Self.revision(of: $0, mag: "0.5") }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir + "/down.csv")
        #expect(try s.load([dir + "/down.csv"]).updated == strongest.count)
        quakes = try TestSupport.allRows(s).quakes
        // then a small commit, which leaves a delta
        #expect(try Self.reviseInPlace(s, quakes, picks: 3, seed: 9, dir: dir) > 0)
        let before = s.manifest
        let delta = try #require(before.catalogDelta)
        let listed = try CatalogDelta(path: s.path + "/partitions/" + delta, checksum: before.catalogDeltaChecksum)
        let top = try #require(before.top)
        quakes = try TestSupport.allRows(s).quakes

        let report = try Store.compact(path: s.path)
        #expect(report.changed && report.generation == before.generation + 1)
        #expect(report.foldedPartitions == listed.entries.count)
        let projection = try #require(report.projection)
        #expect(projection.rowsBefore == top.rows && projection.rowsAfter > top.rows, "\(report)")
        #expect(report.description.hasPrefix("folded the catalog delta ("), "\(report)")
        let after = try Store(path: s.path)
        #expect(after.manifest.catalogDelta == nil && after.manifest.catalog != before.catalog)
        #expect(after.manifest.partitions == before.partitions && after.manifest.history == before.history)
        // the folded delta is retired: kept for readers of the snapshot before, until the next commit
        #expect(after.manifest.retired.contains("partitions/" + delta))
        try Self.expectCatalogMatchesThePartitions(after, scratch: dir + "/whole.qkc")
        _ = try after.verify()
        #expect(try TestSupport.allRows(after).quakes == quakes)
        #expect(try CatalogTests.check(after, quakes, seed: 12) > 10)
        // the top of the store by magnitude, from the rebuilt projection, is the naive one
        let spec = QuerySpec(filter: .all, sort: [SortKey(.mag, ascending: false)], limit: 200)
        let expected = Array(quakes.compactMap(\.magnitude).sorted(by: >).prefix(200))
        #expect(try after.query(spec, columns: [.mag]).quakes.compactMap(\.magnitude) == expected)

        let again = try Store.compact(path: s.path)
        #expect(!again.changed && again.generation == report.generation)
        #expect(again.description.hasPrefix("nothing to compact"))
        #expect(try Store(path: s.path).manifest == after.manifest)
    }

    /// Deltas round-trip through their bytes; any cut or changed byte fails its checksum, and
    /// decoding bytes that pass no checksum never traps.
    @Test func deltaBytesRoundTripAndDamageIsAnError() throws {
        var rng = SplitMix64(seed: 76)
        let dir = TestSupport.tempDir()
        for trial in 0..<60 {
            let partitions = 1 + Int(rng.next() % 40)
            var entries: [CatalogDelta.Entry] = []
            for partition in 0..<partitions where rng.next() % 3 == 0 {
                let indexes = (0..<50).filter { _ in rng.next() % 4 == 0 }
                let places: [CatalogDelta.Place]? = rng.next() % 4 == 0 ? nil
                    : (0..<20).filter { _ in rng.next() % 3 == 0 }.map { ordinal in
                        let least = Double(rng.next() % 50) / 10
                        return rng.next() % 5 == 0
                            ? CatalogDelta.Place(ordinal: UInt32(ordinal), least: .nan, greatest: .nan)
                            : CatalogDelta.Place(ordinal: UInt32(ordinal), least: least, greatest: least + 0.5)
                    }
                entries.append(CatalogDelta.Entry(partition: partition, file: "p\(partition).g\(trial).qkp",
                                                  valueIndexes: indexes,
                                                  counts: indexes.map { _ in 1 + rng.next() % 99 },
                                                  nulls: rng.next() % 3, places: places))
            }
            let delta = CatalogDelta(catalogChecksum: rng.next(), partitions: partitions, entries: entries)
            let (bytes, checksum) = delta.encoded()
            let path = dir + "/d\(trial).qkd"
            TestSupport.write(bytes, to: path)
            #expect(try CatalogDelta(path: path, checksum: checksum) == delta)
            var damaged = bytes
            damaged[Int(rng.next() % UInt64(bytes.count))] ^= 0x20
            TestSupport.write(damaged, to: path)
            #expect(throws: QuakeError.self) { _ = try CatalogDelta(path: path, checksum: checksum) }
            // the decoder alone, on cut and changed bytes: an error or a delta, never a trap
            for _ in 0..<20 {
                var garbage = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
                if !garbage.isEmpty { garbage[Int(rng.next() % UInt64(garbage.count))] = UInt8(rng.next() % 256) }
                _ = try? garbage.withStoreBytes { (raw) throws(QuakeError) in try CatalogDelta.decode(raw) }
            }
        }
    }

    /// A manifest names its delta in revision 8; one without a delta is written as revision 7,
    /// which builds before the delta read.
    @Test func theManifestNamesItsDelta() throws {
        var m = Manifest(partitioning: .month, blockRows: 4096)
        m.partitions = [PartitionEntry(key: "2024-01", file: "2024-01.g1.qkp", rows: 3, minTime: 1_704_067_200_000,
                                       maxTime: 1_704_067_300_000, bytes: 100)]
        m.rows = 3
        m.catalog = "catalog.g1.qkc"
        m.catalogChecksum = 42
        let plain = m.encoded()
        #expect(plain[8] == 7)
        m.catalogDelta = "catalog.g2.qkd"
        m.catalogDeltaChecksum = 43
        let withDelta = m.encoded()
        #expect(withDelta[8] == 8)
        let decoded = try withDelta.withStoreBytes { (raw) throws(QuakeError) in try Manifest.decode(raw, path: "m") }
        #expect(decoded == m)
        #expect(decoded.liveFiles.contains("partitions/catalog.g2.qkd"))
        m.catalogDelta = "2024-01.g1.qkp"
        let clash = m.encoded()
        #expect(throws: QuakeError.self) {
            _ = try clash.withStoreBytes { (raw) throws(QuakeError) in try Manifest.decode(raw, path: "m") }
        }
    }
}
