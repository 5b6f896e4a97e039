import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Malformed input: clear errors with file and line, and nothing lost or half-committed.
@Suite struct BadInputTests {
    static let h = TestSupport.header22
    static let good = "2024-01-05T00:00:00.000Z,38.1,-122.2,5.5,2.5,md,10,50,0.01,0.1,nc,nc1,2024-01-05T01:00:00.000Z,\"10 km N of Town, CA\",earthquake,0.2,0.3,0.1,5,automatic,nc,nc"

    static func load(_ text: String, strict: Bool = false, name: String = "f.csv") throws -> (Store, LoadSummary, [Reject]) {
        let d = TestSupport.tempDir()
        TestSupport.write(text, to: d + "/" + name)
        return try TestSupport.load([d + "/" + name], strict: strict)
    }

    @Test func headerOnlyLoadsNothingAndIsNotAnError() throws {
        let (s, r, rej) = try Self.load(Self.h + "\n")
        #expect(s.manifest.rows == 0 && r.rowsRead == 0 && rej.isEmpty && r.filesRejected == 0)
    }

    @Test func emptyFileAndWrongHeaderAreRejectedWhole() throws {
        let (_, r, _) = try Self.load("")
        #expect(r.filesRejected == 1)
        let (s2, r2, _) = try Self.load("a,b,c\n1,2,3\n")
        #expect(r2.filesRejected == 1 && s2.manifest.rows == 0)
        #expect(throws: QuakeError.self) { try Self.load("a,b,c\n1,2,3\n", strict: true) }
    }

    @Test func quotedCommasQuotesAndNewlinesSurvive() throws {
        let place = "5 km N of \"\"Odd\"\", Place,\nwith newline"
        let row = Self.good.replacingOccurrences(of: "\"10 km N of Town, CA\"", with: "\"\(place)\"")
        let second = Self.good.replacingOccurrences(of: "nc1", with: "nc2")
        let (s, _, rej) = try Self.load(Self.h + "\r\n" + row + "\r\n" + second)
        #expect(rej.isEmpty)
        let b = try TestSupport.allRows(s)
        #expect(b.count == 2)
        #expect(b.text[Column.place.rawValue].string(0) == "5 km N of \"Odd\", Place,\nwith newline")
        // and the export quotes it back so it loads again
        let text = try TestSupport.export(s, .csv)
        let (s2, _, rej2) = try Self.load(text)
        #expect(rej2.isEmpty)
        #expect(try TestSupport.export(s2, .csv) == text)
    }

    @Test func badRowsAreReportedWithFileLineAndReason() throws {
        let nan = Self.good.replacingOccurrences(of: ",2.5,md", with: ",NaN,md").replacingOccurrences(of: "nc1", with: "nc2")
        let lat = Self.good.replacingOccurrences(of: "38.1", with: "91.5").replacingOccurrences(of: "nc1", with: "nc3")
        let short = "2024-01-05T00:00:00.000Z,38.1"
        let time = Self.good.replacingOccurrences(of: "2024-01-05T00:00:00.000Z", with: "yesterday").replacingOccurrences(of: "nc1", with: "nc4")
        var bytes = Array((Self.h + "\n" + Self.good + "\n" + nan + "\n" + lat + "\n" + short + "\n" + time + "\n").utf8)
        var bad = Array(Self.good.replacingOccurrences(of: "nc1", with: "nc5").utf8)
        let k = Self.good.utf8.distance(from: Self.good.utf8.startIndex, to: Self.good.range(of: "Town")!.lowerBound)
        bad[k + 1] = 0xFF   // inside the place name
        bytes += bad + [10]
        let d = TestSupport.tempDir()
        TestSupport.write(bytes, to: d + "/bad.csv")
        let (s, r, rej) = try TestSupport.load([d + "/bad.csv"])
        #expect(s.manifest.rows == 1 && r.rejected == 5 && r.rowsRead == 6)
        #expect(rej.map(\.line) == [3, 4, 5, 6, 7])
        #expect(rej[0].reason.contains("mag") && rej[0].reason.contains("NaN"))
        #expect(rej[1].reason.contains("latitude") && rej[1].reason.contains("out of range"))
        #expect(rej[2].reason.contains("expected 22 fields"))
        #expect(rej[3].reason.contains("time"))
        #expect(rej[4].reason.contains("invalid UTF-8"))
        #expect(rej[0].description.hasPrefix(d + "/bad.csv:3: "))
        // --strict: nothing committed
        let s2 = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        #expect(throws: QuakeError.self) { try s2.load([d + "/bad.csv"], options: LoadOptions(strict: true)) }
        #expect(s2.manifest.rows == 0 && s2.manifest.generation == 0)
    }

