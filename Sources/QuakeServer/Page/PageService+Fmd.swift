import Foundation
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// `/api/fmd`: the frequency–magnitude distribution of the page's view, for its Statistics panel.
extension PageService {
    /// The view's distribution (``FmdRequest``) as `quakes fmd --format json` writes it, with the
    /// window and its counts in time after it; a bad parameter is a 400.
    func frequencyMagnitude(_ r: Request) async -> Response {
        let source = source
        let gzip = StreamedBody.acceptsGzip(r)
        let query = r.uri.query
        return (try? await Blocking.run { Self.fmdResponse(query: query, gzip: gzip, source: source) })
            ?? Self.jsonError(FDSNError(status: 503, detail: "the request could not be run"))
    }

    static func fmdResponse(query: String?, gzip: Bool, source: SnapshotSource) -> Response {
        let req: FmdRequest
        do {
            guard let items = QueryString.parse(query) else { throw FDSNError.badRequest("malformed query string") }
            req = try FmdRequest(items)
        } catch {
            return jsonError(error)
        }
        return cachedJSON(route: "fmd", query: query, gzip: gzip, followsClock: req.view.followsClock,
                          source: source) { snap in try fmdJSON(req, snap) }
    }

    /// `quakes fmd --format json`'s object for the view's events (`count`, `without_magnitude`,
    /// `bin`, `mc`, `events_above_mc`, `b`, `b_uncertainty`, `a`, `bins`), then
    /// `"generation":G,"day":D|null,"label":L,"start":MS,"end":MS` as `/api/day` gives them and
    /// `"counts"` (``TimeCounts/json``). The rows are the events counted.
    static func fmdJSON(_ req: FmdRequest, _ snap: SnapshotSource.Snapshot) throws -> (body: [UInt8], rows: Int) {
        var view = req.view
        if view.needsNewestDay { view.resolve(newest: try firstTime(Filter.notDeleted, ascending: false, snap)) }
        let distribution = try snap.store.frequencyMagnitude(view.filter, bin: req.bin, mc: req.completeness,
                                                             snapshot: snap.manifest)
        let counts = try TimeCounts.counted(view, snap)
        let extra = [
            "\"generation\":\(snap.generation)",
            "\"day\":" + (view.day.map(FrequencyMagnitudeJSON.quoted) ?? "null"),
            "\"label\":" + FrequencyMagnitudeJSON.quoted(view.label),
            "\"start\":\(view.start)",
            "\"end\":\(view.end)",
            counts.json,
        ]
        let text = FrequencyMagnitudeJSON.object(distribution, extra: extra) + "\n"
        return (Array(text.utf8), distribution.count)
    }
}
