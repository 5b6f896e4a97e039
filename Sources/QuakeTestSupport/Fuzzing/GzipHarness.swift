import QuakeFormat
import QuakeStore
import QuakeInterchange


/// Feeds the input to the gzip decoder (zlib's inflate) in pieces and drains it.
package enum GzipHarness: FuzzHarness {
    package static let name = "gzip"

    package static func run(_ data: UnsafeRawBufferPointer) {
        // the first byte sets the size of the pieces the decoder pulls, to cover refills
        guard let first = data.first else { return }
        let piece = Int(first) * 37 + 1
        var pos = 1
        // SAFETY: Array(data) copies the input, so the pull closure never touches `data` after run returns.
        let bytes = Array(data)
        let decoder = GzipDecoder(pull: { () throws(QuakeError) -> [UInt8]? in
            guard pos < bytes.count else { return nil }
            let end = min(bytes.count, pos + piece)
            defer { pos = end }
            return Array(bytes[pos..<end])
        })
        var out = 0
        while out < 64 << 20, let chunk = try? decoder.read(minimum: 4096) { out += chunk.count }
    }

    package static func seeds() -> [[UInt8]] {
        // gzip members from zlib's deflate; the make script adds members from the system's gzip
        let texts = ["", "time,latitude\n", String(repeating: "2024-01-01T00:00:00.000Z,1.5,-2.25\n", count: 200)]
        return texts.map { t in
            var out: [UInt8] = [0x40]
            guard let stream = GzipStream(level: 6) else { return out }
            out += stream.compress(Array(t.utf8))
            out += stream.compress([], final: true)
            return out
        }
    }
}