    @Test func truncatedCompressedFileCommitsNothingFromIt() throws {
        let d = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 4000)
        o.compression = .gz
        let files = try FeedGenerator.generate(o, into: d + "/gz")
        let full = try Array(Data(contentsOf: URL(fileURLWithPath: files[0])))
        TestSupport.write(Array(full[0..<(full.count * 2 / 3)]), to: d + "/cut.csv.gz")
        TestSupport.write(Self.h + "\n" + Self.good + "\n", to: d + "/ok.csv")
        let (s, r, _) = try TestSupport.load([d + "/ok.csv", d + "/cut.csv.gz"])
        #expect(r.filesRejected == 1)
        #expect(s.manifest.rows == 1)
        #expect(throws: QuakeError.self) { try TestSupport.load([d + "/ok.csv", d + "/cut.csv.gz"], strict: true) }
        // a truncated plain GeoJSON file too
        let (_, r2, _) = try Self.load("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"mag\":1", name: "t.geojson")
        #expect(r2.filesRejected == 1)
    }

    @Test func malformedGeoJSONFeaturesAreReportedByIndex() throws {
        let text = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"mag":1.2,"time":1704412800000,"updated":1704412800000},"geometry":{"type":"Point","coordinates":[-122,38,5]},"id":"a1"},
        {"type":"Feature","properties":{"mag":"x","time":1704412800000},"geometry":{"type":"Point","coordinates":[-122,38,5]},"id":"a2"},
        {"type":"Feature","properties":{"time":1704412800000},"geometry":{"type":"Point","coordinates":[-122,38,5]}},
        {"type":"Feature","properties":{"time":1704412800000},"geometry":{"type":"Point","coordinates":[-122,95,5]},"id":"a4"}
        ]}
        """
        let (s, r, rej) = try Self.load(text, name: "f.geojson")
        #expect(s.manifest.rows == 1 && r.rejected == 3)
        #expect(rej.map(\.line) == [1, 2, 3])
        #expect(rej[0].description.contains("feature 1: mag"))
        #expect(rej[1].reason.contains("id"))
        #expect(rej[2].reason.contains("latitude"))
    }

    @Test func corruptionIsFoundByVerifyAndByReads() throws {
        let d = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2020; o.lastYear = 2020
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        let (s, _, _) = try TestSupport.load([d + "/gen"])
        let part = s.manifest.partitions[3]
        let path = s.path + "/partitions/" + part.file
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let dir = try s.reader(part).directory()
        var rng = SplitMix64(seed: 99)
        // one flipped byte inside every column's first chunk, then in the directory and the footer
        var targets = Column.allCases.map { c -> (String, Int) in
            let i = dir.chunks[c.rawValue][0]
            return (c.name, i.offset + Int(rng.next() % UInt64(i.length)))
        }
        let dirStart = original.count - PartitionFile.footerSize - 64
        targets.append(("directory", dirStart))
        targets.append(("footer", original.count - 20))
        for (what, k) in targets {
            var bytes = Array(original)
            bytes[k] ^= 0x5A
            TestSupport.write(bytes, to: path)
            let fresh = try Store(path: s.path)
            do {
                _ = try fresh.verify()
                Issue.record("verify missed a flipped byte at \(k) in \(what)")
            } catch {
                #expect(error.kind == .corrupt && error.path?.contains(part.file) == true, "\(error)")
            }
            do {
                _ = try fresh.reader(part).readAll()
                Issue.record("a read missed a flipped byte at \(k) in \(what)")
            } catch {
                #expect(error.description.contains(part.file), "\(error)")
            }
            TestSupport.write(Array(original), to: path)
        }
        _ = try Store(path: s.path).verify()
    }
}
