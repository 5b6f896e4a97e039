import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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

/// The FDSN event service at `/fdsnws/event/1/`, in process: its answers against the stored rows
/// read naively, and the specification's statuses and bodies.
@Suite struct FDSNServiceTests {
    static let q = "/fdsnws/event/1/query?"
    static let c = "/fdsnws/event/1/count?"

    @Test func countIsTheNumberOfStoredEventsMatching() async throws {
        let live = ServedStore.loaded.live
        let generation = String(ServedStore.loaded.store.manifest.generation)
        try await ServedStore.app().test(.router) { client in
            for m in [nil, 2.5, 4.5, 6.0] as [Double?] {
                let want = live.filter { q in
                    guard let m else { return true }
                    return (q.magnitude ?? -.infinity) >= m
                }.count
                let query = m.map { "minmagnitude=\($0)" } ?? ""
                try await client.execute(uri: Self.c + query, method: .get) { r in
                    #expect(r.status == .ok)
                    #expect(r.headers[.contentType] == "text/plain; charset=utf-8")
                    #expect(r.headers[ServedStore.generation] == generation)
                    #expect(String(buffer: r.body) == "\(want)\n", "count?\(query)")
                }
                try await client.execute(uri: Self.c + query + "&format=geojson", method: .get) { r in
                    let j = try ServedStore.json(r.body)
                    #expect(j["count"] as? Int == want && j["maxAllowed"] as? Int == 20_000, "\(j)")
                }
            }
            // the generator's magnitudes reach past 4.5, so the filter above is not vacuous
            #expect(live.contains { ($0.magnitude ?? 0) >= 4.5 } && live.contains { ($0.magnitude ?? 9) < 4.5 })
        }
    }

    @Test func textQueryListsTheMatchingEventsNewestFirst() async throws {
        let want = ServedStore.loaded.live.filter { ($0.magnitude ?? -99) >= 4 }
        try #require(want.count > 1)
        try await ServedStore.app().test(.router) { client in
            try await client.execute(uri: Self.q + "minmagnitude=4&format=text", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(r.headers[ServedStore.rows] == String(want.count))
                let body = String(buffer: r.body)
                let lines = body.split(separator: "\n")
                #expect(lines.first.map(String.init) == ResultWriter.fdsnTextHeader)
                #expect(lines.first?.hasPrefix("#EventID|Time|Latitude|Longitude|Depth/km|") == true)
                let ids = ServedStore.textIds(body)
                #expect(ids.count == want.count)
                #expect(Set(ids) == Set(want.map(\.id)))
                // orderby defaults to time, newest first: the time column never increases
                let times = lines.dropFirst().map { $0.split(separator: "|", omittingEmptySubsequences: false)[1] }
                #expect(zip(times, times.dropFirst()).allSatisfy { $0 >= $1 })
            }
            // magnitude-asc: the magnitude column (11th) never decreases
            try await client.execute(uri: Self.q + "minmagnitude=4&format=text&orderby=magnitude-asc",
                                     method: .get) { r in
                let mags = String(buffer: r.body).split(separator: "\n").dropFirst()
                    .compactMap { Double($0.split(separator: "|", omittingEmptySubsequences: false)[10]) }
                #expect(mags.count == want.count)
                #expect(zip(mags, mags.dropFirst()).allSatisfy { $0 <= $1 })
            }
        }
    }

    @Test func limitAndOneBasedOffsetPageTheOrderedList() async throws {
        // the naive list in the service's default order, time descending
        let sorted = ServedStore.loaded.live.filter { ($0.magnitude ?? -99) >= 3 }
            .sorted { $0.timeMilliseconds > $1.timeMilliseconds }
        try #require(sorted.count > 10)
        try await ServedStore.app().test(.router) { client in
            for (limit, offset) in [(5, 1), (5, 3), (4, sorted.count - 1)] {
                let uri = Self.q + "minmagnitude=3&format=text&limit=\(limit)&offset=\(offset)"
                try await client.execute(uri: uri, method: .get) { r in
                    let want = sorted[(offset - 1)..<min(sorted.count, offset - 1 + limit)].map(\.id)
                    #expect(r.status == .ok)
                    #expect(ServedStore.textIds(String(buffer: r.body)) == Array(want), "\(uri)")
                }
            }
        }
    }

