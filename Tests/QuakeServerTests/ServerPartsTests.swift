import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeServer
@testable import QuakeStore

/// The server's pieces against naive references: FDSN parameter parsing, the QuakeML depth in
/// metres, the gzip stream, and the query-string decoder.
@Suite struct ServerPartsTests {
    @Test func longitudesAcrossTheAntimeridian() throws {
        #expect(try FDSNRequest.longitudes(170, 190) == (170, -170))
        #expect(try FDSNRequest.longitudes(-190, -170) == (170, -170))
        #expect(try FDSNRequest.longitudes(-180, 180) == (-180, 180))
        #expect(try FDSNRequest.longitudes(0, 360) == (-180, 180))
        #expect(try FDSNRequest.longitudes(190, 200) == (-170, -160))
        #expect(try FDSNRequest.longitudes(10, 180) == (10, 180))
        #expect(throws: FDSNError.self) { try FDSNRequest.longitudes(20, 10) }
    }

    @Test func parametersAliasesAndErrors() throws {
        let a = try FDSNRequest([("start", "2024-01-01"), ("minmag", "4"), ("offset", "3"), ("limit", "10")],
                                maxEvents: 100)
        #expect(a.skip == 2 && a.limit == 10 && a.format == .quakeml)
        #expect(a.filter.timeBounds.lower == Timestamp.parse("2024-01-01"))
        for bad: [(String, String)] in [[("bogus", "1")], [("offset", "0")], [("limit", "101")], [("format", "kmz")],
                                       [("minmag", "5"), ("maxmag", "4")], [("start", "x")], [("lat", "1")],
                                       [("limit", "1"), ("LIMIT", "2")], [("callback", "cb")]] {
            #expect(throws: FDSNError.self, "\(bad)") { try FDSNRequest(bad, maxEvents: 100) }
        }
        let upper = try FDSNRequest([("MinMagnitude", "4"), ("FORMAT", "GeoJSON")], maxEvents: 100)
        #expect(upper.format == .geojson)
    }

    @Test func depthInMetresIsExact() {
        // every scale from 0 to 6 digits, negative and zero, against decimal text arithmetic
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let scale = Int.random(in: 0...6, using: &rng)
            let mantissa = Int64.random(in: -9_999_999...9_999_999, using: &rng)
            let e = (mantissa << 6) | Int64(scale)
            var out: [UInt8] = []
            QuakeMLWriter.formatThousandfold(e, into: &out)
            let got = Decimal(string: String(decoding: out, as: UTF8.self))!
            let want = Decimal(mantissa) / pow(Decimal(10), scale) * 1000
            #expect(got == want, "\(mantissa)e-\(scale)")
        }
    }

    @Test func eventTypesStayInQuakeMLsVocabulary() {
        for t in ["quarry", "nuke", "rockburst", "earthquake", "Quarry Blast", "explosion", "made up", "sonicboom"] {
            #expect(QuakeMLWriter.vocabulary.contains(QuakeMLWriter.eventType(t)), "\(t)")
        }
        #expect(QuakeMLWriter.eventType("quarry") == "quarry blast")
        #expect(QuakeMLWriter.eventType("nuke") == "nuclear explosion")
        #expect(QuakeMLWriter.eventType("rockburst") == "rock burst")
    }

    @Test func gzipStreamRoundTrips() throws {
        var rng = SystemRandomNumberGenerator()
        for size in [0, 1, 1000, 70_000, 1 << 20] {
            let data = (0..<size).map { i in UInt8(truncatingIfNeeded: i % 251 == 0 ? Int.random(in: 0...255, using: &rng) : i / 7) }
            let z = try #require(GzipStream(level: 1))
            var packed: [UInt8] = []
            var at = 0
            while at < data.count {
                let end = min(data.count, at + 65_536)
                packed += z.compress(Array(data[at..<end]))
                at = end
            }
            packed += z.compress([], final: true)
            var given = false
            let dec = GzipDecoder(pull: { () throws(QuakeError) -> [UInt8]? in
                defer { given = true }
                return given ? nil : packed
            })
            var back: [UInt8] = []
            while let piece = try dec.read() { back += piece }
            #expect(back == data, "size \(size)")
        }
    }

    @Test func queryStrings() {
        let p = QueryString.parse("a=1&b=x+y&c=%C3%A9t%C3%A9&d=&e")!
        #expect(p.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(p.map(\.value) == ["1", "x y", "été", "", ""])
        #expect(QueryString.parse("a=%zz") == nil)
        #expect(QueryString.parse("a=%ff") == nil)  // not UTF-8
        #expect(QueryString.parse("a=%4") == nil)
    }
}
