import Foundation
import HTTPTypes
import Hummingbird

/// What every answer of the server obeys, around the routes:
/// - GET and HEAD are served (HEAD as GET without the body: same status and headers);
///   OPTIONS (a browser's CORS preflight) is a 204 that allows GET and HEAD from any origin;
///   any other method on a served path is `405 Method Not Allowed` with `Allow: GET, HEAD`,
///   and on any other path a 404, as for GET;
/// - every answer, errors and 204 included, carries `Access-Control-Allow-Origin: *`, as USGS's
///   service does, so that pages on other origins can read it;
/// - each request is logged (``RequestLog``) with the status it was answered with.
struct HTTPPolicy: HTTPResponder {
    typealias Context = BasicRequestContext
    static let allowed = "GET, HEAD"

    let routes: RouterResponder<BasicRequestContext>
    let served: RouterResponder<BasicRequestContext>
    let log: RequestLog

    func respond(to request: Request, context: Context) async throws -> Response {
        var response: Response
        do {
            response = try await log.handle(request, context: context) { r, c in try await self.answer(r, c) }
        } catch {
            // the routes answer their own errors; anything else is the server's fault, said plainly
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            response = Self.plain(status, "Error \(status.code): \(status.reasonPhrase)\n")
        }
        response.headers[.accessControlAllowOrigin] = "*"
        return response
    }

    private func answer(_ request: Request, _ context: Context) async throws -> Response {
        switch request.method {
        case .get:
            return try await routes.respond(to: request, context: context)
        case .head:
            // the GET's status and headers: its Content-Length when it has one, none when it streams
            let get = try await routes.respond(to: Self.asGet(request), context: context)
            var response = Response(status: get.status, headers: get.headers, body: ResponseBody())
            response.headers[.contentLength] = get.headers[.contentLength]
            return response
        case .options where await isServed(request, context):
            // a browser's CORS preflight (a request with headers of its own): GET and HEAD, from anywhere
            var response = Response(status: .noContent)
            response.headers[.allow] = "GET, HEAD, OPTIONS"
            response.headers[.accessControlAllowMethods] = Self.allowed
            response.headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "*"
            response.headers[.accessControlMaxAge] = "86400"
            return response
        default:
            // an unknown path stays a 404, whatever the method
            guard await isServed(request, context) else {
                return try await routes.respond(to: request, context: context)
            }
            var response = Self.plain(.methodNotAllowed,
                                      "Error 405: Method Not Allowed\n\n\(request.method.rawValue) is not served here: "
                                      + "use \(Self.allowed)\n")
            response.headers[.allow] = Self.allowed
            return response
        }
    }

    /// Whether a GET of the request's path would find a route (the routes themselves do not run).
    private func isServed(_ request: Request, _ context: Context) async -> Bool {
        (try? await served.respond(to: Self.asGet(request), context: context).status) == .ok
    }

    /// The request as a GET, without a body.
    static func asGet(_ request: Request) -> Request {
        var head = request.head
        head.method = .get
        return Request(head: head, body: .init(buffer: ByteBuffer()))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
