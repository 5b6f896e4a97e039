import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The catalog's place section: per partition, the localities of its rows with their magnitude
/// bounds, equal to what the rows give; a place search top-N by magnitude that opens partitions
/// best catalog bound first gives the naive answer, before and after upserts that move events
/// and change their magnitude and place, and a damaged section is an error until repaired.
@Suite struct CatalogPlacesTests {
    static let needles: [(String, Bool)] = PlaceIndexTests.needles + [("Zyzzyva", false), ("Honshu", false)]

    /// Every partition's catalog bound for every needle equals the bound of the rows that match
    /// it, computed naively from the partition's rows; the summary built from the place index
    /// equals the one built from the rows.
    static func checkBounds(_ s: Store) throws {
        let m = s.manifest
        let catalog = try #require(try s.catalog(m))
        let places = try #require(try catalog.places())
        for (p, e) in m.partitions.enumerated() {
            let r = s.reader(e)
            let batch = try r.readAll()
            let fromRows = PlaceSummary(places: batch.text[Column.place.rawValue], mags: batch.ints[Column.mag.rawValue])
            #expect(try PlaceSummary(r) == fromRows, "partition \(e.file)")
            let quakes = batch.quakes
            for (needle, insensitive) in needles {
                let f = Filter.contains(.place, needle, insensitive: insensitive)
                let hits = try quakes.filter { try Naive.matches(f, $0) }
                let mags = hits.compactMap(\.magnitude)
                let want: Catalog.Places.Bound = hits.isEmpty ? .none : .some(least: mags.min(), greatest: mags.max())
                let table = PlaceMatcher(needle, insensitive: insensitive).table(places.localities)
                #expect(try places.bound(partition: p, matches: table) == want, "\(needle) in \(e.file)")
            }
        }
    }

    /// Place top-N both ways equals the naive query; returns the partitions the catalog kept
    /// closed (no matching locality, or a bound the cut-off beat), summed.
    static func checkTopN(_ s: Store, _ quakes: [Quake]) throws -> Int {
        var closed = 0
        for (needle, insensitive) in needles {
            let f = Filter.contains(.place, needle, insensitive: insensitive)
            for (limit, offset) in [(1, 0), (10, 0), (40, 5), (300, 0)] {
                for asc in [false, true] {
                    let spec = QuerySpec(filter: f, sort: [SortKey(.mag, ascending: asc)], limit: limit, offset: offset)
                    let r = try s.query(spec, columns: [.id, .mag])
                    #expect(r.ids == (try Naive.query(quakes, spec).map(\.id)), "\(needle) asc \(asc) limit \(limit)")
                    closed += r.stats.partitionsPrunedByPlace + r.stats.partitionsSkippedByTopN
                }
            }
        }
        // with another term the catalog's cut-off does not apply: partitions go best bound first,
        // a few at a time, under the cut-off of what earlier rounds found
        for (needle, insensitive) in needles.prefix(6) {
            for extra in [Filter.numberRange(.depth, lower: .init(10, inclusive: true), upper: nil),
                          .numberRange(.mag, lower: .init(2.5, inclusive: false), upper: nil)] {
                let f = Filter.and([.contains(.place, needle, insensitive: insensitive), extra])
                for (limit, offset) in [(1, 0), (10, 0), (25, 3)] {
                    for asc in [false, true] {
                        let spec = QuerySpec(filter: f, sort: [SortKey(.mag, ascending: asc)], limit: limit,
                                             offset: offset)
                        let r = try s.query(spec, columns: [.id, .mag])
                        #expect(r.ids == (try Naive.query(quakes, spec).map(\.id)),
                                "\(needle) and \(extra) asc \(asc) limit \(limit)")
                    }
                }
            }
        }
        return closed
    }

    @Test func catalogPlacesEqualTheRowsAndTopNTheNaiveQueryBeforeAndAfterUpserts() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 41)
        var quakes = try TestSupport.allRows(s).quakes
        try Self.checkBounds(s)
        #expect(try Self.checkTopN(s, quakes) > 100)

        // move events across partitions, change their magnitudes (some to none) and places
        // (some to a locality no partition held, some to none)
        let newPlaces = ["12 km NNE of Zyzzyva, Japan", "Zyzzyva Trench", "", "3 km S of Honshu, Japan", "Tonga, Tonga"]
        let seen = TestSupport.writeUpserts(of: quakes, picks: 600, seed: 12, to: dir + "/update.csv") { q, rng in
            let mag = TestSupport.upsertMag(&rng)
            let place = rng.next() % 2 == 0 ? newPlaces[Int(rng.next() % UInt64(newPlaces.count))] : q.place ?? ""
            return UpsertFields(mag: mag, place: "\"" + place + "\"")
        }
        let summary = try s.load([dir + "/update.csv"])
        #expect(summary.updated == seen.count, "\(summary)")
        _ = try s.verify()
        quakes = try TestSupport.allRows(s).quakes
        #expect(quakes.contains { $0.place?.contains("Zyzzyva") == true })
        try Self.checkBounds(s)
        #expect(try Self.checkTopN(s, quakes) > 100)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func catalogPlacesOnRealFeeds() throws {
        let loaded = try #require(Fixtures.real)
        #expect(try loaded.store.catalog(loaded.store.manifest)?.places() != nil)
        try Self.checkBounds(loaded.store)
        _ = try Self.checkTopN(loaded.store, loaded.quakes)
    }

    @Test func aDamagedPlaceSectionIsAnErrorUntilRepaired() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 6000, years: 2022...2022, seed: 5)
        // weakest first: the magnitude projection (strongest first) cannot answer it, the catalog chooses
        let spec = QuerySpec(filter: .contains(.place, "Chile", insensitive: false),
                             sort: [SortKey(.mag, ascending: true)], limit: 5)
        let right = try s.query(spec).ids
        let file = dir + "/store/partitions/" + (try #require(s.manifest.catalog))
        var bytes = try FileIO.readFile(file)
        // the place section follows the header: its first locality's first byte
        let catalog = try #require(try s.catalog(s.manifest))
        let header = bytes.count - catalog.rowsLength
        let places = try #require(try catalog.places())
        let first = try #require(places.localities.string(0))
        let at = try #require(bytes[..<header].indices.first { i in
            bytes[i...].starts(with: Array(first.utf8))
        })
        bytes[at] ^= 0x20
        TestSupport.write(bytes, to: file)
        let fresh = try Store(path: dir + "/store")
        #expect { _ = try fresh.query(spec) } throws: { "\($0)".contains(file) && "\($0)".contains("place section") }
        #expect(throws: QuakeError.self) { _ = try fresh.verify() }
        #expect(try Store.repair(path: dir + "/store").catalogOnly)
        let repaired = try Store(path: dir + "/store")
        #expect(try repaired.query(spec).ids == right)
        _ = try repaired.verify()
    }
}
