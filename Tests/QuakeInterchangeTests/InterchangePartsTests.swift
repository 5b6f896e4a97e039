import Foundation
import Testing
@testable import QuakeInterchange
import QuakeGenerator

/// The interchange pieces against naive references: the shapefile reader on damaged input,
/// Debian's coastlines, and the JSON string writer's slice overload against the generic one.
@Suite struct InterchangePartsTests {
    @Test func damagedShapefilesAreErrorsNotTraps() throws {
        // a small valid file: one polygon record with one ring of four points
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func le(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
        func d(_ v: Double) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64($0))) } }
        let pts: [(Double, Double)] = [(0, 0), (10, 0), (10, 10), (0, 0)]
        var content = le(5) + [UInt8](repeating: 0, count: 32) + le(1) + le(pts.count) + le(0)
        for (x, y) in pts { content += d(x) + d(y) }
        var file = be(9994) + [UInt8](repeating: 0, count: 96)
        file += be(1) + be(content.count / 2) + content
        let lines = try ShapefileReader.lines(file, path: "t.shp")
        #expect(lines.count == 1 && lines[0].count == 4 && lines[0][2] == (10, 10))
        // every truncation and many corruptions: an error or an answer, never a trap
        for n in 0..<file.count { _ = try? ShapefileReader.lines(Array(file[0..<n]), path: "t.shp") }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var f = file
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                f[Int.random(in: 0..<f.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = try? ShapefileReader.lines(f, path: "t.shp")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: Coastlines.debianPath),
                   "needs Debian's python-cartopy-data (make test installs it)"))
    func theDebianCoastlinesLoad() throws {
        let c = try Coastlines()
        #expect(c.rings.count > 500)
        let all = c.rings.flatMap { r in stride(from: 0, to: r.count, by: 2).map { (r[$0], r[$0 + 1]) } }
        #expect(all.allSatisfy { (-180...180).contains($0.0) && (-90...90).contains($0.1) })
        let json = try JSONSerialization.jsonObject(with: Data(c.geoJSON())) as? [String: Any]
        #expect((json?["features"] as? [Any])?.count == 1)
    }

    @Test func jsonStringsOfSlicesEqualTheGenericOnes() {
        var rng = SplitMix64(seed: 11)
        let alphabet: [UInt8] = Array("ab \"\\\n\r\t".utf8) + [0, 1, 31, 127, 0xC3, 0xA9]
        for _ in 0..<2000 {
            let n = Int(rng.next() % 12)
            let bytes = (0..<n + 2).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let slice = bytes[1..<(n + 1)]
            var a: [UInt8] = [], b: [UInt8] = []
            FeedWriter.jsonString(slice, into: &a)
            FeedWriter.jsonString(Array(slice), into: &b)
            #expect(a == b && a.first == 34 && a.last == 34)
        }
    }
}
