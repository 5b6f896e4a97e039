import Foundation
import Synchronization
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// The quake browser: the page at `/`, its assets, its data request (`/api/day`), live updates
/// (`/api/live`, Server-Sent Events) and the coastlines it draws (`/api/coastlines`).
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
        routes.get("/api/day") { r, _ in await self.day(r) }
        routes.get("/api/live") { r, _ in self.live(r) }
        routes.get("/api/coastlines") { r, _ in self.coastlineResponse(r) }
        routes.get("/healthz") { _, _ in FDSNService.plain("ok\n") }
    }

    /// An embedded asset by name; the names are a fixed table, so no path reaches the disk.
    static func asset(_ name: String) -> Response {
        guard let a = PageAssets.named(name) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "Not found\n")))
        }
        return Response(status: .ok, headers: [.contentType: a.contentType, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: a.bytes)))
    }

    // MARK: /api/day

    func day(_ r: Request) async -> Response {
        // the whole answer is made off the cooperative pool; the async part stays a single await
        // (Swift 6.3's optimizer crashed splitting a larger coroutine here)
        let source = source
        let gzip = StreamedBody.acceptsGzip(r)
        let query = r.uri.query
        return (try? await Blocking.run { Self.dayResponse(query: query, gzip: gzip, source: source) })
            ?? Self.jsonError(FDSNError(status: 503, detail: "the request could not be run"))
    }

    static func dayResponse(query: String?, gzip: Bool, source: SnapshotSource) -> Response {
        let req: DayRequest
        do {
            guard let items = QueryString.parse(query) else { throw FDSNError.badRequest("malformed query string") }
            req = try DayRequest(items)
        } catch {
            return jsonError(error)
        }
        do {
            let snap = try source.current()
            let (body, rows) = try dayJSON(req, snap)
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
            headers[FDSNService.generationHeader] = String(snap.generation)
            headers[FDSNService.rowsHeader] = String(rows)
            var bytes = body
            if gzip, bytes.count > 1024, let z = GzipStream(level: 1) {
                bytes = z.compress(bytes, final: true)
                headers[.contentEncoding] = "gzip"
            }
            headers[.vary] = "Accept-Encoding"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch {
            return jsonError(FDSNError(status: 503, detail: "The store cannot be read: \(error)"))
        }
    }

    /// `{"generation":G,"day":D,"total":N,"matched":M,"events":[[id,time,mag,place,depth,lat,lon,magType,type],...]}`
    /// where `total` counts the whole day and `matched` the day after search and magnitude.
    static func dayJSON(_ req: DayRequest, _ snap: SnapshotSource.Snapshot) throws -> ([UInt8], Int) {
        var req = req
        if req.dayText.isEmpty {
            var newest: Int64?
            let q = QuerySpec(filter: .all, sort: [SortKey(.time, ascending: false)], limit: 1)
            _ = try snap.store.query(q, columns: [.time], snapshot: snap.manifest, begin: { _, _ in }, chunk: { r in
                if r.batch.count > 0 { newest = r.batch.ints[Column.time.rawValue][0] }
            })
            req.resolve(newest: newest)
        }
        let total = try snap.store.count(req.dayFilter, snapshot: snap.manifest)
        var out: [UInt8] = []
        var matched = 0
        let q = QuerySpec(filter: req.filter, sort: req.sort)
        _ = try snap.store.query(q, columns: DayRequest.columns, snapshot: snap.manifest, begin: { count, _ in
            matched = count
            out.reserveCapacity(200 + count * 120)
            out.append(contentsOf: "{\"generation\":\(snap.generation),\"day\":\"\(req.dayText)\",\"total\":\(total),".utf8)
            out.append(contentsOf: "\"matched\":\(count),\"events\":[".utf8)
        }, chunk: { result in
            let b = result.batch
            for i in 0..<b.count {
                if out.last != UInt8(ascii: "[") { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                text(b, .id, i, &out); out.append(UInt8(ascii: ","))
                let t = b.ints[Column.time.rawValue][i]
                out.append(contentsOf: (t == RowBatch.null ? "null" : String(t)).utf8); out.append(UInt8(ascii: ","))
                number(b, .mag, i, &out); out.append(UInt8(ascii: ","))
                text(b, .place, i, &out); out.append(UInt8(ascii: ","))
                number(b, .depth, i, &out); out.append(UInt8(ascii: ","))
                number(b, .latitude, i, &out); out.append(UInt8(ascii: ","))
                number(b, .longitude, i, &out); out.append(UInt8(ascii: ","))
                text(b, .magType, i, &out); out.append(UInt8(ascii: ","))
                text(b, .type, i, &out)
                out.append(UInt8(ascii: "]"))
            }
        })
        out.append(contentsOf: "]}\n".utf8)
        return (out, matched)
    }

    private static func text(_ b: RowBatch, _ c: Column, _ i: Int, _ out: inout [UInt8]) {
        let a = b.text[c.rawValue]
        let r = a.range(i)
        if r.isEmpty { out.append(contentsOf: "null".utf8) } else { FeedWriter.jsonString(a.bytes[r], into: &out) }
    }

    private static func number(_ b: RowBatch, _ c: Column, _ i: Int, _ out: inout [UInt8]) {
        let v = b.ints[c.rawValue][i]
        if v == RowBatch.null { out.append(contentsOf: "null".utf8) } else { ScaledDecimal.format(v, into: &out) }
    }

    static func jsonError(_ error: any Error) -> Response {
        let e = error as? FDSNError ?? FDSNError(status: 500, detail: "\(error)")
        return Response(status: .init(code: e.status), headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\(FDSNError.quoted(e.detail))}\n")))
    }

    // MARK: /api/coastlines

    func coastlineResponse(_ r: Request) -> Response {
        switch coastlines.geoJSON() {
        case .success(let bytes):
            var headers: HTTPFields = [.contentType: "application/geo+json", .cacheControl: "max-age=86400"]
            var body = bytes
            if StreamedBody.acceptsGzip(r), let z = GzipStream(level: 6) {
                body = z.compress(bytes, final: true)
                headers[.contentEncoding] = "gzip"
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        case .failure(let e):
            return Self.jsonError(FDSNError(status: 404, detail: e.description))
        }
    }

    // MARK: /api/live

    /// Server-Sent Events: `event: change` with the new generation whenever a commit could
    /// change the given day's answer, and a comment every 15 s so that a gone client is noticed.
    func live(_ r: Request) -> Response {
        let items = QueryString.parse(r.uri.query) ?? []
        var filter = Filter.all
        if let d = items.first(where: { $0.name == "day" })?.value {
            guard d.utf8.count == 10, let t = Timestamp.parse(d) else {
                return Self.jsonError(FDSNError.badRequest("Bad day value '\(d)': use YYYY-MM-DD"))
            }
            filter = .timeRange(.time, lower: t, upper: t + 86_400_000)
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
        return count.withLock { n in n < Self.limit ? { n += 1; return true }() : false }
    }

    func leave() { count.withLock { $0 -= 1 } }

    func stop() { stopping.store(true, ordering: .releasing) }
}