    @Test func everyFormatCarriesTheSameEvents() async throws {
        let day = ServedStore.newestDay
        let window = "starttime=\(day)&endtime=\(day)T23:59:59.999"
        let want = Set(ServedStore.loaded.live.filter { ServedStore.day($0.timeMilliseconds) == day }.map(\.id))
        try #require(!want.isEmpty)
        try await ServedStore.app().test(.router) { client in
            let ids = try await client.execute(uri: Self.q + window + "&format=text", method: .get) { r in
                ServedStore.textIds(String(buffer: r.body))
            }
            #expect(Set(ids) == want && ids.count == want.count)
            try await client.execute(uri: Self.q + window + "&format=geojson", method: .get) { r in
                #expect(r.headers[.contentType] == "application/json; charset=utf-8")
                let j = try ServedStore.json(r.body)
                let features = try #require(j["features"] as? [[String: Any]])
                #expect(features.compactMap { $0["id"] as? String } == ids)
                #expect((j["metadata"] as? [String: Any])?["count"] as? Int == ids.count)
            }
            try await client.execute(uri: Self.q + window + "&format=csv", method: .get) { r in
                let rows = NaiveCSV.parse(String(buffer: r.body))
                let id = try #require(rows.first?.firstIndex(of: "id"))
                #expect(rows.dropFirst().map { $0[id] } == ids)
            }
            // the default format is QuakeML: well-formed XML whose events' publicIDs end in the ids
            try await client.execute(uri: Self.q + window, method: .get) { r in
                #expect(r.headers[.contentType] == "application/xml; charset=utf-8")
                let xml = try XMLDocumentSummary(String(buffer: r.body))
                let events = xml.attributes(of: "event", "publicID").compactMap { $0.split(separator: "/").last }
                #expect(events.map(String.init) == ids)
            }
            // gzip when the client accepts it, the same text once decompressed
            let plain = try await client.execute(uri: Self.q + window + "&format=csv", method: .get) {
                Array(buffer: $0.body)
            }
            try await client.execute(uri: Self.q + window + "&format=csv", method: .get,
                                     headers: [.acceptEncoding: "gzip"]) { r in
                #expect(r.headers[.contentEncoding] == "gzip")
                let unpacked = try Self.gunzip(Array(buffer: r.body))
                #expect(unpacked == plain)
            }
        }
    }

    @Test func noDataIs204OrWithNodata404() async throws {
        try await ServedStore.app().test(.router) { client in
            try await client.execute(uri: Self.q + "starttime=2100-01-01", method: .get) { r in
                #expect(r.status == .noContent)
                #expect(r.body.readableBytes == 0)
                #expect(r.headers[ServedStore.rows] == "0")
            }
            try await client.execute(uri: Self.q + "starttime=2100-01-01&nodata=404", method: .get) { r in
                #expect(r.status == .notFound)
                #expect(String(buffer: r.body).hasPrefix("Error 404: Not Found\n\nNo data matches the request"))
            }
            try await client.execute(uri: Self.c + "starttime=2100-01-01", method: .get) { r in
                #expect(r.status == .ok && String(buffer: r.body) == "0\n")
            }
        }
    }

    @Test func badParametersAre400NeverServerErrors() async throws {
        let bad = ["bogus=1", "starttime=garbage", "minlatitude=100", "limit=-1", "limit=0", "orderby=bogus",
                   "offset=0", "format=kmz", "nodata=500", "minmagnitude=abc", "minmagnitude=5&maxmagnitude=4",
                   "starttime=2024-02-01&endtime=2024-01-01", "latitude=10", "callback=cb", "limit=1&limit=2",
                   "includearrivals=maybe", "offset=%zz", "minlongitude=400", "eventid="]
        try await ServedStore.app().test(.router) { client in
            for path in [Self.q, Self.c] {
                for query in bad {
                    try await client.execute(uri: path + query, method: .get) { r in
                        #expect(r.status == .badRequest, "\(path)\(query)")
                        #expect(r.headers[.contentType] == "text/plain; charset=utf-8")
                        #expect(String(buffer: r.body).hasPrefix("Error 400: Bad Request\n\n"), "\(path)\(query)")
                    }
                }
            }
            // the specification's error body: the detail, the usage, the request and the version
            try await client.execute(uri: Self.q + "bogus=1", method: .get) { r in
                let t = String(buffer: r.body)
                for part in ["Unknown parameter 'bogus'", "Usage details are available from http://localhost/fdsnws/event/1/",
                             "Request:\nhttp://localhost/fdsnws/event/1/query?bogus=1", "Request Submitted:\n",
                             "Service version:\n1.2.0\n"] {
                    #expect(t.contains(part), "error body lacks \(part)")
                }
            }
            // USGS's JSON errors, even when the other parameter is the bad one
            try await client.execute(uri: Self.q + "minmagnitude=abc&jsonerror=true", method: .get) { r in
                #expect(r.status == .badRequest)
                let meta = try #require(try ServedStore.json(r.body)["metadata"] as? [String: Any])
                #expect(meta["status"] as? Int == 400)
                #expect((meta["error"] as? String)?.contains("minmagnitude") == true)
            }
        }
    }

