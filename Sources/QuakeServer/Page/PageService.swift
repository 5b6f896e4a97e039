import Foundation
import Synchronization
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeSupport
import QuakeInterchange
import QuakeStore

/// The quake browser: the page at `/`, its assets, its data request (`/api/day`), its
/// statistics (`/api/fmd`), its downloads (`/api/download`), one event's fields (`/api/event`),
/// live updates (`/api/live`, Server-Sent Events) and the coastlines it draws (`/api/coastlines`).
struct PageService: Sendable {
    let source: SnapshotSource
    let coastlines: CoastlineCache
    let live = LiveGate()

    func register(on routes: Routes) {
        routes.get("/") { _, _ in Self.asset("index.html") }
        routes.get("/index.html") { _, _ in Self.asset("index.html") }
        routes.get("/assets/:name") { _, context in
            Self.asset(context.parameters.get("name") ?? "")
        }
        routes.get("/api/day") { r, _ in await self.view(r) }
        routes.get("/api/fmd") { r, _ in await self.frequencyMagnitude(r) }
        routes.get("/api/download") { r, _ in await self.download(r) }
        routes.get("/api/event") { r, _ in await self.event(r) }
        routes.get("/api/live") { r, _ in self.live(r) }
        routes.get("/api/coastlines") { r, _ in self.coastlineResponse(r) }
        routes.get("/healthz") { _, _ in FDSNService.plain("ok\n") }
    }

    /// An embedded asset by name; the names are a fixed table, so no path reaches the disk.
    static func asset(_ name: String) -> Response {
        guard let asset = PageAssets.named(name) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "Not found\n")))
        }
        return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static func jsonError(_ error: any Error) -> Response {
        let failure = error as? FDSNError ?? FDSNError(status: 500, detail: "\(error)")
        let body = "{\"error\":\(FDSNError.quoted(failure.detail))}\n"
        return Response(status: .init(code: failure.status), headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    // MARK: /api/coastlines

    func coastlineResponse(_ r: Request) -> Response {
        switch coastlines.geoJSON() {
        case .success(let bytes):
            var headers: HTTPFields = [.contentType: "application/geo+json", .cacheControl: "max-age=86400"]
            var body = bytes
            if StreamedBody.acceptsGzip(r), let compressor = GzipStream(level: 6) {
                body = compressor.compress(bytes, final: true)
                headers[.contentEncoding] = "gzip"
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        case .failure(let failure):
            return Self.jsonError(FDSNError(status: 404, detail: failure.description))
        }
    }

    // MARK: /api/live

    /// Server-Sent Events: `event: change` with the new generation whenever a commit could
    /// change the answer of the given window (`day`, `starttime`/`endtime` or `last`), and a
    /// comment every 15 s so that a gone client is noticed.
    func live(_ r: Request) -> Response {
        // the window of the page's view; the past hours reach on into the future
        var filter = Filter.all
        do {
            guard let items = QueryString.parse(r.uri.query) else {
                throw FDSNError.badRequest("malformed query string")
            }
            let view = try ViewRequest(items.filter { ["day", "starttime", "endtime", "last"].contains($0.name) })
            if !view.needsNewestDay {
                let open = items.contains { $0.name == "last" }
                filter = .timeRange(.time, lower: view.start, upper: open ? nil : view.end)
            }
        } catch {
            return Self.jsonError(error)
        }
        let path = source.store.path, dayFilter = filter
        let channel = PieceChannel(depth: 2)
        guard live.enter() else {
            let why = live.isStopping ? "the server is stopping" : "too many live pages open (\(LiveGate.limit))"
            return Self.jsonError(FDSNError(status: 503, detail: why))
        }
        let gate = live
        channel.startLongLived { ch in
            defer { gate.leave() }
            let store = try Store(path: path)
            let feed = try ChangeFeed(store: store, filter: dayFilter)
            try ch.push(.head(0))
            try ch.push(.piece(Array("retry: 1000\nevent: hello\ndata: {\"generation\":\(feed.generation)}\n\n".utf8)))
            var identity = FileIO.identity(Store.manifestPath(path))
            var quiet = 0
            // until the client leaves (a push throws) or the server stops (the stream ends whole)
            while !gate.isStopping {
                Thread.sleep(forTimeInterval: 0.2)
                if gate.isStopping { break }
                quiet += 1
                let now = FileIO.identity(Store.manifestPath(path))
                if now != identity {
                    identity = now
                    let old = store.manifest
                    try store.refresh()
                    let new = store.manifest
                    if new.generation != old.generation, try feed.couldAffect(from: old, to: new) {
                        try ch.push(.piece(Array("event: change\ndata: {\"generation\":\(new.generation)}\n\n".utf8)))
                        quiet = 0
                    }
                }
                if quiet >= 75 {
                    try ch.push(.piece(Array(": keep-alive\n\n".utf8)))
                    quiet = 0
                }
            }
        }
        var headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        headers[FDSNService.generationHeader] = String((try? source.current().generation) ?? 0)
        return Response(status: .ok, headers: headers, body: StreamedBody.body(channel))
    }
}

/// The coastline GeoJSON, built once from the dataset on first use.
final class CoastlineCache: Sendable {
    private let result: Result<[UInt8], QuakeError>

    init(path: String = Coastlines.defaultPath) {
        result = Result { () throws(QuakeError) in try Coastlines(path: path).geoJSON() }
    }

    func geoJSON() -> Result<[UInt8], QuakeError> { result }
}

/// Bounds the live feeds open at once: each holds a thread while its page is open. Once the
/// server stops (``stop()``), open feeds end within a fifth of a second and no new one opens.
final class LiveGate: Sendable {
    static let limit = 256
    private let count = Mutex(0)
    private let stopping = Atomic(false)

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func enter() -> Bool {
        guard !isStopping else { return false }
        return count.locked { active in
            guard active < Self.limit else { return false }
            active += 1
            return true
        }
    }

    func leave() { count.locked { $0 -= 1 } }

    func stop() { stopping.store(true, ordering: .releasing) }
}
