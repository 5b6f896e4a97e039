import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

@Suite struct CodecTests {
    @Test func scaledDecimalRoundTripsTextAndMatchesDoubleParsing() throws {
        let samples = ["0", "-0.0", "2.5", "2.50", "-122.8073349", "38.8361667", "0.0070449581017813", "27.0", "100",
                       "0.085599999999999996", "-0.001", "9.8300000000000001", "+3.2"]
        for s in samples {
            var t = s
            let e = try t.withUTF8 { try ScaledDecimal.parse(UnsafeRawBufferPointer($0)) }
            let expectedText = s.hasPrefix("+") ? String(s.dropFirst()) : s
            #expect(ScaledDecimal.string(e) == expectedText)
            #expect(ScaledDecimal.double(e) == Double(s)!, "\(s)")
        }
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let scale = Int(rng.next() % 9)
            let m = Int64(bitPattern: rng.next()) % 10_000_000_000
            var text = String(m.magnitude)
            while text.count <= scale { text = "0" + text }
            if scale > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -scale)) }
            if m < 0 { text = "-" + text }
            var t = text
            let e = try t.withUTF8 { try ScaledDecimal.parse(UnsafeRawBufferPointer($0)) }
            #expect(ScaledDecimal.string(e) == text)
            #expect(ScaledDecimal.double(e) == Double(text)!)
        }
    }

    @Test func scaledDecimalRejectsNonNumbers() {
        for s in ["NaN", "nan", "1.2.3", "abc", "-", ".", "1e", "inf"] {
            var t = s
            #expect(throws: (any Error).self) { try t.withUTF8 { try ScaledDecimal.parse(UnsafeRawBufferPointer($0)) } }
        }
    }

    @Test func timestampsMatchFoundation() throws {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let ms = Int64(rng.next() % 4_000_000_000_000) - 1_000_000_000_000
            let s = Timestamp.string(ms)
            #expect(Timestamp.parse(s) == ms)
            let d = try #require(f.date(from: s))
            #expect(Int64((d.timeIntervalSince1970 * 1000).rounded()) == ms)
        }
        #expect(Timestamp.parse("2024-01-15T11:29:28Z") == Timestamp.parse("2024-01-15T11:29:28.000Z"))
        #expect(Timestamp.parse("2024-13-15T11:29:28Z") == nil)
        #expect(Timestamp.parse("yesterday") == nil)
    }

    @Test func integerCodecRoundTrips() throws {
        var rng = SplitMix64(seed: 11)
        for delta in [false, true] {
            for n in [1, 7, 1000, 65536] {
                var v = (0..<n).map { _ in Int64(bitPattern: rng.next()) >> Int64(rng.next() % 63) }
                for i in stride(from: 0, to: n, by: 5) { v[i] = RowBatch.null }
                let enc = BytePlanes.encode(v[...], delta: delta)
                let dec = try enc.withUnsafeBytes { try BytePlanes.decode($0, rows: n) }
                #expect(dec == v)
                // row ranges (a point read's one row, a stretch, the tail) against the whole block's
                for range in [0..<1, (n / 2)..<(n / 2 + 1), (n / 3)..<n, (n - 1)..<n, 0..<0] {
                    let part = try enc.withUnsafeBytes { try BytePlanes.decode($0, rows: n, range: range) }
                    #expect(part == Array(v[range]), "\(n) rows, delta \(delta), rows \(range)")
                }
            }
        }
    }

    /// Scaled decimals decoded to doubles over row ranges equal the whole block's, with one scale
    /// and mixed scales, nulls included.
    @Test func bytePlaneDoublesOverRowRanges() throws {
        var rng = SplitMix64(seed: 6808)
        for uniform in [true, false] {
            for n in [1, 9, 4096] {
                var values = (0..<n).map { _ in
                    let mantissa = Int64(rng.next() % 2_000_000) - 1_000_000
                    return mantissa << 6 | (uniform ? 2 : Int64(rng.next() % 7))
                }
                for i in stride(from: 3, to: n, by: 7) { values[i] = RowBatch.null }
                let encoded = BytePlanes.encode(values[...], delta: false, decimals: true)
                let whole = try encoded.withUnsafeBytes { try BytePlanes.decodeDoubles($0, rows: n) }
                for range in [0..<1, (n / 2)..<n, (n - 1)..<n] {
                    let part = try encoded.withUnsafeBytes { try BytePlanes.decodeDoubles($0, rows: n, range: range) }
                    #expect(part.map(\.bitPattern) == whole[range].map(\.bitPattern), "\(n) rows, \(range)")
                }
            }
        }
    }

    @Test func placeCodecSplitsThePatternAndRestoresEveryByte() throws {
        let places = ["10 km NE of Pāhala, Hawaii", "111km WSW of Redoubt Volcano, Alaska", "Fiji region", "0 km N of X", "05 km N of Y",
                      "12 km NNNE of Z", "3 km N of ", "", "north of Ascension Island", "7 km WNW of The Geysers, CA", "1234567 km N of Far"]
        var a = ByteArena()
        for p in places { a.append(Array(p.utf8)) }
        let enc = PlacePayload.encode(a, rows: 0..<a.count)
        let block = try enc.withUnsafeBytes { try PlacePayload.decode($0, rows: a.count) }
        #expect(block.arena() == a)
        #expect(block.direction[0] != PlacePayload.noPattern)
        #expect(block.direction[1] != PlacePayload.noPattern)
        #expect(block.direction[2] == PlacePayload.noPattern)
        #expect(block.direction[4] == PlacePayload.noPattern)   // leading zero: kept whole
        #expect(block.direction[5] == PlacePayload.noPattern)
        #expect(block.localities.count < places.count)
    }

    @Test func categoryAndTextCodecsRoundTrip() throws {
        var a = ByteArena()
        let values = ["ak", "", "us", "ak", "nc", "", "hv", "ak"]
        for v in values { a.append(Array(v.utf8)) }
        let c = try CategoryPayload.encode(a, rows: 0..<a.count).withUnsafeBytes { try CategoryPayload.decode($0, rows: a.count) }
        #expect(c.arena() == a)
        #expect(c.dictionary.count == 4)
        let t = try TextPayload.encode(a, rows: 0..<a.count).withUnsafeBytes { try TextPayload.decode($0, rows: a.count) }
        #expect(t == a)
    }

    @Test func gzipDecoderReadsSystemGzipAndOwnEncoder() throws {
        var rng = SplitMix64(seed: 5)
        var text: [UInt8] = []
        for i in 0..<40000 { text.append(contentsOf: "\(i),\(rng.next() % 1000),\"\(i % 7) km N of Place \(i % 13)\"\n".utf8) }
        let dir = TestSupport.tempDir()
        // zlib's deflate, as `generate --compress gz` writes it
        let enc = try #require(GzipStream(level: 6))
        var gz = enc.compress(Array(text[0..<100_000]))
        gz += enc.compress(Array(text[100_000...]))
        gz += enc.compress([], final: true)
        #expect(gz.count < text.count / 2)
        TestSupport.write(gz, to: dir + "/own.gz")
        #expect(try Self.inflate(dir + "/own.gz") == text)
        // the system's gzip, when present
        if FileManager.default.fileExists(atPath: "/bin/gzip") {
            TestSupport.write(text, to: dir + "/sys")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/gzip")
            p.arguments = ["-k", "-9", dir + "/sys"]
            try p.run()
            p.waitUntilExit()
            #expect(try Self.inflate(dir + "/sys.gz") == text)
            // truncated: a clear error, never a crash
            let full = try Array(Data(contentsOf: URL(fileURLWithPath: dir + "/sys.gz")))
            TestSupport.write(Array(full[0..<(full.count / 2)]), to: dir + "/cut.gz")
            #expect(throws: QuakeError.self) { try Self.inflate(dir + "/cut.gz") }
        }
    }

    static func inflate(_ path: String) throws -> [UInt8] {
        let input = try FeedInput(path: path)
        var out: [UInt8] = []
        while let c = try input.next() { out += c }
        return out
    }

    @Test func zstdStreamsRoundTrip() throws {
        let text = Array(String(repeating: "2024-01-01T00:00:00.000Z,1.5,ak\n", count: 50000).utf8)
        let z = ZstdStreamEncoder()
        let bytes = z.compress(text, end: true)
        let dir = TestSupport.tempDir()
        TestSupport.write(bytes, to: dir + "/a.zst")
        #expect(try Self.inflate(dir + "/a.zst") == text)
        TestSupport.write(Array(bytes[0..<(bytes.count - 10)]), to: dir + "/b.zst")
        #expect(throws: QuakeError.self) { try Self.inflate(dir + "/b.zst") }
    }
}
