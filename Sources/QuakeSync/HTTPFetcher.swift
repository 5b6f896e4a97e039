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
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // seconds as whole milliseconds, within a day: a NaN or a huge value must not trap
        func ms(_ seconds: Double) -> Int64 {
            seconds.isFinite ? Int64(min(max(seconds, 0.001), 86_400) * 1000) : 30_000
        }
        configuration.timeout = .init(connect: .milliseconds(ms(min(options.connectTimeout, options.readTimeout))),
                                      read: .milliseconds(ms(options.readTimeout)))
        configuration.decompression = .enabled(limit: .none)
        // a refused connection is an answer at once: the pool's own retries would wait out the
        // connect timeout (5 s); `retrying` decides what is tried again
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
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
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        traffic.locked { $0.requests += 1 }
        let response = try await execute(request)
        var answer = Answer(status: Int(response.status.code))
        answer.etag = response.headers.first(name: "ETag")
        answer.lastModified = response.headers.first(name: "Last-Modified")
        answer.contentType = response.headers.first(name: "Content-Type")
        let declared = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        let encoded = response.headers.first(name: "Content-Encoding")
            .map { $0.lowercased() != "identity" } ?? false
        guard (200..<300).contains(answer.status) else {
            return await Self.errorAnswer(answer, response)
        }
        try await receiveBody(response, into: &answer, file: file, limit: limit)
        if let declared, !encoded, declared != answer.size {
            throw Failure(retryable: true, detail: "the body has \(answer.size) bytes, Content-Length says \(declared)")
        }
        return answer
    }

    /// The request sent, its transport errors as failures.
    private func execute(_ request: HTTPClientRequest) async throws(Failure) -> HTTPClientResponse {
        do {
            // a generous deadline for the whole exchange: a stalled body is the read timeout's
            return try await client.execute(request, timeout: .hours(6))
        } catch {
            if error is CancellationError { throw Failure(retryable: false, detail: "interrupted") }
            if let host = Self.unresolvedHost(error) {
                // a name that does not resolve: no retry cures a typo in a URL
                throw Failure(retryable: false, detail: "cannot resolve \(host)")
            }
            var failure = Failure(retryable: true, detail: Self.describe(error))
            failure.unreachable = Self.isUnreachable(error)
            throw failure
        }
    }

    /// A status other than 2xx, with the first bytes of its body and its `Retry-After`.
    private static func errorAnswer(_ answer: Answer, _ response: HTTPClientResponse) async -> Answer {
        var answer = answer
        // the error text, for the message: the first lines of a small body
        var kept: [UInt8] = []
        do {
            for try await chunk in response.body where kept.count < 4096 {
                kept += chunk.readableBytesView.prefix(4096)
            }
        } catch {}
        answer.body = kept
        // seconds only (an HTTP date is left to the back-off); "nan" or "inf" is no number of seconds
        answer.retryAfter = response.headers.first(name: "Retry-After")
            .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return answer
    }

    /// A 2xx body, to `file` or into `answer.body` (at most `limit` bytes), counted in `answer.size`.
    private func receiveBody(_ response: HTTPClientResponse, into answer: inout Answer, file: String?,
                             limit: Int) async throws(Failure) {
        let fd: Int32?
        do {
            fd = try file.map { path throws(QuakeError) in try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC) }
        } catch {
            throw Failure(retryable: false, detail: "\(file ?? ""): \(error.detail)")
        }
        defer { if let fd { FileIO.close(fd) } }
        do {
            for try await chunk in response.body {
                answer.size += chunk.readableBytes
                traffic.locked { $0.bytes += chunk.readableBytes }
                if let fd {
                    // SAFETY: `bytes` is valid only inside this closure; writeAll writes its bytes and keeps nothing.
                    try chunk.withUnsafeReadableBytes { (bytes) throws(QuakeError) in
                        try FileIO.writeAll(fd, bytes, path: file ?? "")
                    }
                } else {
                    guard answer.body.count + chunk.readableBytes <= limit else {
                        throw Failure(retryable: false, detail: "the answer passes \(limit) bytes")
                    }
                    answer.body += chunk.readableBytesView
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch let error as QuakeError {
            throw Failure(retryable: false, detail: "\(error.path ?? ""): \(error.detail)")
        } catch {
            if error is CancellationError { throw Failure(retryable: false, detail: "interrupted") }
            throw Failure(retryable: true,
                          detail: "the body stopped after \(answer.size) bytes: \(Self.describe(error))")
        }
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
                if let fatal = error.fatal { throw fatal }
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
    static func failure(_ answer: Answer) -> Failure {
        let words = answer.text.split(whereSeparator: \.isNewline).prefix(3).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        let html = (answer.contentType ?? "").contains("html") || words.hasPrefix("<")
        let why = "HTTP \(answer.status)" + (words.isEmpty || html ? "" : ": " + String(words.prefix(200)))
        return Failure(retryable: isRetryable(answer.status), detail: why, retryAfter: answer.retryAfter)
    }

    /// No server there: the connection was refused, timed out, or the name does not resolve.
    static func isUnreachable(_ error: any Error) -> Bool {
        if let clientError = error as? HTTPClientError, clientError == .connectTimeout { return true }
        let text = "\(error)"
        return ["connectionRefused", "Connection refused", "connectTimeout", "NXDOMAIN", "resolve", "lookup",
                "No address", "unknownHost"].contains { text.contains($0) }
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
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout: return "the connection timed out"
            case .readTimeout: return "the body stalled past the read timeout"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .redirectLimitReached: return "more than 5 redirects"
            case .redirectCycleDetected: return "a redirect cycle"
            default: return "\(clientError)"
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("truncatedData") { return "a gzip stream cut short" }
        if text.contains("SSL") || text.contains("handshake") {
            return "the TLS handshake failed (an https URL for a server that speaks http?)"
        }
        if text.contains("connectionReset") || text.contains("Connection reset") { return "the connection was reset" }
        return text.count > 160 ? String(text.prefix(160)) : text
    }
}
