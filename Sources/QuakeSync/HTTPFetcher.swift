import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuakeFormat
import QuakeSupport
import Synchronization

/// The sync's HTTP client: one request at a time, `User-Agent: quakes/VERSION`, gzip accepted,
/// timeouts on connecting and on a stalled body, at most 5 redirects, and retries with
/// exponential back-off and jitter on 5xx, 429, 408 and connection errors, honouring
/// `Retry-After`. A body is accepted only whole: a length mismatch, a damaged gzip stream or a
/// closed connection is an error to retry, as is an HTML page where a feed was asked for.
final class HTTPFetcher: Sendable {
    static let userAgent = "quakes/0.4.0"
    private let client: HTTPClient
    private let options: SyncOptions
    private let traffic = Mutex((requests: 0, bytes: 0))

    init(options: SyncOptions) {
        var c = HTTPClient.Configuration()
        c.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // seconds as whole milliseconds, within a day: a NaN or a huge value must not trap
        func ms(_ s: Double) -> Int64 { s.isFinite ? Int64(min(max(s, 0.001), 86_400) * 1000) : 30_000 }
        c.timeout = .init(connect: .milliseconds(ms(min(options.connectTimeout, options.readTimeout))),
                          read: .milliseconds(ms(options.readTimeout)))
        c.decompression = .enabled(limit: .none)
        // a refused connection is an answer at once: the pool's own retries would wait out the
        // connect timeout (5 s); `retrying` decides what is tried again
        c.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: c)
        self.options = options
    }

    func shutdown() async { try? await client.shutdown() }

    /// Requests made and body bytes received so far.
    var requests: Int { traffic.locked { $0.requests } }
    var bytes: Int { traffic.locked { $0.bytes } }

    /// An answer: its status, the validators and type it named, and a small body (or, for a
    /// body written to a file, its size).
    struct Answer: Sendable {
        var status: Int
        var etag: String?
        var lastModified: String?
        var contentType: String?
        var body: [UInt8] = []
        var size = 0
        /// Seconds a `Retry-After` asked to wait.
        var retryAfter: Double?
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A failure one more attempt may cure, or not.
    struct Failure: Error {
        var retryable: Bool
        var detail: String
        var retryAfter: Double?
        /// An error of the store's (not of the answer), passed on as it is.
        var fatal: QuakeError?
        /// No answer at all: the connection could not be made.
        var unreachable = false

        init(retryable: Bool, detail: String, retryAfter: Double? = nil) {
            self.retryable = retryable
            self.detail = detail
            self.retryAfter = retryAfter
        }
    }

    /// Statuses a retry may cure: server errors, rate limits, request timeouts.
    static func isRetryable(_ status: Int) -> Bool { status >= 500 || status == 429 || status == 408 }

    /// One GET of `url`, its body to `file` (created, or replaced) or, when nil, into memory (at
    /// most `limit` bytes). Statuses other than 2xx and 304 come back as they are.
    func get(_ url: String, headers: [(String, String)] = [], to file: String? = nil,
             limit: Int = 16 << 20) async throws(Failure) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        traffic.locked { $0.requests += 1 }
        let response: HTTPClientResponse
        do {
            // a generous deadline for the whole exchange: a stalled body is the read timeout's
            response = try await client.execute(request, timeout: .hours(6))
        } catch {
            if error is CancellationError { throw Failure(retryable: false, detail: "interrupted") }
            if let host = Self.unresolvedHost(error) {
                // a name that does not resolve: no retry cures a typo in a URL
                throw Failure(retryable: false, detail: "cannot resolve \(host)")
            }
            var f = Failure(retryable: true, detail: Self.describe(error))
            f.unreachable = Self.isUnreachable(error)
            throw f
        }
        var a = Answer(status: Int(response.status.code))
        a.etag = response.headers.first(name: "ETag")
        a.lastModified = response.headers.first(name: "Last-Modified")
        a.contentType = response.headers.first(name: "Content-Type")
        let declared = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        let encoded = response.headers.first(name: "Content-Encoding").map { $0.lowercased() != "identity" } ?? false
        guard (200..<300).contains(a.status) else {
            // the error text, for the message: the first lines of a small body
            var kept: [UInt8] = []
            do {
                for try await chunk in response.body where kept.count < 4096 {
                    kept += chunk.readableBytesView.prefix(4096)
                }
            } catch {}
            a.body = kept
            // seconds only (an HTTP date is left to the back-off); "nan" or "inf" is no number of seconds
            a.retryAfter = response.headers.first(name: "Retry-After")
                .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                .flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            return a
        }
        let fd: Int32?
        do { fd = try file.map { p throws(QuakeError) in try FileIO.open(p, O_WRONLY | O_CREAT | O_TRUNC) } } catch {
            throw Failure(retryable: false, detail: "\(file ?? ""): \(error.detail)")
        }
        defer { if let fd { FileIO.close(fd) } }
        do {
            for try await chunk in response.body {
                a.size += chunk.readableBytes
                traffic.locked { $0.bytes += chunk.readableBytes }
                if let fd {
                    // SAFETY: `b` is valid only inside this closure; writeAll writes its bytes and keeps nothing.
                    try chunk.withUnsafeReadableBytes { (b) throws(QuakeError) in
                        try FileIO.writeAll(fd, b, path: file ?? "")
                    }
                } else {
                    guard a.body.count + chunk.readableBytes <= limit else {
                        throw Failure(retryable: false, detail: "the answer passes \(limit) bytes")
                    }
                    a.body += chunk.readableBytesView
                }
            }
        } catch let f as Failure {
            throw f
        } catch let e as QuakeError {
            throw Failure(retryable: false, detail: "\(e.path ?? ""): \(e.detail)")
        } catch {
            if error is CancellationError { throw Failure(retryable: false, detail: "interrupted") }
            throw Failure(retryable: true, detail: "the body stopped after \(a.size) bytes: \(Self.describe(error))")
        }
        if let declared, !encoded, declared != a.size {
            throw Failure(retryable: true, detail: "the body has \(a.size) bytes, Content-Length says \(declared)")
        }
        return a
    }

    /// Runs `attempt` until it succeeds, it fails in a way a retry cannot cure, or the attempts
    /// are spent; waits between tries with exponential back-off and jitter, or as long as a
    /// `Retry-After` asked (up to ``SyncOptions/maxRetryAfter``).
    /// With `retryUnreachable` false, a server that cannot be reached at all is not tried again (the
    /// first request of a run: a wrong host or port fails at once).
    func retrying<T>(_ url: String, retryUnreachable: Bool = true,
                     _ attempt: () async throws(Failure) -> T) async throws(QuakeError) -> T {
        var last = Failure(retryable: true, detail: "no attempt")
        for k in 0..<max(1, options.attempts) {
            if k > 0 {
                let backoff = options.retryDelay * pow(2, Double(k - 1)) * Double.random(in: 0.5...1.5)
                var wait = min(last.retryAfter.map { max($0, 0) } ?? backoff, options.maxRetryAfter)
                if !wait.isFinite || wait < 0 { wait = 1 }
                options.onMessage?("retrying in \(String(format: "%.1f", wait)) s (\(k + 1) of \(options.attempts)): "
                    + last.detail)
                do { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) } catch {
                    throw QuakeError(.interrupted, path: url, detail: "interrupted")
                }
            }
            if Task.isCancelled { throw QuakeError(.interrupted, path: url, detail: "interrupted") }
            do { return try await attempt() } catch {
                if let e = error.fatal { throw e }
                if error.detail == "interrupted" { throw QuakeError(.interrupted, path: url, detail: "interrupted") }
                last = error
                if !error.retryable || (error.unreachable && !retryUnreachable) {
                    last.retryable = false
                    break
                }
            }
        }
        let tries = options.attempts > 1 && last.retryable ? " (after \(options.attempts) attempts)" : ""
        throw QuakeError(.network, path: url, detail: last.detail + tries)
    }

    /// A status that is not success, as a failure: retryable or not, with the server's words.
    static func failure(_ a: Answer) -> Failure {
        let words = a.text.split(whereSeparator: \.isNewline).prefix(3).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        let html = (a.contentType ?? "").contains("html") || words.hasPrefix("<")
        let why = "HTTP \(a.status)" + (words.isEmpty || html ? "" : ": " + String(words.prefix(200)))
        return Failure(retryable: isRetryable(a.status), detail: why, retryAfter: a.retryAfter)
    }

    /// No server there: the connection was refused, timed out, or the name does not resolve.
    static func isUnreachable(_ error: any Error) -> Bool {
        if let e = error as? HTTPClientError, e == .connectTimeout { return true }
        let s = "\(error)"
        return ["connectionRefused", "Connection refused", "connectTimeout", "NXDOMAIN", "resolve", "lookup",
                "No address", "unknownHost"].contains { s.contains($0) }
    }

    /// The host of a failed name lookup ("Name or service not known"), or nil for any other error.
    static func unresolvedHost(_ error: any Error) -> String? {
        let text = "\(error)"
        guard text.contains("UnknownHost") || text.contains("NXDOMAIN") else { return nil }
        guard let hostStart = text.range(of: "for host ") else { return "the host" }
        let host = text[hostStart.upperBound...].prefix { $0 != "," && $0 != " " }
        return host.isEmpty ? "the host" : String(host)
    }

    /// A transport error in a few words.
    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .connectTimeout: return "the connection timed out"
            case .readTimeout: return "the body stalled past the read timeout"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .redirectLimitReached: return "more than 5 redirects"
            case .redirectCycleDetected: return "a redirect cycle"
            default: return "\(e)"
            }
        }
        let s = "\(error)"
        if s.contains("connectionRefused") || s.contains("Connection refused") { return "connection refused" }
        if s.contains("truncatedData") { return "a gzip stream cut short" }
        if s.contains("SSL") || s.contains("handshake") {
            return "the TLS handshake failed (an https URL for a server that speaks http?)"
        }
        if s.contains("connectionReset") || s.contains("Connection reset") { return "the connection was reset" }
        return s.count > 160 ? String(s.prefix(160)) : s
    }
}
