import Foundation
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// `/api/download` and `/api/event`: what the page lists, as a file, and one event's every field.
extension PageService {
    /// Every event of the view (``ViewRequest`` plus `format=csv|geojson|quakeml|xml|kml`) in the
    /// list's order, streamed as an attachment named after the view (`quakes-2019-07-06.csv`).
    /// Unlike the FDSN service's `query`, it has no `--max-events` cap: the list has none either,
    /// and the body is streamed in chunks, so memory stays bounded.
    func download(_ r: Request) async -> Response {
        let req: ViewRequest
        do {
            guard let items = QueryString.parse(r.uri.query) else {
                throw FDSNError.badRequest("malformed query string")
            }
            guard items.contains(where: { $0.name == "format" }) else {
                throw FDSNError.badRequest("format is required: csv, geojson, quakeml or kml")
            }
            req = try ViewRequest(items, formats: true)
        } catch {
            return Self.jsonError(error)
        }
        let snap: SnapshotSource.Snapshot
        do { snap = try source.current() } catch {
            return Self.jsonError(FDSNError(status: 503, detail: "The store cannot be read: \(error)"))
        }
        var view = req
        if view.needsNewestDay {
            let newest = try? await Blocking.run { try Self.firstTime(Filter.notDeleted, ascending: false, snap) }
            view.resolve(newest: newest ?? nil)
        }
        let gzip = StreamedBody.acceptsGzip(r)
        let answer: (count: Int, channel: PieceChannel)
        do {
            answer = try await FDSNService.stream(view.rest, spec: view.spec, snap: snap, gzip: gzip, cap: nil,
                                                  url: FDSNService.requestURL(r))
        } catch {
            return Self.jsonError(error)
        }
        var response = FDSNService.response(answer, view.rest, snap: snap, gzip: gzip)
        let ext: String
        switch view.rest.format {
        case .quakeml: ext = "xml"
        case .geojson: ext = "geojson"
        case .csv: ext = "csv"
        case .text: ext = "txt"
        case .kml: ext = "kml"
        }
        response.headers[.contentDisposition] = "attachment; filename=\"quakes-\(view.fileLabel).\(ext)\""
        return response
    }

    /// `/api/event?id=ID`: `{"id":…,"time":"…Z",…}` with every stored field of the event, in
    /// storage order (time stamps as ISO 8601, numbers as stored, text as JSON strings); 404 when
    /// no event has that id.
    func event(_ r: Request) async -> Response {
        let items = QueryString.parse(r.uri.query) ?? []
        guard items.count == 1, items[0].name == "id", !items[0].value.isEmpty, items[0].value.utf8.count <= 200 else {
            return Self.jsonError(FDSNError.badRequest("Give one parameter, id, an event id"))
        }
        let id = items[0].value
        let source = source
        return (try? await Blocking.run { () -> Response in
            do {
                let snap = try source.current()
                guard let body = try Self.eventJSON(id, snap) else {
                    return Self.jsonError(FDSNError(status: 404, detail: "No event has id '\(id)'"))
                }
                var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
                headers[FDSNService.generationHeader] = String(snap.generation)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
            } catch {
                return Self.jsonError(FDSNError(status: 503, detail: "The store cannot be read: \(error)"))
            }
        }) ?? Self.jsonError(FDSNError(status: 503, detail: "the request could not be run"))
    }

    static func eventJSON(_ id: String, _ snap: SnapshotSource.Snapshot) throws -> [UInt8]? {
        var out: [UInt8] = []
        let spec = QuerySpec(filter: .conjunction([.oneOf(.id, [id]), Filter.notDeleted]), limit: 1)
        _ = try snap.store.query(spec, columns: Column.allCases, snapshot: snap.manifest, begin: { _, _ in },
                                 chunk: { result in
            let batch = result.batch
            guard batch.count > 0, out.isEmpty else { return }
            out.append(UInt8(ascii: "{"))
            for column in Column.allCases {
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                FeedWriter.jsonString(column.name.utf8, into: &out)
                out.append(UInt8(ascii: ":"))
                switch column.kind {
                case .timestamp:
                    let millis = batch.ints[column.rawValue][0]
                    if millis == RowBatch.null { out.append(contentsOf: "null".utf8) } else {
                        out.append(UInt8(ascii: "\""))
                        Timestamp.format(millis, into: &out)
                        out.append(UInt8(ascii: "\""))
                    }
                case .decimal: number(batch.ints[column.rawValue][0], &out)
                default: text(batch.text[column.rawValue], 0, &out)
                }
            }
            out.append(contentsOf: "}\n".utf8)
        })
        return out.isEmpty ? nil : out
    }
}
