import Foundation
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// `/api/day`: the events of the page's view (``ViewRequest``) as compact JSON.
extension PageService {
    func view(_ r: Request) async -> Response {
        // the whole answer is made off the cooperative pool; the async part stays a single await
        // (Swift 6.3's optimizer crashed splitting a larger coroutine here)
        let source = source
        let gzip = StreamedBody.acceptsGzip(r)
        let query = r.uri.query
        return (try? await Blocking.run { Self.viewResponse(query: query, gzip: gzip, source: source) })
            ?? Self.jsonError(FDSNError(status: 503, detail: "the request could not be run"))
    }

    static func viewResponse(query: String?, gzip: Bool, source: SnapshotSource) -> Response {
        let req: ViewRequest
        do {
            guard let items = QueryString.parse(query) else { throw FDSNError.badRequest("malformed query string") }
            req = try ViewRequest(items)
        } catch {
            return jsonError(error)
        }
        do {
            let snap = try source.current()
            // a fixed window's answer is the same until the next commit; the past hours follow the clock
            let key = req.followsClock ? nil
                : ResponseCache.Key(generation: snap.generation, route: "day", query: query, gzip: gzip)
            let answer: ResponseCache.Answer
            if let key, let kept = source.answers.answer(key) {
                answer = kept
            } else {
                let (body, rows) = try viewJSON(req, snap)
                var bytes = body
                var zipped = false
                if gzip, bytes.count > 1024, let z = GzipStream(level: 1) {
                    bytes = z.compress(bytes, final: true)
                    zipped = true
                }
                answer = ResponseCache.Answer(body: bytes, rows: rows, gzip: zipped)
                if let key { source.answers.keep(key, answer) }
            }
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
            headers[FDSNService.generationHeader] = String(snap.generation)
            headers[FDSNService.rowsHeader] = String(answer.rows)
            if answer.gzip { headers[.contentEncoding] = "gzip" }
            headers[.vary] = "Accept-Encoding"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        } catch {
            return jsonError(FDSNError(status: 503, detail: "The store cannot be read: \(error)"))
        }
    }

    /// The newest (or, `ascending`, the oldest) event time matching `filter`.
    static func firstTime(_ filter: Filter, ascending: Bool, _ snap: SnapshotSource.Snapshot) throws -> Int64? {
        var found: Int64?
        let q = QuerySpec(filter: filter, sort: [SortKey(.time, ascending: ascending)], limit: 1)
        _ = try snap.store.query(q, columns: [.time], snapshot: snap.manifest, begin: { _, _ in }, chunk: { r in
            if r.batch.count > 0, r.batch.ints[Column.time.rawValue][0] != RowBatch.null {
                found = r.batch.ints[Column.time.rawValue][0]
            }
        })
        return found
    }

    /// `{"generation":G,"day":D|null,"label":L,"start":MS,"end":MS,"total":N,"matched":M,
    /// "events":[[id,time,mag,place,depth,lat,lon,magType,type],...],"before":D|null,"after":D|null}`.
    /// `total` counts the whole window and `matched` the list. `before` and `after`, given when
    /// nothing matched, are the nearest earlier and later days with events that the same search,
    /// magnitude and region would list.
    static func viewJSON(_ req: ViewRequest, _ snap: SnapshotSource.Snapshot) throws -> ([UInt8], Int) {
        var req = req
        if req.needsNewestDay { req.resolve(newest: try firstTime(Filter.notDeleted, ascending: false, snap)) }
        let total = try snap.store.count(req.windowFilter, snapshot: snap.manifest)
        var out: [UInt8] = []
        var matched = 0
        var listed = false
        _ = try snap.store.query(req.spec, columns: ViewRequest.columns, snapshot: snap.manifest, begin: { count, _ in
            matched = count
            out.reserveCapacity(300 + count * 120)
            out.append(contentsOf: "{\"generation\":\(snap.generation),\"day\":".utf8)
            if let day = req.day {
                FeedWriter.jsonString(day.utf8, into: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(contentsOf: ",\"label\":".utf8)
            FeedWriter.jsonString(req.label.utf8, into: &out)
            out.append(contentsOf: ",\"start\":\(req.start),\"end\":\(req.end),\"total\":\(total),".utf8)
            out.append(contentsOf: "\"matched\":\(count),\"events\":[".utf8)
        }, chunk: { result in
            // the columns taken out of the batch once a chunk; per row, bytes appended, no String
            let b = result.batch
            let times = b.ints[Column.time.rawValue], mags = b.ints[Column.mag.rawValue]
            let depths = b.ints[Column.depth.rawValue], lats = b.ints[Column.latitude.rawValue]
            let lons = b.ints[Column.longitude.rawValue]
            let ids = b.text[Column.id.rawValue], places = b.text[Column.place.rawValue]
            let magTypes = b.text[Column.magType.rawValue], types = b.text[Column.type.rawValue]
            // the rows go into a buffer of this closure's own, then into `out` at once: appends to a
            // variable the closure captures would check its box's uniqueness on every byte
            var rowsOut: [UInt8] = []
            rowsOut.reserveCapacity(b.count * 128)
            var first = !listed
            for i in 0..<b.count {
                if !first { rowsOut.append(UInt8(ascii: ",")) }
                first = false
                rowsOut.append(UInt8(ascii: "["))
                text(ids, i, &rowsOut); rowsOut.append(UInt8(ascii: ","))
                if times[i] == RowBatch.null { rowsOut.append(contentsOf: "null".utf8) } else {
                    FeedWriter.integer(times[i], into: &rowsOut)
                }
                rowsOut.append(UInt8(ascii: ","))
                number(mags[i], &rowsOut); rowsOut.append(UInt8(ascii: ","))
                text(places, i, &rowsOut); rowsOut.append(UInt8(ascii: ","))
                number(depths[i], &rowsOut); rowsOut.append(UInt8(ascii: ","))
                number(lats[i], &rowsOut); rowsOut.append(UInt8(ascii: ","))
                number(lons[i], &rowsOut); rowsOut.append(UInt8(ascii: ","))
                text(magTypes, i, &rowsOut); rowsOut.append(UInt8(ascii: ","))
                text(types, i, &rowsOut)
                rowsOut.append(UInt8(ascii: "]"))
            }
            if b.count > 0 { listed = true }
            out.append(contentsOf: rowsOut)
        })
        out.append(contentsOf: "],\"before\":".utf8)
        var before: Int64?, after: Int64?
        if matched == 0 {
            before = try firstTime(.conjunction([.timeRange(.time, lower: nil, upper: req.start), req.rest.filter]),
                                   ascending: false, snap)
            after = try firstTime(.conjunction([.timeRange(.time, lower: req.end, upper: nil), req.rest.filter]),
                                  ascending: true, snap)
        }
        for (k, t) in [before, after].enumerated() {
            if k == 1 { out.append(contentsOf: ",\"after\":".utf8) }
            if let t { FeedWriter.jsonString(ViewRequest.dayText(t).utf8, into: &out) } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(contentsOf: "}\n".utf8)
        return (out, matched)
    }

    static func text(_ a: ByteArena, _ i: Int, _ out: inout [UInt8]) {
        let r = a.range(i)
        if r.isEmpty { out.append(contentsOf: "null".utf8) } else { FeedWriter.jsonString(a.bytes[r], into: &out) }
    }

    static func number(_ v: Int64, _ out: inout [UInt8]) {
        if v == RowBatch.null { out.append(contentsOf: "null".utf8) } else { ScaledDecimal.format(v, into: &out) }
    }
}
