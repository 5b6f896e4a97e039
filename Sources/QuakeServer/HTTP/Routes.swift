import Hummingbird

/// The server's routes, every one a GET (a HEAD is answered by the GET without its body), and
/// which paths they serve: another method on one of those paths is a 405, on any other a 404.
final class Routes {
    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    /// The router that answers GETs (``HTTPPolicy`` makes a HEAD one).
    let router = Router()
    /// The same paths, each with a handler that only says the path is served.
    private let served = Router()

    func get(_ path: RouterPath, use handler: @escaping Handler) {
        router.get(path, use: handler)
        served.get(path) { _, _ in Response(status: .ok) }
    }

    /// The responder for every request: methods, CORS and the request log (see ``HTTPPolicy``).
    func responder(log: RequestLog) -> HTTPPolicy {
        HTTPPolicy(routes: router.buildResponder(), served: served.buildResponder(), log: log)
    }
}
