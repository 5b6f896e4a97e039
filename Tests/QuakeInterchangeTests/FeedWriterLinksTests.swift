import Foundation
import Testing
import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeStore
@testable import QuakeTestSupport

/// The GeoJSON writer's USGS links: an event with a ComCat id gets USGS's `url` and `detail` when
/// it has none stored (one loaded from CSV), by the page's rule for a ComCat id; a stored link wins;
/// an export's metadata has no request `url`.
@Suite struct FeedWriterLinksTests {
    static let page = "https://earthquake.usgs.gov/earthquakes/eventpage/"
    static let detail = "https://earthquake.usgs.gov/fdsnws/event/1/query?eventid="

    @Test func aComCatIdIsTheNetworksCodeAndTheEventsInLowerCase() {
        let yes = [("ci38457511", "ci"), ("us7000abcd", "us"), ("ak0234gpdcgp", "ak"), ("hv_70264586", "hv"),
                   ("ismpkansas123", "ismpkansas")]
        let no = [("ci38457511", "us"), ("ci38457511", ""), ("CI38457511", "CI"), ("ci-38457511", "ci"),
                  ("ci", "ci"), ("c12345", "c"), ("ci3845 7511", "ci"), ("ci\"x", "ci"), ("", ""), ("cié1", "ci")]
        for (id, net) in yes {
            #expect(FeedWriter.isComCatId(Array(id.utf8), net: Array(net.utf8)), "\(id) of \(net)")
        }
        for (id, net) in no {
            #expect(!FeedWriter.isComCatId(Array(id.utf8), net: Array(net.utf8)), "\(id) of \(net)")
        }
    }

    /// Three events from a CSV (which has no url or detail): a ComCat id, an id that is not its
    /// network's, an id in capitals; and one from a GeoJSON feed with USGS's old links stored.
    @Test func exportsDeriveUSGSLinksForComCatIdsAndKeepStoredOnes() throws {
        let dir = TestSupport.tempDir()
        let rest = "earthquake,,,,,reviewed,ci,ci"
        let csv = TestSupport.header22 + "\n"
            + "2019-07-06T03:19:53.040Z,35.77,-117.6,8,7.1,mw,,,,,ci,ci38457511,2019-07-06T04:00:00.000Z,"
            + "\"2019 Ridgecrest Earthquake Sequence\"," + rest + "\n"
            + "2019-07-06T03:20:00.000Z,35.7,-117.5,5,2.1,ml,,,,,us,ci38457512,2019-07-06T04:00:00.000Z,here,"
            + rest + "\n"
            + "2019-07-06T03:21:00.000Z,35.6,-117.4,5,2.2,ml,,,,,XY,XY123,2019-07-06T04:00:00.000Z,there," + rest + "\n"
        TestSupport.write(csv, to: dir + "/three.csv")
        let storedPage = "http://earthquake.usgs.gov/earthquakes/eventpage/nc72050181"
        let storedDetail = "http://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/nc72050181.geojson"
        let geojson = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"mag":0.5,"#
            + #""place":"6km W of Cobb, California","time":1376622471100,"updated":1376622567729,"#
            + #""url":"\#(storedPage)","detail":"\#(storedDetail)","net":"nc","code":"72050181","type":"earthquake"},"#
            + #""geometry":{"type":"Point","coordinates":[-122.7947,38.8283,2.4]},"id":"nc72050181"}]}"#
        TestSupport.write(geojson, to: dir + "/one.geojson")
        let (store, _, rejects) = try TestSupport.load([dir + "/three.csv", dir + "/one.geojson"])
        #expect(rejects.isEmpty)
        let sink = OutputSink(capturing: ())
        try store.export(format: .geojson, to: sink)
        sink.flush()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(sink.captured)) as? [String: Any])
        let features = try #require(json["features"] as? [[String: Any]])
        var props: [String: [String: Any]] = [:]
        for f in features {
            if let id = f["id"] as? String, let p = f["properties"] as? [String: Any] { props[id] = p }
        }
        #expect(props.count == 4)
        #expect(props["ci38457511"]?["url"] as? String == Self.page + "ci38457511")
        #expect(props["ci38457511"]?["detail"] as? String == Self.detail + "ci38457511&format=geojson")
        for id in ["ci38457512", "XY123"] {
            #expect(props[id]?["url"] is NSNull, "\(id): \(props[id]?["url"] ?? "missing")")
            #expect(props[id]?["detail"] is NSNull, "\(id): \(props[id]?["detail"] ?? "missing")")
        }
        #expect(props["nc72050181"]?["url"] as? String == storedPage)
        #expect(props["nc72050181"]?["detail"] as? String == storedDetail)
        // an export answers no request: its metadata has no url, and keeps its own title
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect(metadata["url"] == nil && metadata["title"] as? String == "quakes export")
        #expect(metadata["status"] as? Int == 200 && metadata["count"] as? Int == 4)
    }

    /// A real feed as CSV, exported as GeoJSON: every event's page is the one USGS's GeoJSON of the
    /// same snapshot links.
    @Test(.enabled(if: TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv")
        .map { FileManager.default.fileExists(atPath: $0) } ?? false, "needs ../shared/usgs (real USGS feeds)"))
    func theDerivedEventPagesAreUSGSsOwn() throws {
        let csv = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let twin = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        /// id -> the feature's url ("null" when it has none)
        func pages(_ data: Data) throws -> [String: String] {
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var out: [String: String] = [:]
            for f in json["features"] as? [[String: Any]] ?? [] {
                guard let id = f["id"] as? String else { continue }
                out[id] = (f["properties"] as? [String: Any])?["url"] as? String ?? "null"
            }
            return out
        }
        let want = try pages(Data(contentsOf: URL(fileURLWithPath: twin)))
        let (store, _, _) = try TestSupport.load([csv])
        let sink = OutputSink(capturing: ())
        try store.export(format: .geojson, to: sink)
        sink.flush()
        let got = try pages(Data(sink.captured))
        #expect(got.count == want.count && got.count == 3121)
        let wrong = want.filter { id, page in got[id] != page }
        let example = wrong.first.map { "\($0.key): \(got[$0.key] ?? "missing"), USGS \($0.value)" } ?? ""
        #expect(wrong.isEmpty, "\(wrong.count) event pages differ from USGS's, e.g. \(example)")
    }
}
