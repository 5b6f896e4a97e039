import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport

/// The service's GeoJSON answers (and the page's GeoJSON download, which the same writer makes)
/// in USGS's shape: `metadata` with the request's `url`, a `title`, `status`, `api` and `count`,
/// and USGS's `url` and `detail` on every event with a ComCat id, even one loaded from CSV.
@Suite struct FDSNGeoJSONTests {
    static let page = "https://earthquake.usgs.gov/earthquakes/eventpage/"
    static let detail = "https://earthquake.usgs.gov/fdsnws/event/1/query?eventid="

    /// Where each of `keys` is in the body's metadata object (nil when one is missing).
    static func metadataPositions(_ body: String, _ keys: [String]) -> [Int]? {
        guard let start = body.range(of: "\"metadata\":{"), let end = body[start.upperBound...].firstIndex(of: "}")
        else { return nil }
        let object = body[start.upperBound..<end]
        var positions: [Int] = []
        for key in keys {
            guard let at = object.range(of: "\"\(key)\":") else { return nil }
            positions.append(object.distance(from: object.startIndex, to: at.lowerBound))
        }
        return positions
    }

    @Test func geoJSONAnswersCarryTheRequestAndUSGSsMetadata() async throws {
        let query = "/fdsnws/event/1/query?minmagnitude=4&format=geojson"
        let now = Date().timeIntervalSince1970 * 1000
        try await ServedStore.app().test(.router) { client in
            // twice: the second answer is the kept one, and says the same
            for _ in 0..<2 {
                try await client.execute(uri: query, method: .get) { r in
                    #expect(r.status == .ok)
                    let body = String(buffer: r.body)
                    let j = try ServedStore.json(r.body)
                    let meta = try #require(j["metadata"] as? [String: Any])
                    let features = try #require(j["features"] as? [[String: Any]])
                    #expect(meta["url"] as? String == "http://localhost" + query)
                    #expect(meta["title"] as? String == "quakes Earthquakes")
                    #expect(meta["status"] as? Int == 200)
                    #expect(meta["api"] as? String == FDSNService.version)
                    #expect(meta["count"] as? Int == features.count && !features.isEmpty)
                    let generated = try #require((meta["generated"] as? NSNumber)?.doubleValue)
                    // made during this test: after it began, before the answer came (however slow the machine)
                    let answered = Date().timeIntervalSince1970 * 1000
                    #expect(generated >= now - 1_000 && generated <= answered + 1_000,
                            "generated \(generated), test began \(now), answered \(answered)")
                    // USGS's order
                    let keys = ["generated", "url", "title", "status", "api", "count"]
                    let positions = try #require(Self.metadataPositions(body, keys), "\(body.prefix(300))")
                    #expect(positions == positions.sorted(), "\(body.prefix(300))")
                }
            }
            // JSONP: the same metadata inside the callback
            try await client.execute(uri: query + "&callback=cb", method: .get) { r in
                let body = String(buffer: r.body)
                #expect(body.hasPrefix("cb({"))
                #expect(body.contains("\"url\":\"http://localhost\(query)&callback=cb\""))
            }
        }
    }

    @Test func eventsLoadedFromCSVGetUSGSsLinksByTheirComCatIds() async throws {
        let day = ServedStore.newestDay
        // the generated events come as CSV: none has a url or a detail stored
        let ofDay = ServedStore.loaded.live.filter { ServedStore.day($0.timeMilliseconds) == day }
        #expect(ofDay.allSatisfy { $0.url == nil && $0.detail == nil })
        let comcat = ofDay.filter { FeedWriter.isComCatId(Array($0.id.utf8), net: Array(($0.net ?? "").utf8)) }
        try #require(!comcat.isEmpty)
        let uris = ["/fdsnws/event/1/query?format=geojson&starttime=\(day)&endtime=\(day)T23:59:59.999",
                    "/api/download?day=\(day)&format=geojson"]
        try await ServedStore.app().test(.router) { client in
            for uri in uris {
                try await client.execute(uri: uri, method: .get) { r in
                    #expect(r.status == .ok, "\(uri)")
                    let j = try ServedStore.json(r.body)
                    let features = try #require(j["features"] as? [[String: Any]])
                    var props: [String: [String: Any]] = [:]
                    for f in features {
                        if let id = f["id"] as? String, let p = f["properties"] as? [String: Any] { props[id] = p }
                    }
                    #expect(props.count == ofDay.count, "\(uri)")
                    let wrong = ofDay.filter { q in
                        let isComCat = comcat.contains { $0.id == q.id }
                        let url = props[q.id]?["url"] as? String, detail = props[q.id]?["detail"] as? String
                        return url != (isComCat ? Self.page + q.id : nil)
                            || detail != (isComCat ? Self.detail + q.id + "&format=geojson" : nil)
                    }
                    let example = wrong.first.map { q in
                        let p = props[q.id]
                        return "\(q.id): url \(p?["url"] ?? "missing"), detail \(p?["detail"] ?? "missing")"
                    } ?? ""
                    #expect(wrong.isEmpty, "\(uri): \(wrong.count) of \(ofDay.count) links wrong, e.g. \(example)")
                    let meta = try #require(j["metadata"] as? [String: Any])
                    #expect(meta["url"] as? String == "http://localhost" + uri)
                    #expect(meta["title"] as? String == "quakes Earthquakes")
                }
            }
        }
    }

    /// The url names the host the client asked: an answer kept for one host name is not sent to
    /// another.
    @Test func theRequestURLIsTheHostAskedAndPartOfTheCacheKey() throws {
        func request(_ authority: String, _ path: String) -> Request {
            let head = HTTPRequest(method: .get, scheme: "http", authority: authority, path: path)
            return Request(head: head, body: .init(buffer: ByteBuffer()))
        }
        let path = "/fdsnws/event/1/query?format=geojson&eventid=ci38457511"
        let a = request("quakes.example:8080", path), b = request("127.0.0.1:8080", path)
        #expect(FDSNService.requestURL(a) == "http://quakes.example:8080" + path)
        #expect(FDSNService.requestURL(b) == "http://127.0.0.1:8080" + path)
        let geojson = try FDSNService.parse(a, maxEvents: 100)
        #expect(FDSNService.cacheRoute(geojson, a) != FDSNService.cacheRoute(geojson, b))
        // other formats do not name the host: one kept answer serves every host name
        let text = "/fdsnws/event/1/query?format=text&eventid=ci38457511"
        let plain = try FDSNService.parse(request("x", text), maxEvents: 100)
        #expect(FDSNService.cacheRoute(plain, request("x", text)) == FDSNService.cacheRoute(plain, request("y", text)))
    }
}
