import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Dedupe across snapshots, partition moves and field keeping, against hand-computed answers.
@Suite struct UpsertTests {
    static let h = TestSupport.header22

    static func row(id: String, time: String, updated: String, mag: String = "2.5", place: String = "10 km N of Town, CA",
                    status: String = "automatic") -> String {
        "\(time),38.1,-122.2,5.5,\(mag),md,10,50,0.01,0.1,nc,\(id),\(updated),\"\(place)\",earthquake,0.2,0.3,0.1,5,\(status),nc,nc"
    }

    static func file(_ dir: String, _ name: String, _ rows: [String]) -> String {
        let p = dir + "/" + name
        TestSupport.write(([h] + rows).joined(separator: "\n") + "\n", to: p)
        return p
    }

    static func stored(_ s: Store) throws -> [String: Quake] {
        let b = try TestSupport.allRows(s)
        return Dictionary(uniqueKeysWithValues: (0..<b.count).map { i in
            let q = Quake(batch: b, row: i)
            return (q.id, q)
        })
    }

    @Test func highestUpdatedWinsWhateverTheFileOrder() throws {
        let d = TestSupport.tempDir()
        let old = Self.file(d, "a.csv", [Self.row(id: "nc1", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T01:00:00.000Z", mag: "2.5")])
        let new = Self.file(d, "b.csv", [Self.row(id: "nc1", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-06T01:00:00.000Z", mag: "2.7", status: "reviewed")])
        for order in [[old, new], [new, old]] {
            let (s, summary, _) = try TestSupport.load(order)
            let q = try #require(try Self.stored(s)["nc1"])
            #expect(q.magnitude == 2.7 && q.status == "reviewed")
            #expect(s.manifest.rows == 1 && summary.new == 1)
        }
        // across loads: older version afterwards changes nothing
        let (s, _, _) = try TestSupport.load([new])
        let again = try s.load([old])
        #expect(again.unchanged == 1 && again.updated == 0 && !again.committed)
        #expect(try Self.stored(s)["nc1"]?.magnitude == 2.7)
        let newer = Self.file(d, "c.csv", [Self.row(id: "nc1", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-07T01:00:00.000Z", mag: "3.1")])
        let third = try s.load([newer])
        #expect(third.updated == 1 && third.new == 0)
        #expect(try Self.stored(s)["nc1"]?.magnitude == 3.1)
        _ = try s.verify()
    }

    @Test func equalUpdatedTiesBreakByValueNotByOrder() throws {
        let d = TestSupport.tempDir()
        let a = Self.file(d, "a.csv", [Self.row(id: "nc2", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T01:00:00.000Z", place: "111km WSW of Town, CA")])
        let b = Self.file(d, "b.csv", [Self.row(id: "nc2", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T01:00:00.000Z", place: "111 km WSW of Town, CA")])
        // two copies of one version that disagree: the greater value, in one load or two, in either order
        for order in [[a, b], [b, a]] {
            let (together, _, _) = try TestSupport.load(order)
            #expect(try Self.stored(together)["nc2"]?.place == "111km WSW of Town, CA")
            let (apart, _, _) = try TestSupport.load([order[0]])
            let again = try apart.load([order[1]])
            #expect(try Self.stored(apart)["nc2"]?.place == "111km WSW of Town, CA")
            #expect(again.updated == (order[0] == b ? 1 : 0))
        }
    }

    /// Two copies of one version whose decimals are written with other numbers of digits: the
    /// greater number wins, in one load or two, in either order (a user trial found 5.7 kept
    /// over 6, the encodings compared).
    @Test(arguments: [("6", "5.7", "6"), ("1.35", "1.4", "1.4"), ("2", "1.99", "2"), ("6.0", "6", "6.0")])
    func tiedDecimalsKeepTheGreaterNumber(first: String, second: String, kept: String) throws {
        let d = TestSupport.tempDir()
        let header = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"
        func file(_ name: String, _ mag: String) -> String {
            let line = "2024-01-05T00:00:00.000Z,35.5,-117.5,\(mag),\(mag),ml,,,,,ci,ci9,"
                + "2024-01-05T01:00:00.000Z,Town,earthquake"
            TestSupport.write(header + "\n" + line + "\n", to: d + "/" + name)
            return d + "/" + name
        }
        let a = file("a.csv", first)
        let b = file("b.csv", second)
        for order in [[a, b], [b, a]] {
            let (together, _, _) = try TestSupport.load(order)
            let (apart, _, _) = try TestSupport.load([order[0]])
            try apart.load([order[1]])
            for store in [together, apart] {
                let rows = try TestSupport.allRows(store)
                #expect(rows.count == 1)
                #expect(ScaledDecimal.string(rows.ints[Column.mag.rawValue][0]) == kept, "\(order)")
                #expect(ScaledDecimal.string(rows.ints[Column.depth.rawValue][0]) == kept, "\(order)")
            }
        }
    }

    @Test func anEventWhoseTimeMovesChangesPartition() throws {
        let d = TestSupport.tempDir()
        let a = Self.file(d, "a.csv", [Self.row(id: "nc3", time: "2024-01-31T23:59:59.000Z", updated: "2024-02-01T00:10:00.000Z"),
                                       Self.row(id: "nc4", time: "2024-01-15T00:00:00.000Z", updated: "2024-01-15T00:10:00.000Z")])
        let (s, _, _) = try TestSupport.load([a])
        #expect(s.manifest.partitions.map(\.key) == ["2024-01"])
        let b = Self.file(d, "b.csv", [Self.row(id: "nc3", time: "2024-02-01T00:00:01.000Z", updated: "2024-02-02T00:00:00.000Z")])
        let r = try s.load([b])
        #expect(r.updated == 1 && r.new == 0)
        #expect(s.manifest.partitions.map(\.key) == ["2024-01", "2024-02"])
        #expect(s.manifest.partitions.map(\.rows) == [1, 1])
        #expect(try Self.stored(s)["nc3"]?.time == Date(epochMilliseconds: Timestamp.parse("2024-02-01T00:00:01.000Z")!))
        _ = try s.verify()
        // and within one load: versions in two partitions, the newer one wins
        let c = Self.file(d, "c.csv", [Self.row(id: "nc5", time: "2023-05-31T23:00:00.000Z", updated: "2023-06-01T00:00:00.000Z"),
                                       Self.row(id: "nc5", time: "2023-06-01T01:00:00.000Z", updated: "2023-06-02T00:00:00.000Z", mag: "4.0")])
        let (s2, r2, _) = try TestSupport.load([c])
        #expect(r2.new == 1 && s2.manifest.rows == 1 && s2.manifest.partitions.map(\.key) == ["2023-06"])
        _ = try s2.verify()
    }

    @Test func csvAfterGeoJSONKeepsTheGeoJSONOnlyFields() throws {
        let d = TestSupport.tempDir()
        let geo = d + "/a.geojson"
        TestSupport.write("""
        {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"mag":2.5,"place":"10 km N of Town, CA","time":1704412800000,"updated":1704416400000,"tz":null,"url":"https://x/nc6","felt":12,"cdi":3.1,"status":"automatic","tsunami":0,"sig":96,"net":"nc","code":"6","ids":",nc6,","magType":"md","type":"earthquake","title":"M 2.5 - 10 km N of Town, CA"},"geometry":{"type":"Point","coordinates":[-122.2,38.1,5.5]},"id":"nc6"}]}
        """, to: geo)
        let csv = Self.file(d, "b.csv", [Self.row(id: "nc6", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-06T00:00:00.000Z", mag: "2.6", status: "reviewed")])
        let (s, _, rejects) = try TestSupport.load([geo])
        #expect(rejects.isEmpty)
        try s.load([csv])
        let q = try #require(try Self.stored(s)["nc6"])
        #expect(q.magnitude == 2.6 && q.status == "reviewed" && q.horizontalError == 0.2)
        #expect(q.felt == 12 && q.cdi == 3.1 && q.url == "https://x/nc6")
        // the GeoJSON's title follows from its fields, so none is stored: read, it follows the newest magnitude
        #expect(q.title == nil)
        let read = try s.fetch(FetchDescriptor<Quake>())
        #expect(read.map(\.title) == ["M 2.6 - 10 km N of Town, CA"])
    }

    @Test func duplicateIdsInOneFileKeepTheNewest() throws {
        let d = TestSupport.tempDir()
        let a = Self.file(d, "a.csv", [
            Self.row(id: "nc7", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T03:00:00.000Z", mag: "3.0"),
            Self.row(id: "nc7", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T05:00:00.000Z", mag: "3.3"),
            Self.row(id: "nc7", time: "2024-01-05T00:00:00.000Z", updated: "2024-01-05T04:00:00.000Z", mag: "3.1"),
        ])
        let (s, r, _) = try TestSupport.load([a])
        #expect(r.rowsRead == 3 && r.new == 1 && s.manifest.rows == 1)
        #expect(try Self.stored(s)["nc7"]?.magnitude == 3.3)
    }

    @Test func generatedOverlappingSnapshotsDedupeToTheDistinctEvents() throws {
        let d = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 3000)
        o.rowsPerFile = 1000
        o.overlap = 0.05
        let files = try FeedGenerator.generate(o, into: d + "/gen")
        #expect(files.count == 3)
        let (s, r, rejects) = try TestSupport.load([d + "/gen"])
        #expect(rejects.isEmpty)
        #expect(r.rowsRead == 3000 + 2 * 50)
        #expect(s.manifest.rows == 3000)
        // each revised event keeps its newest version: status reviewed
        let b = try TestSupport.allRows(s)
        let texts = (0..<b.count).compactMap { b.text[Column.status.rawValue].string($0) }
        #expect(texts.count == 3000)
        _ = try s.verify()
        // GeoJSON and gzip/zstd variants hold the same events
        for (format, comp) in [(FeedWriter.Format.geojson, OutputSink.Compression.gz), (.csv, .zst)] {
            var g = o
            g.format = format
            g.compression = comp
            _ = try FeedGenerator.generate(g, into: d + "/\(format)-\(comp)")
            let (s2, _, rej2) = try TestSupport.load([d + "/\(format)-\(comp)"])
            #expect(rej2.isEmpty)
            #expect(try TestSupport.export(s2, .csv) == TestSupport.export(s, .csv))
        }
    }
}
