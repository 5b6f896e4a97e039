import Foundation
import Hummingbird
import QuakeFormat
import QuakeInterchange

/// Builds a streamed response body from a ``PieceChannel``: pieces become chunks of a chunked
/// body, gzip-compressed by the producer when the client accepts it.
enum StreamedBody {
    /// Cancels the channel when the body is dropped unsent (a HEAD request, a failed write), so
    /// that its producer never waits for a reader that is gone.
    final class Guard: Sendable {
        let channel: PieceChannel
        init(_ c: PieceChannel) { channel = c }
        deinit { channel.cancel() }
    }

    /// The body that drains `channel` after its head was taken.
    static func body(_ channel: PieceChannel) -> ResponseBody {
        let guardian = Guard(channel)
        return ResponseBody { writer in
            do {
                while let message = try await guardian.channel.next() {
                    if case .piece(let bytes) = message, !bytes.isEmpty {
                        try await writer.write(ByteBuffer(bytes: bytes))
                    }
                }
                try await writer.finish(nil)
            } catch {
                // the client went away, or the producer failed mid-answer: stop the scan and drop
                // the connection, so that no client takes a cut document for a whole one
                guardian.channel.cancel()
                throw error
            }
        }
    }

    /// Whether the request's Accept-Encoding admits gzip.
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let accepted = request.headers[.acceptEncoding]?.lowercased() else { return false }
        for part in accepted.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first == "gzip" || fields.first == "*" else { continue }
            if fields.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "q=0" }) { continue }
            return true
        }
        return false
    }
}

/// What a producer writes through: a capturing sink whose contents go out as pieces,
/// compressed when asked.
final class PieceWriter {
    let sink = OutputSink(capturing: ())
    private let channel: PieceChannel
    private let gzip: GzipStream?
    /// Bytes gathered before a piece is sent.
    static let pieceBytes = 1 << 16

    /// Everything sent so far, while it stays within the limit given (for ``ResponseCache``);
    /// nil once it passes it, or when not asked for.
    private(set) var sent: [UInt8]?
    private let keepLimit: Int

    /// - Parameter keep: the most bytes to keep a copy of, for the cache; 0 keeps none.
    init(channel: PieceChannel, gzip: Bool, keep: Int = 0) {
        self.channel = channel
        self.gzip = gzip ? GzipStream(level: 1) : nil
        keepLimit = keep
        sent = keep > 0 ? [] : nil
    }

    private func push(_ out: [UInt8]) throws(PieceChannel.Cancelled) {
        guard !out.isEmpty else { return }
        if sent != nil {
            if (sent?.count ?? 0) + out.count <= keepLimit { sent?.append(contentsOf: out) } else { sent = nil }
        }
        try channel.push(.piece(out))
    }

    /// Sends what the sink holds once it passes ``pieceBytes`` (or always, with `force`).
    func send(force: Bool = false) throws(PieceChannel.Cancelled) {
        guard force || sink.buffer.count + sink.captured.count >= Self.pieceBytes else { return }
        let bytes = sink.takeCaptured()
        try push(gzip.map { $0.compress(bytes) } ?? bytes)
    }

    /// Sends the rest, ending the gzip stream.
    func finish() throws(PieceChannel.Cancelled) {
        let bytes = sink.takeCaptured()
        try push(gzip.map { $0.compress(bytes, final: true) } ?? bytes)
    }
}
