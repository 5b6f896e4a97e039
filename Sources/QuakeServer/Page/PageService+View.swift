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
        return cachedJSON(route: "day", query: query, gzip: gzip, followsClock: req.followsClock,
                          source: source) { snap in try viewJSON(req, snap) }
    }

    /// The newest (or, `ascending`, the oldest) event time matching `filter`.
    static func firstTime(_ filter: Filter, ascending: Bool, _ snap: SnapshotSource.Snapshot) throws -> Int64? {
        var found: Int64?
        let spec = QuerySpec(filter: filter, sort: [SortKey(.time, ascending: ascending)], limit: 1)
        _ = try snap.store.query(spec, columns: [.time], snapshot: snap.manifest, begin: { _, _ in }, chunk: { result in
            if result.batch.count > 0, result.batch.ints[Column.time.rawValue][0] != RowBatch.null {
                found = result.batch.ints[Column.time.rawValue][0]
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
        _ = try snap.store.query(req.spec, columns: ViewRequest.columns, snapshot: snap.manifest,
                                 begin: { count, _ in
            matched = count
            out.reserveCapacity(300 + count * 120)
            appendHead(req, generation: snap.generation, total: total, matched: count, into: &out)
        }, chunk: { result in
            // the rows go into a buffer of this closure's own, then into `out` at once: appends to a
            // variable the closure captures would check its box's uniqueness on every byte
            let rowsOut = rowsJSON(result.batch, first: !listed)
            if result.batch.count > 0 { listed = true }
            out.append(contentsOf: rowsOut)
        })
        out.append(contentsOf: "],\"before\":".utf8)
        var before: Int64?
        var after: Int64?
        if matched == 0 {
            before = try firstTime(.conjunction([.timeRange(.time, lower: nil, upper: req.start), req.rest.filter]),
                                   ascending: false, snap)
            after = try firstTime(.conjunction([.timeRange(.time, lower: req.end, upper: nil), req.rest.filter]),
                                  ascending: true, snap)
        }
        for (index, time) in [before, after].enumerated() {
            if index == 1 { out.append(contentsOf: ",\"after\":".utf8) }
            if let time { FeedWriter.jsonString(ViewRequest.dayText(time).utf8, into: &out) } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(contentsOf: "}\n".utf8)
        return (out, matched)
    }

    /// The answer up to its `events` list: generation, day, label, window, total and matched.
    private static func appendHead(_ req: ViewRequest, generation: Int, total: Int,
                                   matched: Int, into out: inout [UInt8]) {
        out.append(contentsOf: "{\"generation\":\(generation),\"day\":".utf8)
        if let day = req.day {
            FeedWriter.jsonString(day.utf8, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: ",\"label\":".utf8)
        FeedWriter.jsonString(req.label.utf8, into: &out)
        out.append(contentsOf: ",\"start\":\(req.start),\"end\":\(req.end),\"total\":\(total),".utf8)
        out.append(contentsOf: "\"matched\":\(matched),\"events\":[".utf8)
    }

    /// A chunk's rows as JSON arrays, a comma before each but (when `first`) the first.
    private static func rowsJSON(_ batch: RowBatch, first: Bool) -> [UInt8] {
        // the columns taken out of the batch once a chunk; per row, bytes appended, no String
        let times = batch.ints[Column.time.rawValue]
        let mags = batch.ints[Column.mag.rawValue]
        let depths = batch.ints[Column.depth.rawValue]
        let lats = batch.ints[Column.latitude.rawValue]
        let lons = batch.ints[Column.longitude.rawValue]
        let ids = batch.text[Column.id.rawValue]
        let places = batch.text[Column.place.rawValue]
        let magTypes = batch.text[Column.magType.rawValue]
        let types = batch.text[Column.type.rawValue]
        var rowsOut: [UInt8] = []
        rowsOut.reserveCapacity(batch.count * 128)
        var first = first
        for i in 0..<batch.count {
            if !first { rowsOut.append(UInt8(ascii: ",")) }
            first = false
            rowsOut.append(UInt8(ascii: "["))
            text(ids, i, &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            if times[i] == RowBatch.null { rowsOut.append(contentsOf: "null".utf8) } else {
                FeedWriter.integer(times[i], into: &rowsOut)
            }
            rowsOut.append(UInt8(ascii: ","))
            number(mags[i], &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            text(places, i, &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            number(depths[i], &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            number(lats[i], &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            number(lons[i], &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            text(magTypes, i, &rowsOut)
            rowsOut.append(UInt8(ascii: ","))
            text(types, i, &rowsOut)
            rowsOut.append(UInt8(ascii: "]"))
        }
        return rowsOut
    }

    static func text(_ arena: ByteArena, _ i: Int, _ out: inout [UInt8]) {
        let range = arena.range(i)
        if range.isEmpty {
            out.append(contentsOf: "null".utf8)
        } else {
            FeedWriter.jsonString(arena.bytes[range], into: &out)
        }
    }

    static func number(_ value: Int64, _ out: inout [UInt8]) {
        if value == RowBatch.null {
            out.append(contentsOf: "null".utf8)
        } else {
            ScaledDecimal.format(value, into: &out)
        }
    }
}