    @Test func maxEventsCapsQueriesButNotCounts() async throws {
        let total = ServedStore.loaded.live.count
        try #require(total > 100)
        try await ServedStore.app(maxEvents: 100).test(.router) { client in
            try await client.execute(uri: Self.q + "format=text", method: .get) { r in
                #expect(r.status == .badRequest)
                #expect(String(buffer: r.body).contains("\(total) matching events exceeds search limit of 100"))
            }
            try await client.execute(uri: Self.q + "format=text&limit=101", method: .get) { r in
                #expect(r.status == .badRequest && String(buffer: r.body).contains("at most 100"))
            }
            try await client.execute(uri: Self.q + "format=text&limit=100", method: .get) { r in
                #expect(r.status == .ok && ServedStore.textIds(String(buffer: r.body)).count == 100)
            }
            try await client.execute(uri: Self.c, method: .get) { r in
                #expect(r.status == .ok && String(buffer: r.body) == "\(total)\n")
            }
        }
    }

    @Test func versionWadlCatalogsAndContributors() async throws {
        let nets = Set(ServedStore.loaded.all.compactMap(\.net).filter { !$0.isEmpty })
        try #require(!nets.isEmpty)
        try await ServedStore.app().test(.router) { client in
            try await client.execute(uri: "/fdsnws/event/1/version", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(String(buffer: r.body) == "1.2.0\n")
            }
            try await client.execute(uri: "/fdsnws/event/1/application.wadl", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "application/xml; charset=utf-8")
                let wadl = try XMLDocumentSummary(String(buffer: r.body))
                #expect(wadl.root == "application")
                #expect(wadl.attributes(of: "resources", "base") == ["http://localhost/fdsnws/event/1/"])
                // every parameter the service takes is listed, for query and for count
                let params = wadl.attributes(of: "param", "name")
                #expect(params.count == 2 * FDSNRequest.parameters.count)
                #expect(Set(params) == Set(FDSNRequest.parameters))
            }
            for (resource, item) in [("catalogs", "Catalog"), ("contributors", "Contributor")] {
                try await client.execute(uri: "/fdsnws/event/1/" + resource, method: .get) { r in
                    #expect(r.status == .ok)
                    let xml = try XMLDocumentSummary(String(buffer: r.body))
                    #expect(xml.root == resource.prefix(1).uppercased() + resource.dropFirst())
                    #expect(xml.texts(of: item) == nets.sorted())
                }
                try await client.execute(uri: "/fdsnws/event/1/\(resource)?x=1", method: .get) { r in
                    #expect(r.status == .badRequest)
                }
            }
        }
    }

    @Test func methodsUnknownPathsAndCORS() async throws {
        try await ServedStore.app().test(.router) { client in
            try await client.execute(uri: "/fdsnws/event/1/nothing", method: .get) { r in
                #expect(r.status == .notFound)
                #expect(r.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: Self.q + "format=text&limit=1", method: .post) { r in
                #expect(r.status == .methodNotAllowed)
                #expect(r.headers[.allow] == "GET, HEAD")
                #expect(r.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: "/fdsnws/event/1/nothing", method: .delete) { r in
                #expect(r.status == .notFound)
            }
            try await client.execute(uri: Self.q, method: .options) { r in
                #expect(r.status == .noContent)
                #expect(r.headers[.accessControlAllowMethods] == "GET, HEAD")
            }
            // HEAD is the GET without its body
            try await client.execute(uri: Self.q + "format=text&limit=3", method: .head) { r in
                #expect(r.status == .ok)
                #expect(r.headers[ServedStore.rows] == "3")
                #expect(r.body.readableBytes == 0)
            }
            // errors too carry the CORS header
            try await client.execute(uri: Self.q + "bogus=1", method: .get) { r in
                #expect(r.status == .badRequest && r.headers[.accessControlAllowOrigin] == "*")
            }
        }
    }

    static func gunzip(_ packed: [UInt8]) throws -> [UInt8] {
        var given = false
        let dec = GzipDecoder(pull: { () throws(QuakeError) -> [UInt8]? in
            defer { given = true }
            return given ? nil : packed
        })
        var out: [UInt8] = []
        while let piece = try dec.read() { out += piece }
        return out
    }
}

/// A parsed XML document, reduced to what the tests look at: it throws unless the text is
/// well-formed, and keeps each element's local name, attributes and text.
final class XMLDocumentSummary: NSObject, XMLParserDelegate {
    private(set) var root: String?
    private var elements: [(name: String, attributes: [String: String], text: String)] = []
    private var open: [Int] = []

    init(_ text: String) throws {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        guard parser.parse() else {
            throw ServedStore.Unexpected(what: "not well-formed XML: \(String(describing: parser.parserError))")
        }
    }

    func attributes(of element: String, _ attribute: String) -> [String] {
        elements.filter { $0.name == element }.compactMap { $0.attributes[attribute] }
    }

    func texts(of element: String) -> [String] {
        elements.filter { $0.name == element }.map(\.text)
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let local = String(name.split(separator: ":").last ?? Substring(name))
        if root == nil { root = local }
        open.append(elements.count)
        elements.append((local, attributes, ""))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        _ = open.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = open.last { elements[i].text += string }
    }
}
