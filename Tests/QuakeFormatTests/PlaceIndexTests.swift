import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The place index: a place search top-N by magnitude skips granules without a matching
/// locality and bounds the rest by the matching rows, with the same answer as the naive
/// reference on generated and real data, and an error when the index is damaged.
@Suite struct PlaceIndexTests {
    static let needles: [(String, Bool)] = [("Chile", false), ("Japan", false), ("alaska", true), ("Tonga", false),
                                            ("Xanadu", false), ("Nowhere at all", false)]

    /// Top-N by mag both ways for each needle agrees with the naive query; returns the granules
    /// the place index pruned and the partitions the catalog's localities pruned, summed.
    static func check(_ s: Store, _ quakes: [Quake]) throws -> Int {
        var pruned = 0
        for (needle, insensitive) in needles {
            let f = Filter.contains(.place, needle, insensitive: insensitive)
            for (limit, offset) in [(10, 0), (40, 5)] {
                for asc in [false, true] {
                    let spec = QuerySpec(filter: f, sort: [SortKey(.mag, ascending: asc)], limit: limit, offset: offset)
                    let r = try s.query(spec, columns: [.id, .mag])
                    #expect(r.ids == (try Naive.query(quakes, spec).map(\.id)), "\(needle) \(asc) \(limit)")
                    pruned += r.stats.granulesPrunedByPlace + r.stats.partitionsPrunedByPlace
                }
            }
        }
        return pruned
    }

    @Test func placeTopNEqualsTheNaiveQueryAndPrunesGranules() throws {
        let loaded = Fixtures.large
        #expect(try loaded.store.reader(loaded.store.manifest.partitions[0]).placeIndex() != nil)
        #expect(try Self.check(loaded.store, loaded.quakes) > 0)
        _ = try loaded.store.verify()
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func placeTopNEqualsTheNaiveQueryOnRealFeeds() throws {
        let loaded = try #require(Fixtures.real)
        #expect(try Self.check(loaded.store, loaded.quakes) > 0)
    }

    @Test func aDamagedPlaceIndexIsAnErrorNeverAWrongAnswer() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 6000, years: 2022...2022, seed: 9)
        // every partition's index is damaged: the top-N opens only those its catalog bound
        // cannot rule out, and the first it opens fails
        for e in s.manifest.partitions {
            let region = try #require(try s.reader(e).directory().placeIndex)
            let file = dir + "/store/partitions/" + e.file
            var bytes = try FileIO.readFile(file)
            bytes[region.offset + region.length - 3] ^= 0x10
            TestSupport.write(bytes, to: file)
        }
        let fresh = try Store(path: dir + "/store")
        // weakest first: the magnitude projection (strongest first) cannot answer it
        let spec = QuerySpec(filter: .contains(.place, "Chile", insensitive: false),
                             sort: [SortKey(.mag, ascending: true)], limit: 5)
        #expect { _ = try fresh.query(spec) } throws: { "\($0)".contains("place index") }
        #expect(throws: QuakeError.self) { _ = try fresh.verify() }
    }
}
