#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation
import QuakeFormat

/// An HTTP/1.1 server on 127.0.0.1 inside the test process, on a port of its own: each
/// connection is read up to the end of its request head on a thread of its own, answered by
/// `handler` with `Connection: close`, and closed. GET requests only; nothing leaves the host.
final class LoopbackServer: Sendable {
    struct Response: Sendable {
        var status: Int
        var contentType: String
        var body: [UInt8]
    }

    /// Answers a request target (`/path?query`).
    typealias Handler = @Sendable (_ target: String) -> Response

    let port: Int
    private let listener: Int32
    private let handler: Handler

    init(handler: @escaping Handler) throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else {
            throw QuakeError(.io, path: "127.0.0.1", errno: errno, detail: "socket")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let failure = errno
            close(descriptor)
            throw QuakeError(.io, path: "127.0.0.1", errno: failure, detail: "bind or listen")
        }
        var length = size
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = descriptor
        self.handler = handler
        let accepting = Thread { [self] in acceptLoop() }
        accepting.start()
    }

    /// Stops accepting: the accepting thread wakes, closes the listener and ends.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let handler = self.handler
            Thread { Self.serve(connection, handler) }.start()
        }
    }

    private static func serve(_ connection: Int32, _ handler: Handler) {
        defer { close(connection) }
        guard let head = readHead(connection) else { return }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let words = requestLine.split(separator: " ")
        guard words.count >= 2 else { return }
        let response = handler(String(words[1]))
        let reason = [200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found",
                      413: "Payload Too Large"][response.status] ?? "Status"
        var bytes = Array(("HTTP/1.1 \(response.status) \(reason)\r\n"
            + "Content-Type: \(response.contentType)\r\n"
            + "Content-Length: \(response.body.count)\r\n"
            + "Connection: close\r\n\r\n").utf8)
        bytes += response.body
        writeAll(connection, bytes)
        shutdown(connection, Int32(SHUT_WR))
    }

    /// The request head, up to its blank line; nil when the client closes first.
    private static func readHead(_ connection: Int32) -> String? {
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !containsEnd(request) {
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0, request.count < 1 << 16 else { return nil }
            request += chunk[0..<count]
        }
        return String(decoding: request, as: UTF8.self)
    }

    private static func containsEnd(_ request: [UInt8]) -> Bool {
        guard request.count >= 4 else { return false }
        let end: [UInt8] = [13, 10, 13, 10]
        for start in 0...(request.count - 4) where request[start..<(start + 4)].elementsEqual(end) {
            return true
        }
        return false
    }

    /// Writes every byte, without a SIGPIPE when the client has gone.
    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        var on: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var sent = 0
        // SAFETY: `bytes` is not empty while `sent < bytes.count`, so baseAddress is non-nil, and
        // send reads at most the `bytes.count - sent` bytes from `sent` on.
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                send(connection, buffer.baseAddress! + sent, bytes.count - sent, flags)
            }
            if count <= 0 { return }
            sent += count
        }
    }
}
