import Foundation
import QuakeFormat
import QuakeStore
import QuakeSupport
import Synchronization

/// A small fdsnws-event service over published versions of events, on a ``LoopbackServer``:
/// `application.wadl` (listing `includedeleted`), `count` (with `maxAllowed`) and `query`
/// (GeoJSON, or 204 when nothing matches). An event is its newest published version; a query
/// selects by that version's time (`starttime`, `endtime`, both inclusive) and `updated`
/// (`updatedafter`, exclusive), with tombstones (`status` "deleted") only on `includedeleted=true`.
final class FDSNUpstream: Sendable {
    /// The most events one query returns.
    let limit: Int
    private let versions = Mutex<[Quake]>([])
    private let requests = Mutex<[String]>([])
    private let server = Mutex<LoopbackServer?>(nil)

    init(limit: Int) throws {
        self.limit = limit
        let server = try LoopbackServer { target in self.answer(target) }
        self.server.locked { $0 = server }
    }

    /// The service's base URL.
    var base: String {
        let port = server.locked { $0?.port ?? 0 }
        return "http://127.0.0.1:\(port)/fdsnws/event/1/"
    }

    func stop() { server.locked { $0?.stop() } }

    /// Publishes new versions of events (or first versions of new ones).
    func publish(_ quakes: [Quake]) { versions.locked { $0 += quakes } }

    /// Every request target so far, and forgets them.
    func takeRequests() -> [String] {
        requests.locked { list in
            defer { list = [] }
            return list
        }
    }

    /// Each event's newest version.
    var catalog: [Quake] {
        let all = versions.locked { $0 }
        var newest: [String: Quake] = [:]
        for quake in all where (newest[quake.id]?.updated ?? .distantPast) < (quake.updated ?? .distantPast) {
            newest[quake.id] = quake
        }
        return Array(newest.values)
    }

    private func answer(_ target: String) -> LoopbackServer.Response {
        requests.locked { $0.append(target) }
        guard let components = URLComponents(string: "http://127.0.0.1" + target) else {
            return LoopbackServer.Response(status: 400, contentType: "text/plain", body: Array("bad target\n".utf8))
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        switch components.path {
        case "/fdsnws/event/1/application.wadl":
            let wadl = "<application xmlns=\"http://wadl.dev.java.net/2009/02\"><resources base=\"/\">"
                + "<resource path=\"query\"><method name=\"GET\"><request>"
                + "<param name=\"includedeleted\" style=\"query\" type=\"xs:boolean\"/>"
                + "</request></method></resource></resources></application>\n"
            return LoopbackServer.Response(status: 200, contentType: "application/xml", body: Array(wadl.utf8))
        case "/fdsnws/event/1/count":
            let count = matching(parameters).count
            let json = "{\"count\":\(count),\"maxAllowed\":\(limit)}"
            return LoopbackServer.Response(status: 200, contentType: "application/json", body: Array(json.utf8))
        case "/fdsnws/event/1/query":
            return query(parameters)
        default:
            return LoopbackServer.Response(status: 404, contentType: "text/plain", body: Array("not found\n".utf8))
        }
    }

    private func query(_ parameters: [String: String]) -> LoopbackServer.Response {
        guard parameters["format"] == "geojson" else {
            return LoopbackServer.Response(status: 400, contentType: "text/plain", body: Array("format\n".utf8))
        }
        let found = matching(parameters).sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        if found.isEmpty { return LoopbackServer.Response(status: 204, contentType: "text/plain", body: []) }
        guard found.count <= limit else {
            let words = "Error 400: \(found.count) matching events exceeds search limit of \(limit).\n"
            return LoopbackServer.Response(status: 400, contentType: "text/plain", body: Array(words.utf8))
        }
        var body = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        for (index, quake) in found.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += (try? Store.feature(quake, index: index)) ?? []
        }
        body += Array("]}\n".utf8)
        return LoopbackServer.Response(status: 200, contentType: "application/json", body: body)
    }

    /// The events a query or count with `parameters` selects.
    private func matching(_ parameters: [String: String]) -> [Quake] {
        func time(_ name: String) -> Int64? {
            guard let text = parameters[name] else { return nil }
            return Timestamp.parse(text.hasSuffix("Z") ? text : text + "Z")
        }
        let start = time("starttime")
        let end = time("endtime")
        let updatedAfter = time("updatedafter")
        let deleted = parameters["includedeleted"] == "true"
        return catalog.filter { quake in
            let updated = quake.updated.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
            if let start, quake.timeMilliseconds < start { return false }
            if let end, quake.timeMilliseconds > end { return false }
            if let updatedAfter, updated <= updatedAfter { return false }
            return deleted || quake.status != "deleted"
        }
    }
}
