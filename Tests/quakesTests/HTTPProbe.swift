import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare HTTP/1.1 client on a socket to 127.0.0.1, for what a library client hides: any method
/// (HEAD, POST, PROPFIND), the status and headers as sent, and connections left open or unread.
enum HTTPProbe {
    struct Answer {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A connected socket; `receiveBuffer` shrinks the kernel's buffer (a slow client).
    static func connect(port: Int, receiveBuffer: Int32? = nil, timeout: Int = 30) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard r == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        return fd
    }

    /// Sends a request with no body; `close` asks the server to close the connection after it.
    static func send(_ fd: Int32, _ method: String, _ path: String, close: Bool = true) throws {
        let text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
        else { throw Failure(description: "send: errno \(errno)") }
    }

    /// Reads until `marker` has arrived (true), or until the end or the timeout (false).
    static func read(_ fd: Int32, until marker: String) -> Bool {
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            got += chunk[0..<n]
            if String(decoding: got, as: UTF8.self).contains(marker) { return true }
        }
    }

    /// Reads to the end of the connection: true at an orderly end, false at an error or timeout.
    static func readToEnd(_ fd: Int32) -> (ended: Bool, bytes: [UInt8]) {
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return (true, got) }
            if n < 0 { return (false, got) }
            got += chunk[0..<n]
        }
    }

    /// One request on its own connection, read whole (a chunked body is put together).
    static func request(port: Int, _ method: String, _ path: String) throws -> Answer {
        let fd = try connect(port: port)
        defer { close(fd) }
        try send(fd, method, path)
        let (ended, raw) = readToEnd(fd)
        guard ended, let split = find([13, 10, 13, 10], in: raw) else {
            throw Failure(description: "\(method) \(path): no whole answer (\(raw.count) bytes)")
        }
        let head = String(decoding: raw[0..<split], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line '\(head[0])'")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
        }
        var body = Array(raw[(split + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = unchunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= needle.count + start else { return nil }
        for i in start...(bytes.count - needle.count) where bytes[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }

    private static func unchunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while let lineEnd = find([13, 10], in: bytes, from: i) {
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0,
                  lineEnd + 2 + size <= bytes.count else { break }
            out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            i = lineEnd + 2 + size + 2
        }
        return out
    }
}
