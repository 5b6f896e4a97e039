import Foundation
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// The FDSN event service (fdsnws-event 1.2) at `/fdsnws/event/1/`: `query`, `count`,
/// `version`, `application.wadl`, `catalogs` and `contributors`, over the store's newest snapshot.
struct FDSNService: Sendable {
    /// The specification version the service implements.
    static let version = "1.2.0"
    static let root = "/fdsnws/event/1/"

    let source: SnapshotSource
    let maxEvents: Int

    func register(on routes: Routes) {
        routes.get("/fdsnws/event/1/") { r, _ in Self.plain(Self.usage(r)) }
        routes.get("/fdsnws/event/1/version") { _, _ in Self.plain(Self.version + "\n") }
        routes.get("/fdsnws/event/1/application.wadl") { r, _ in
            Response(status: .ok, headers: [.contentType: "application/xml; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: FDSNWadl.document(base: Self.base(r)))))
        }
        routes.get("/fdsnws/event/1/catalogs") { r, _ in try await self.names(r, root: "Catalogs", item: "Catalog") }
        routes.get("/fdsnws/event/1/contributors") { r, _ in
            try await self.names(r, root: "Contributors", item: "Contributor")
        }
        routes.get("/fdsnws/event/1/query") { r, _ in await self.query(r) }
        routes.get("/fdsnws/event/1/count") { r, _ in await self.count(r) }
    }

    // MARK: query

    func query(_ r: Request) async -> Response {
        let parsed: FDSNRequest
        do { parsed = try Self.parse(r, maxEvents: maxEvents) } catch { return Self.error(error, r) }
        let snap: SnapshotSource.Snapshot
        do { snap = try source.current() } catch { return Self.storeError(error, r) }
        let cap = parsed.limit == nil ? maxEvents : nil
        let gzip = StreamedBody.acceptsGzip(r)
        // a recent answer of this generation to the same request, as it was sent
        let key = ResponseCache.Key(generation: snap.generation, route: Self.cacheRoute(parsed, r), query: r.uri.query,
                                    gzip: gzip)
        // or, while another request is making that answer, the answer it makes
        let first: Bool
        switch await source.answers.turn(key) {
        case .kept(let kept): return Self.response(kept, parsed, snap: snap)
        case .make(let isFirst): first = isFirst
        }
        let answer: (count: Int, channel: PieceChannel)
        do {
            answer = try await Self.stream(parsed, spec: parsed.spec, snap: snap, gzip: gzip, cap: cap,
                                           url: Self.requestURL(r), keep: (source.answers, key, first))
        } catch {
            return Self.error(error, r)
        }
        if answer.count == 0 {
            answer.channel.cancel()
            return noData(parsed, r, generation: snap.generation)
        }
        return Self.response(answer, parsed, snap: snap, gzip: gzip)
    }

    /// Starts streaming `spec`'s events in `parsed`'s format, off the cooperative pool, and waits
    /// for the count. With a `cap`, more matching events than that is a 400 before anything is sent.
    /// With `keep`, a whole answer is kept in the cache; when `first`, requests wait for it
    /// (``ResponseCache/turn(_:patience:)``), and its end, kept or not, lets them go on.
    /// `url`, the request as sent, goes in a GeoJSON answer's metadata.
    /// - Returns: the count, and the channel whose pieces are the body (cancel it when unused).
    static func stream(_ parsed: FDSNRequest, spec: QuerySpec, snap: SnapshotSource.Snapshot, gzip: Bool,
                       cap: Int?, url: String? = nil,
                       keep: (cache: ResponseCache, key: ResponseCache.Key, first: Bool)? = nil)
        async throws -> (count: Int, channel: PieceChannel) {
        let channel = PieceChannel()
        await channel.start { ch in
            defer { if let keep, keep.first { keep.cache.made(keep.key) } }
            // a copy for the cache while it is sent, when few others are being copied
            let copying = keep?.cache.startCopy() ?? false
            defer { if copying { keep?.cache.endCopy() } }
            let out = PieceWriter(channel: ch, gzip: gzip, keep: copying ? keep?.cache.entryLimit ?? 0 : 0)
            var rows = 0
            let enc = EventEncoder(parsed, sink: out.sink, url: url)
            if let cap {
                let matching = try snap.store.count(spec.filter, snapshot: snap.manifest)
                if matching - spec.offset > cap {
                    throw FDSNError.badRequest("\(matching - spec.offset) matching events exceeds search limit of "
                        + "\(cap). Modify the search to match fewer events.")
                }
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try snap.store.query(spec, columns: enc.columns, chunkRows: 2048, snapshot: snap.manifest,
                                     begin: { count, _ in
                rows = count
                try ch.push(.head(count))
                if count > 0 { enc.begin(count: count, generated: now) }
            }, chunk: { result in
                let batch = result.batch
                for i in 0..<batch.count {
                    enc.row(batch, i)
                    if i & 63 == 63 { try out.send() }
                }
                try out.send()
            })
            enc.end()
            try out.finish()
            // a whole answer with rows, small enough: kept for the same request on this generation
            if let keep, rows > 0, let body = out.sent {
                keep.cache.keep(keep.key, ResponseCache.Answer(body: body, rows: rows, gzip: gzip))
            }
        }
        let head: PieceChannel.Message?
        do { head = try await channel.next() } catch {
            channel.cancel()
            throw error
        }
        guard case .head(let count)? = head else {
            channel.cancel()
            throw FDSNError(status: 500, detail: "the query ended before its answer began")
        }
        return (count, channel)
    }

    /// The streamed answer's response: its content type, generation and row count.
    static func response(_ answer: (count: Int, channel: PieceChannel), _ parsed: FDSNRequest,
                         snap: SnapshotSource.Snapshot, gzip: Bool) -> Response {
        var headers: HTTPFields = [.contentType: EventEncoder(parsed, sink: OutputSink(capturing: ())).contentType]
        headers[Self.generationHeader] = String(snap.generation)
        headers[Self.rowsHeader] = String(answer.count)
        if gzip { headers[.contentEncoding] = "gzip" }
        headers[.vary] = "Accept-Encoding"
        return Response(status: .ok, headers: headers, body: StreamedBody.body(answer.channel))
    }

    /// A kept answer (``ResponseCache``), with the headers and framing its first sending had:
    /// chunked, as every `query` answer is, so that a HEAD and a GET agree whichever was kept.
    static func response(_ kept: ResponseCache.Answer, _ parsed: FDSNRequest,
                         snap: SnapshotSource.Snapshot) -> Response {
        var headers: HTTPFields = [.contentType: EventEncoder(parsed, sink: OutputSink(capturing: ())).contentType]
        headers[Self.generationHeader] = String(snap.generation)
        headers[Self.rowsHeader] = String(kept.rows)
        if kept.gzip { headers[.contentEncoding] = "gzip" }
        headers[.vary] = "Accept-Encoding"
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(bytes: kept.body))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    func count(_ r: Request) async -> Response {
        let parsed: FDSNRequest
        do { parsed = try Self.parse(r, maxEvents: maxEvents) } catch { return Self.error(error, r) }
        do {
            let snap = try source.current()
            let matching = try await Blocking.run { try snap.store.count(parsed.filter, snapshot: snap.manifest) }
            var headers: HTTPFields = [:]
            headers[Self.generationHeader] = String(snap.generation)
            let body: String
            if parsed.format == .geojson {
                headers[.contentType] = "application/json; charset=utf-8"
                let json = "{\"count\":\(matching),\"maxAllowed\":\(maxEvents)}"
                body = parsed.callback.map { "\($0)(\(json));\n" } ?? json + "\n"
            } else {
                headers[.contentType] = "text/plain; charset=utf-8"
                body = "\(matching)\n"
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        } catch {
            return Self.storeError(error, r)
        }
    }

    /// `catalogs` and `contributors`: the networks of the stored events, as XML.
    func names(_ r: Request, root: String, item: String) async throws -> Response {
        guard (r.uri.query ?? "").isEmpty else {
            return Self.error(FDSNError.badRequest("\(r.uri.path) takes no parameters"), r)
        }
        do {
            let snap = try source.current()
            let nets = try await Blocking.run { try NetworkList.names(snap) }
            var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<\(root)>\n"
            for n in nets { xml += "<\(item)>\(Self.xmlEscaped(n))</\(item)>\n" }
            xml += "</\(root)>\n"
            var headers: HTTPFields = [.contentType: "application/xml; charset=utf-8"]
            headers[Self.generationHeader] = String(snap.generation)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: xml)))
        } catch {
            return Self.storeError(error, r)
        }
    }

    // MARK: helpers

    static let generationHeader = HTTPField.Name("X-Quakes-Generation")!
    static let rowsHeader = HTTPField.Name("X-Quakes-Rows")!

    static func parse(_ r: Request, maxEvents: Int) throws(FDSNError) -> FDSNRequest {
        guard let items = QueryString.parse(r.uri.query) else {
            throw .badRequest("The query string has a malformed %-escape or is not UTF-8")
        }
        return try FDSNRequest(items, maxEvents: maxEvents)
    }

    /// Whether the request asked for JSON errors (read from the raw parameters, so that it holds
    /// even when another parameter is bad).
    static func wantsJSONError(_ r: Request) -> Bool {
        (QueryString.parse(r.uri.query) ?? []).contains { $0.name.lowercased() == "jsonerror" && $0.value == "true" }
    }

    func noData(_ p: FDSNRequest, _ r: Request, generation: Int) -> Response {
        var headers: HTTPFields = [:]
        headers[Self.generationHeader] = String(generation)
        headers[Self.rowsHeader] = "0"
        guard p.noData == 404 else { return Response(status: .noContent, headers: headers) }
        let noMatch = FDSNError(status: 404, detail: "No data matches the request")
        var response = Self.error(noMatch, r)
        response.headers[Self.generationHeader] = String(generation)
        return response
    }

    /// The specification's error response for `error` (an ``FDSNError``, or anything else as a 500).
    static func error(_ error: any Error, _ r: Request) -> Response {
        let failure = error as? FDSNError ?? FDSNError(status: 500, detail: "\(error)")
        let json = wantsJSONError(r)
        let request = requestURL(r)
        let body = json ? failure.json(request: request) : failure.text(request: request, usage: base(r) + Self.root)
        return Response(status: .init(code: failure.status),
                        headers: [.contentType: json ? "application/json; charset=utf-8" : "text/plain; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// A store that cannot be read (damaged, or replaced by something that is not a store):
    /// the service is unavailable, and says why.
    static func storeError(_ error: any Error, _ r: Request) -> Response {
        if error is FDSNError { return Self.error(error, r) }
        let detail = (error as? QuakeError)?.description ?? "\(error)"
        return Self.error(FDSNError(status: 503, detail: "The store cannot be read: " + detail), r)
    }

    static func base(_ r: Request) -> String {
        "http://" + (r.head.authority ?? "127.0.0.1")
    }

    /// The request as the client sent it: the scheme, the host it named (its Host header), the
    /// path and the query, as a GeoJSON answer's `metadata.url` and an error's `Request:` give it.
    static func requestURL(_ r: Request) -> String {
        base(r) + r.uri.description
    }

    /// The cache's route of a `query` answer: a GeoJSON answer names its request's host
    /// (``requestURL(_:)``), so one asked of another host name is another answer.
    static func cacheRoute(_ parsed: FDSNRequest, _ r: Request) -> String {
        parsed.format == .geojson ? "query " + base(r) : "query"
    }

    static func plain(_ s: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: s)))
    }

    static func redirect(_ to: String) -> Response {
        Response(status: .movedPermanently, headers: [.location: to])
    }

    static func usage(_ r: Request) -> String {
        let service = base(r) + root
        return """
        quakes FDSN event service (fdsnws-event \(version))

        \(service)query?starttime=2024-01-01&endtime=2024-01-02&minmagnitude=4&format=geojson
        \(service)count?minmagnitude=6
        \(service)version
        \(service)application.wadl
        \(service)catalogs
        \(service)contributors

        Parameters: \(FDSNRequest.parameters.joined(separator: ", "))
        offset counts from 1; orderby is time, time-asc, magnitude or magnitude-asc; format is xml
        (QuakeML 1.2, the default), quakeml, geojson, csv, text or kml; nodata is 204 or 404.

        """
    }

    static func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
