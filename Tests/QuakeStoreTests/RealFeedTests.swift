import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

/// Loads every real USGS file in `../shared/usgs` and checks counts, round trips and the
/// documented outcome of each odd file. Every test reads the feeds: without them the suite,
/// and with it the tests over the file list, is reported as skipped (never run with no files).
@Suite(.serialized, .enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
struct RealFeedTests {
    static let clean = TestSupport.usgsFiles.filter { !$0.hasPrefix("odd") }

    /// Distinct ids of a file, by a naive reference parse.
    static func distinctIds(_ path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        if path.hasSuffix(".geojson") {
            let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
            return Set((json["features"] as! [[String: Any]]).map { $0["id"] as! String })
        }
        let rows = NaiveCSV.parse(text)
        let k = rows[0].firstIndex(of: "id")!
        return Set(rows.dropFirst().map { $0[k] })
    }

    @Test(arguments: clean)
    func cleanFileLoadsWithoutRejects(_ name: String) throws {
        let path = try #require(TestSupport.usgs(name))
        let (store, summary, rejects) = try TestSupport.load([path])
        #expect(rejects.isEmpty, "\(rejects.prefix(3))")
        #expect(summary.filesRejected == 0)
        let ids = try Self.distinctIds(path)
        #expect(store.manifest.rows == ids.count)
        #expect(summary.new == ids.count)
        _ = try store.verify()
        // loading the same file again changes nothing
        let generation = store.manifest.generation
        let again = try store.load([path])
        #expect(again.new == 0 && again.updated == 0)
        #expect(again.unchanged == ids.count)
        #expect(!again.committed)
        #expect(store.manifest.generation == generation)
    }

    @Test(arguments: clean.filter { $0.hasSuffix(".csv") })
    func csvExportEqualsInputPerIdAndField(_ name: String) throws {
        let path = try #require(TestSupport.usgs(name))
        let (store, _, _) = try TestSupport.load([path])
        let input = NaiveCSV.parse(try String(contentsOfFile: path, encoding: .utf8))
        let output = NaiveCSV.parse(try TestSupport.export(store, .csv))
        #expect(output[0] == Column.csvColumns.map(\.name))
        let outId = output[0].firstIndex(of: "id")!
        let exported = Dictionary(output.dropFirst().map { ($0[outId], $0) }, uniquingKeysWith: { a, _ in a })
        let header = input[0]
        let inId = header.firstIndex(of: "id")!
        // the newest version of each id (files hold one version per id)
        var checked = 0
        for row in input.dropFirst() {
            let out = try #require(exported[row[inId]])
            for (k, name) in header.enumerated() {
                let j = try #require(output[0].firstIndex(of: name))
                #expect(out[j] == row[k], "\(row[inId]) \(name)")
            }
            checked += 1
        }
        #expect(checked == input.count - 1)
    }

    @Test func geojsonExportEqualsInputPerIdAndField() throws {
        for name in Self.clean.filter({ $0.hasSuffix(".geojson") }) {
            let path = try #require(TestSupport.usgs(name))
            let (store, _, _) = try TestSupport.load([path])
            func features(_ data: Data) throws -> [String: [String: Any]] {
                let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
                return Dictionary(uniqueKeysWithValues: (json["features"] as! [[String: Any]]).map { ($0["id"] as! String, $0) })
            }
            let input = try features(Data(contentsOf: URL(fileURLWithPath: path)))
            let output = try features(Data(try TestSupport.export(store, .geojson).utf8))
            #expect(input.count == output.count)
            for (id, f) in input {
                let o = try #require(output[id])
                let ip = f["properties"] as! [String: Any], op = o["properties"] as! [String: Any]
                for (k, v) in ip {
                    #expect("\(v)" == "\(op[k] ?? "missing")", "\(name) \(id) \(k)")
                }
                let ic = (f["geometry"] as! [String: Any])["coordinates"] as! [Any]
                let oc = (o["geometry"] as! [String: Any])["coordinates"] as! [Any]
                #expect("\(ic)" == "\(oc)")
            }
        }
    }

    @Test func csvAndGeoJSONOfOneSnapshotStoreTheSameEvents() throws {
        let csv = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let geo = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        let a = try TestSupport.allRows(TestSupport.load([csv]).0)
        let b = try TestSupport.allRows(TestSupport.load([geo]).0)
        #expect(a.count == b.count)
        let shared: [Column] = [.time, .updated, .latitude, .longitude, .depth, .mag, .magType, .nst, .gap, .dmin, .rms, .net, .id, .place, .type, .status]
        for i in 0..<a.count {
            for c in shared {
                if RowBatch.isInt(c) {
                    #expect(ScaledDecimal.double(a.ints[c.rawValue][i]).isNaN && ScaledDecimal.double(b.ints[c.rawValue][i]).isNaN
                        || (c.kind == .timestamp ? a.ints[c.rawValue][i] == b.ints[c.rawValue][i]
                            : ScaledDecimal.double(a.ints[c.rawValue][i]) == ScaledDecimal.double(b.ints[c.rawValue][i])),
                            "\(c) row \(i)")
                } else {
                    #expect(a.text[c.rawValue].string(i) == b.text[c.rawValue].string(i), "\(c) row \(i)")
                }
            }
        }
    }

    @Test func oddFilesGetTheirDocumentedOutcome() throws {
        // reduced 9-column header without an id column: the file is rejected whole
        let reduced = try #require(TestSupport.usgs("oddcsv_2018-01-01_2023-02-04_4828.csv"))
        let messages = RejectLog()
        let s = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        var o = LoadOptions()
        o.onMessage = { messages.add(Reject(file: "", line: 0, isFeature: false, reason: $0)) }
        let r1 = try s.load([reduced], options: o)
        #expect(r1.filesRejected == 1 && s.manifest.rows == 0)
        #expect(messages.all.contains { $0.reason.contains("missing required column id") })
        #expect(throws: QuakeError.self) { try s.load([reduced], options: LoadOptions(strict: true)) }

        // CRLF and no final newline: every row loads
        let crlf = try #require(TestSupport.usgs("oddcsv_2023-12-19_2024-01-18_8886.csv"))
        let (s2, r2, rej2) = try TestSupport.load([crlf])
        #expect(rej2.isEmpty && r2.filesRejected == 0)
        #expect(s2.manifest.rows == (try RealFeedTests.distinctIds(crlf)).count)
        #expect(try TestSupport.allRows(s2).text[Column.magSource.rawValue].string(0)?.hasSuffix("\r") == false)

        // pandas index column: ignored with a warning; float counts kept as written
        let pandas = try #require(TestSupport.usgs("oddcsv_2023-12-20_2024-01-15_38.csv"))
        let s3 = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        let warn = RejectLog()
        var o3 = LoadOptions()
        o3.onMessage = { warn.add(Reject(file: "", line: 0, isFeature: false, reason: $0)) }
        let r3 = try s3.load([pandas], options: o3)
        #expect(r3.rejected == 0 && s3.manifest.rows == 38)
        #expect(warn.all.contains { $0.reason.contains("unnamed column 1") })
        let rows = NaiveCSV.parse(try TestSupport.export(s3, .csv))
        #expect(rows.dropFirst().contains { $0[6] == "27.0" })
    }

    @Test func wholeDirectoryLoadsAndVerifies() throws {
        let dir = try #require(TestSupport.usgsDirectory)
        let (s, summary, rejects) = try TestSupport.load([dir.path])
        #expect(rejects.isEmpty)
        #expect(summary.filesRejected == 1)   // the reduced-header odd file
        var ids = Set<String>()
        for f in TestSupport.usgsFiles where f != "oddcsv_2018-01-01_2023-02-04_4828.csv" {
            ids.formUnion(try RealFeedTests.distinctIds(dir.appendingPathComponent(f).path))
        }
        #expect(s.manifest.rows == ids.count)
        _ = try s.verify()
    }
}
