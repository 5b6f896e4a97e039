import Foundation
import HTTPTypes
import Hummingbird
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// The JSON answers of the page's view requests (`/api/day`, `/api/fmd`): each made from one
/// snapshot and kept in the ``ResponseCache`` for its generation, so a new commit is never
/// answered with older data; an answer whose window follows the clock is not kept.
extension PageService {
    /// The answer `make` writes for `snap` (its body and the rows it holds), or the one kept for
    /// `route` and `query` in this generation; gzip-compressed when `gzip` and worth it.
    /// A ``QuakeError`` of kind `invalidArgument` is a 400, any other failure a 503.
    static func cachedJSON(route: String, query: String?, gzip: Bool, followsClock: Bool, source: SnapshotSource,
                           make: (SnapshotSource.Snapshot) throws -> (body: [UInt8], rows: Int)) -> Response {
        do {
            let snap = try source.current()
            // a fixed window's answer is the same until the next commit; the past hours follow the clock
            let key = followsClock ? nil
                : ResponseCache.Key(generation: snap.generation, route: route, query: query, gzip: gzip)
            let answer: ResponseCache.Answer
            if let key, let kept = source.answers.answer(key) {
                answer = kept
            } else {
                let made = try make(snap)
                var bytes = made.body
                var zipped = false
                if gzip, bytes.count > 1024, let compressor = GzipStream(level: 1) {
                    bytes = compressor.compress(bytes, final: true)
                    zipped = true
                }
                answer = ResponseCache.Answer(body: bytes, rows: made.rows, gzip: zipped)
                if let key { source.answers.keep(key, answer) }
            }
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
            headers[FDSNService.generationHeader] = String(snap.generation)
            headers[FDSNService.rowsHeader] = String(answer.rows)
            if answer.gzip { headers[.contentEncoding] = "gzip" }
            headers[.vary] = "Accept-Encoding"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        } catch let error as QuakeError where error.kind == .invalidArgument {
            return jsonError(FDSNError.badRequest(error.message))
        } catch {
            return jsonError(FDSNError(status: 503, detail: "The store cannot be read: \(error)"))
        }
    }
}
