import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

/// A title that follows from the magnitude, type and place is not stored, and is made again when
/// read (issue 69): on real USGS GeoJSON, against the feed's own titles.
@Suite struct DerivedTitleTests {
    /// The real feeds that carry titles (the 2013 and 2023 ones have none).
    static let feeds = ["geojson_2018-06-07_2018-06-14_4711.geojson", "geojson_2019-06-19_2019-07-19_3121.geojson",
                        "geojson_2019-01-29_2019-01-30_233.geojson"]

    /// The feed's title of every event, by id: the naive reference.
    static func titles(_ path: String) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let features = try #require(json?["features"] as? [[String: Any]])
        var titles: [String: String] = [:]
        for feature in features {
            let properties = feature["properties"] as? [String: Any]
            if let id = feature["id"] as? String, let title = properties?["title"] as? String { titles[id] = title }
        }
        return titles
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          arguments: Self.feeds)
    func usgsTitlesAreMadeNotStored(_ name: String) throws {
        let path = try #require(TestSupport.usgs(name))
        let want = try Self.titles(path)
        let (store, summary, _) = try TestSupport.load([path])
        #expect(summary.new == want.count)
        let rows = try TestSupport.allRows(store)
        let titles = rows.text[Column.title.rawValue]
        var kept = 0
        var scratch: [UInt8] = []
        for row in 0..<rows.count where !titles.isNull(row) {
            kept += 1
            let types = rows.text[Column.type.rawValue], places = rows.text[Column.place.rawValue]
            let follows = titles.bytes[titles.range(row)].withUnsafeBufferPointer { title in
                types.bytes[types.range(row)].withUnsafeBufferPointer { type in
                    places.bytes[places.range(row)].withUnsafeBufferPointer { place in
                        USGSTitle.follows(title, mag: rows.ints[Column.mag.rawValue][row], type: type, place: place,
                                          scratch: &scratch)
                    }
                }
            }
            #expect(!follows, "\(name): a title that follows from the fields was stored")
        }
        #expect(kept < rows.count / 10, "\(name): \(kept) of \(rows.count) titles stored")

        // every reader sees the feed's title: the library, and the GeoJSON export
        let fetched = try store.fetch(FetchDescriptor<Quake>())
        #expect(fetched.count == want.count)
        for quake in fetched { #expect(quake.title == want[quake.id], "\(name) \(quake.id)") }
        var titleOnly = FetchDescriptor<Quake>()
        titleOnly.propertiesToFetch = [\Quake.title]
        let fetchedTitles = try store.fetch(titleOnly)
        #expect(fetchedTitles.allSatisfy { $0.title == want[$0.id] }, "\(name): a title fetched alone")
    }

    /// A title that does not follow is kept as it came; a later version from a CSV (no title)
    /// shows the title its own magnitude makes.
    @Test func aTitleOfItsOwnIsKeptAndAMadeOneFollowsLaterVersions() throws {
        let dir = TestSupport.tempDir()
        func feature(_ id: String, _ mag: String, _ title: String) -> String {
            "{\"type\":\"Feature\",\"id\":\"\(id)\",\"properties\":{\"mag\":\(mag),\"place\":\"10 km N of Town, CA\","
                + "\"time\":1700000000000,\"updated\":1700000000000,\"type\":\"earthquake\",\"title\":\"\(title)\"},"
                + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[-122.2,38.1,5.5]}}"
        }
        let geojson = dir + "/a.geojson"
        let features = [feature("nc1", "2.54", "M 2.5 - 10 km N of Town, CA"), feature("nc2", "2.5", "Felt widely in Town")]
        TestSupport.write("{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}",
                          to: geojson)
        let (store, _, _) = try TestSupport.load([geojson])
        let rows = try TestSupport.allRows(store)
        let stored = (0..<rows.count).map { rows.text[Column.title.rawValue].string($0) }
        #expect(Set(stored.map { $0 ?? "-" }) == ["-", "Felt widely in Town"], "\(stored)")
        let csv = dir + "/b.csv"
        TestSupport.write(TestSupport.header22 + "\n2023-11-14T22:13:20.000Z,38.1,-122.2,5.5,3.06,md,10,50,0.01,0.1,nc,"
            + "nc1,2023-11-15T00:00:00.000Z,\"10 km N of Town, CA\",earthquake,0.2,0.3,0.1,5,reviewed,nc,nc\n", to: csv)
        _ = try store.load([csv])
        let byId = Dictionary(uniqueKeysWithValues: try store.fetch(FetchDescriptor<Quake>()).map { ($0.id, $0) })
        #expect(byId["nc1"]?.title == "M 3.1 - 10 km N of Town, CA")
        #expect(byId["nc2"]?.title == "Felt widely in Town")
    }
}
