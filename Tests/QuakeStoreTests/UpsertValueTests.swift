import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// `upsert(_:)` stores each value as it is, as SwiftData's save does; `upsert(_:fields:)`
/// changes only the fields it names.
@Suite struct UpsertValueTests {
    static let t0 = Date(timeIntervalSince1970: 1_717_000_000)

    static func full(_ id: String, updated: Date) -> Quake {
        var quake = Quake(id: id, time: t0, latitude: 61.2, longitude: -149.9, depth: 12.5, magnitude: 3.1,
                          place: "10 km N of Anchorage, Alaska")
        quake.updated = updated
        quake.felt = 40
        quake.status = "reviewed"
        quake.magType = "ml"
        quake.horizontalError = 0.4
        return quake
    }

    static func stored(_ store: Store, _ id: String) throws -> Quake? {
        var descriptor = FetchDescriptor<Quake>()
        descriptor.includesDeleted = true
        return try store.fetch(descriptor).first { $0.id == id }
    }

    @Test func nilClearsTheStoredField() throws {
        let store = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        try store.upsert([Self.full("ak1", updated: Self.t0)])
        var revised = Self.full("ak1", updated: Self.t0.addingTimeInterval(60))
        revised.place = nil
        revised.felt = nil
        revised.depth = nil
        revised.horizontalError = nil
        let summary = try store.upsert([revised])
        #expect(summary.updated == 1)
        let quake = try #require(try Self.stored(store, "ak1"))
        #expect(quake.place == nil && quake.felt == nil && quake.depth == nil && quake.horizontalError == nil)
        #expect(quake.magnitude == 3.1 && quake.status == "reviewed" && quake.magType == "ml")
        // an event without a title reads with USGS's, made from its magnitude (and here no place)
        var expected = revised
        expected.title = "M 3.1"
        #expect(quake == expected)
        _ = try store.verify()
    }

    @Test func anOlderValueChangesNothing() throws {
        let store = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        try store.upsert([Self.full("ak2", updated: Self.t0)])
        var older = Self.full("ak2", updated: Self.t0.addingTimeInterval(-60))
        older.place = nil
        let summary = try store.upsert([older])
        #expect(summary.unchanged == 1 && !summary.committed)
        #expect(try Self.stored(store, "ak2")?.place == "10 km N of Anchorage, Alaska")
    }

    @Test func aNewerValueOfADeletedIdBringsItBack() throws {
        let store = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        try store.upsert([Self.full("ak3", updated: Self.t0)])
        try store.delete(ids: ["ak3"])
        #expect(try store.fetch(FetchDescriptor<Quake>()).isEmpty)
        let deleted = try #require(try Self.stored(store, "ak3"))
        #expect(deleted.status == "deleted" && deleted.place == "10 km N of Anchorage, Alaska")
        // an app's value, with no status set, newer than the tombstone
        var back = Self.full("ak3", updated: (deleted.updated ?? Self.t0).addingTimeInterval(1))
        back.status = nil
        try store.upsert([back])
        let visible = try store.fetch(FetchDescriptor<Quake>())
        #expect(visible.map(\.id) == ["ak3"])
        #expect(visible.first?.status == nil)
    }

    @Test func aPartialUpsertChangesOnlyTheNamedFields() throws {
        let store = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        try store.upsert([Self.full("ak4", updated: Self.t0)])
        var change = Quake(id: "ak4", time: Self.t0, latitude: 61.2, longitude: -149.9)
        change.magnitude = 3.4
        change.place = nil
        change.updated = Self.t0.addingTimeInterval(60)
        let summary = try store.upsert([change], fields: [\Quake.magnitude, \Quake.place])
        #expect(summary.updated == 1)
        let quake = try #require(try Self.stored(store, "ak4"))
        #expect(quake.magnitude == 3.4 && quake.place == nil)
        // the fields not named keep their values, though the value passed had none
        #expect(quake.felt == 40 && quake.depth == 12.5 && quake.status == "reviewed" && quake.horizontalError == 0.4)
        #expect(quake.updated == change.updated)
        // a partial upsert of an id the store lacks inserts the carried fields alone
        var fresh = Quake(id: "ak5", time: Self.t0, latitude: 1, longitude: 2, depth: 7, magnitude: 2)
        fresh.updated = Self.t0
        try store.upsert([fresh], fields: [\Quake.magnitude])
        let inserted = try #require(try Self.stored(store, "ak5"))
        #expect(inserted.magnitude == 2 && inserted.depth == nil)
        // an older full value no longer brings back what the newer partial one cleared
        var older = Self.full("ak4", updated: Self.t0.addingTimeInterval(30))
        older.felt = 99
        try store.upsert([older])
        let after = try #require(try Self.stored(store, "ak4"))
        #expect(after.place == nil && after.magnitude == 3.4)
        // fields the partial upsert did not carry take the older full value's, the newest that carried them
        #expect(after.felt == 99)
        _ = try store.verify()
    }

    @Test func errorsNameThePositionAndTheField() throws {
        let store = try Store.openOrCreate(path: TestSupport.tempDir() + "/s")
        var bad = Self.full("ak6", updated: Self.t0)
        bad.gap = .infinity
        let good = Self.full("ak7", updated: Self.t0)
        do {
            try store.upsert([good, bad])
            Issue.record("an infinite gap was stored")
        } catch let error as QuakeError {
            #expect(error.kind == .invalidArgument)
            #expect(error.detail.contains("quake 1 (ak6) gap"))
        }
        do {
            try store.upsert([good], fields: [\Quake.magnitude, \Quake.latitudeAndLongitudeText])
            Issue.record("a computed property was accepted as a field")
        } catch let error as QuakeError {
            #expect(error.kind == .invalidArgument)
            #expect(error.detail.contains("fields[1]"))
        }
        // a value the loader refuses: named by its position and id and the field, not by the staged file
        var outside = Self.full("ak8", updated: Self.t0)
        outside.latitude = 100
        do {
            try store.upsert([good, outside])
            Issue.record("a latitude of 100 was stored")
        } catch let error as QuakeError {
            let text = "\(error)"
            #expect(error.kind == .invalidArgument, "\(text)")
            #expect(text.contains("quake 1 (id \"ak8\")") && text.contains("latitude"), "\(text)")
            #expect(!text.contains("quakes-upsert-") && !text.contains("feature 2"), "\(text)")
        }
        #expect(store.manifest.rows == 0)
    }
}

extension Quake {
    /// A computed property: no stored field behind it.
    fileprivate var latitudeAndLongitudeText: String { "\(latitude),\(longitude)" }
}
