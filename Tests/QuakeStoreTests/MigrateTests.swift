import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

@Suite struct MigrateTests {
    @Test func migrateFromV1GivesIdenticalExports() throws {
        try Self.migrateFromV1(withRealFeed: false)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func migrateFromV1GivesIdenticalExportsWithARealFeed() throws {
        try Self.migrateFromV1(withRealFeed: true)
    }

    /// Generated events (and a real GeoJSON feed) loaded, written as a v1 store, migrated and compared.
    static func migrateFromV1(withRealFeed: Bool) throws {
        var o = GeneratorOptions(rows: 8000)
        o.firstYear = 2019; o.lastYear = 2021
        let d = TestSupport.tempDir()
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        var paths = [d + "/gen"]
        if withRealFeed { paths.append(try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))) }
        let (v2, _, _) = try TestSupport.load(paths)
        let rows = try TestSupport.allRows(v2)
        let v1 = d + "/v1"
        try V1StoreWriter.write(rows, to: v1, blockRows: 3000)
        do {
            _ = try Store(path: v1)
            Issue.record("a v1 store opened without migration")
        } catch {
            #expect(error.kind == .needsMigration && error.description.contains("format v1"), "\(error)")
        }
        let r = try Store.migrate(path: v1)
        #expect(r.rows == rows.count)
        let migrated = try Store(path: v1)
        #expect(!FileManager.default.fileExists(atPath: v1 + "/manifest.json"))
        #expect(try FileIO.list(v1 + "/partitions").allSatisfy {
            $0.hasSuffix(".qkp") || $0.hasSuffix(".qkc") || $0.hasSuffix(".qkt")
        })
        _ = try migrated.verify()
        #expect(try TestSupport.export(migrated, .csv) == TestSupport.export(v2, .csv))
        #expect(try TestSupport.export(migrated, .geojson) == TestSupport.export(v2, .geojson))
        #expect(throws: QuakeError.self) { try Store.migrate(path: v1) }
        // and it keeps loading as a v2 store
        let again = try migrated.load(paths)
        #expect(!again.committed)
    }

    @Test func aV1ManifestNamingPathsIsRefusedBeforeAnythingIsWritten() throws {
        var o = GeneratorOptions(rows: 1500)
        o.firstYear = 2021; o.lastYear = 2021
        let d = TestSupport.tempDir()
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        let (v2, _, _) = try TestSupport.load([d + "/gen"])
        let v1 = d + "/v1"
        try V1StoreWriter.write(try TestSupport.allRows(v2), to: v1)
        let path = v1 + "/manifest.json"
        let json = try String(contentsOfFile: path, encoding: .utf8)
        let key = try #require(v2.manifest.partitions.first?.key)
        TestSupport.write(json.replacingOccurrences(of: "\"key\":\"\(key)\"", with: "\"key\":\"..\\/..\\/escape\""), to: path)
        #expect(throws: QuakeError.self) { try Store.migrate(path: v1) }
        #expect(!FileManager.default.fileExists(atPath: v1 + "/" + Manifest.fileName))
        #expect(try FileIO.list(v1 + "/partitions").allSatisfy { !$0.hasSuffix(".qkp") })
        #expect(!FileManager.default.fileExists(atPath: d + "/escape.g2.qkp"))
    }

    @Test func aStoreWithoutManifestIsNeverReplacedByANewOne() throws {
        var o = GeneratorOptions(rows: 2000)
        o.firstYear = 2020; o.lastYear = 2020
        let d = TestSupport.tempDir()
        _ = try FeedGenerator.generate(o, into: d + "/gen")
        let (s, _, _) = try TestSupport.load([d + "/gen"])
        try FileManager.default.removeItem(atPath: s.path + "/" + Manifest.fileName)
        do {
            _ = try Store.openOrCreate(path: s.path)
            Issue.record("a store without its manifest was replaced")
        } catch {
            #expect(error.description.contains("no \(Manifest.fileName)"), "\(error)")
        }
        #expect(!FileIO.list(s.path + "/partitions").isEmpty)
    }
}
