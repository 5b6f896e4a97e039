import Foundation
import Hummingbird
import Logging
import NIOCore
import QuakeFormat
import QuakeStore

/// `quakes serve`: the FDSN event service and the quake browser page over one store, read-only.
/// Each request answers from the newest committed snapshot, named in `X-Quakes-Generation`.
package struct QuakeServer: Sendable {
    package struct Options: Sendable {
        package var host = "127.0.0.1"
        package var port = 8080
        /// The most events a `query` answers without a `limit` (USGS: 20,000).
        package var maxEvents = 20_000
        /// One log line per request on stderr, in this style; nil logs nothing.
        package var log: String? = "text"
        /// Seconds a connection may stay idle (a slow client) before it is closed.
        package var idleTimeout = 30
        /// Seconds from SIGINT or SIGTERM to the end of the process: open answers get that long
        /// to finish (live feeds end at once), then the process exits with status 0 regardless.
        package var stopDeadline = 1.5
        /// Bytes of recent whole answers kept per generation (``ResponseCache``); 0 keeps none.
        package var cacheBytes = 64 << 20
        package init() {}
    }

    package let source: SnapshotSource
    package let options: Options

    package init(store: Store, options: Options) {
        source = SnapshotSource(store: store, cacheBytes: options.cacheBytes)
        self.options = options
    }

    /// Serves until SIGINT or SIGTERM; `ready` gets the bound port (useful with port 0).
    ///
    /// A signal stops the listener, ends the live feeds and lets other answers finish; whatever is
    /// still open after ``Options/stopDeadline`` (a slow client mid-download) is cut by ending the
    /// process.
    /// - Throws: ``ServeError`` when the address cannot be listened on.
    package func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let (app, stopLive) = Self.buildApplication(source: source, options: options, ready: ready)
        let deadline = options.stopDeadline
        let signals = StopSignals {
            stopLive()
            StopSignals.exit(after: deadline)
        }
        defer { signals.cancel() }
        do {
            try await app.runService()
        } catch {
            throw ServeError(binding: error, host: options.host, port: options.port) ?? error
        }
    }

    /// The application ``run(ready:)`` serves: the FDSN service's and the page's routes behind the
    /// server's policy (methods, CORS, the request log), the HTTP/1 limits and the address, with
    /// no signal handling of its own. Tests drive it in process (HummingbirdTesting's `.router`).
    /// - Parameters:
    ///   - source: the store every request answers from.
    ///   - options: the address, the limits and the request log (the stop deadline is `run`'s).
    ///   - ready: called with the bound port once the server listens.
    /// - Returns: the application, and what ends the page's live feeds (the first thing a stop does).
    package static func buildApplication(
        source: SnapshotSource, options: Options, ready: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> (app: some ApplicationProtocol, stopLive: @Sendable () -> Void) {
        let routes = Routes()
        FDSNService(source: source, maxEvents: options.maxEvents).register(on: routes)
        let page = PageService(source: source, coastlines: CoastlineCache())
        page.register(on: routes)
        var logger = Logger(label: "quakes")
        logger.logLevel = .error
        let log = RequestLog(style: options.log.flatMap(RequestLog.Style.init(rawValue:)))
        let app = Application(
            responder: routes.responder(log: log),
            // request lines and headers are capped; an idle (slow) client is dropped
            server: .http1(configuration: .init(
                idleTimeout: TimeAmount.seconds(Int64(options.idleTimeout)),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024,
                                                maxHeaderFieldCount: 100)
            )),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "quakes"),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let live = page.live
        return (app, { live.stop() })
    }
}
