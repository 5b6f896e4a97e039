import QuakeSupport
import Foundation
import Synchronization
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The async twins of the blocking calls (issue 69): each gives what its synchronous form gives,
/// and runs off the main actor.
@Suite struct AsyncTwinsTests {
    static func quakes(_ count: Int) -> [Quake] {
        (0..<count).map { index in
            let time = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3600)
            let latitude = Double(index % 80)
            let longitude = Double(index % 170)
            var quake = Quake(id: "tw\(index)", time: time, latitude: latitude, longitude: longitude)
            quake.depth = 10
            quake.magnitude = 2 + Double(index % 10) / 10
            quake.place = "\(index) km N of Town"
            quake.updated = time
            return quake
        }
    }

    /// The same writes and reads through the blocking forms, from synchronous code.
    static func blockingSide(_ store: Store, _ quakes: [Quake], _ changed: [Quake],
                             _ descriptor: FetchDescriptor<Quake>) throws -> (LoadSummary, [Int], [String], Int) {
        let inserted = try store.upsert(quakes)
        _ = try store.upsert(changed, fields: [\Quake.place])
        _ = try store.delete(ids: ["tw1", "tw2", "absent"])
        let updatedCounts = try store.history().map(\.updatedCount)
        var ids: [String] = []
        try store.enumerate(descriptor, batchSize: 64) { quake in ids.append(quake.id) }
        let placeless = try store.fetchCount(FetchDescriptor<Quake>(predicate: #Predicate<Quake> { $0.place == nil }))
        _ = try store.verify()
        return (inserted, updatedCounts, ids, placeless)
    }

    @MainActor
    @Test func everyBlockingWriteAndReadHasAnAsyncTwin() async throws {
        let dir = TestSupport.tempDir()
        let asyncStore = try Store.openOrCreate(path: dir + "/async")
        let blockingStore = try Store.openOrCreate(path: dir + "/blocking")
        let quakes = Self.quakes(500)
        let changed = quakes[0..<50].map { quake -> Quake in
            var copy = quake
            copy.place = nil
            copy.updated = quake.updated?.addingTimeInterval(60)
            return copy
        }
        var descriptor = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\Quake.time)])
        descriptor.includesDeleted = true

        let inserted = try await asyncStore.upsert(quakes)
        #expect(inserted.new == 500)
        let partial = try await asyncStore.upsert(changed, fields: [\Quake.place])
        #expect(partial.updated == 50)
        let deleted = try await asyncStore.delete(ids: ["tw1", "tw2", "absent"])
        #expect(deleted.updated == 2)
        let history = try await asyncStore.history()
        let since = try await asyncStore.history(since: Date(timeIntervalSince1970: 0), identifiers: false)
        #expect(history.count == 3 && since.count == 3)
        // each transaction names the call that made it, not a staged file that is gone
        #expect(history.map(\.files) == [["Store.upsert"], ["Store.upsert"], ["Store.delete(ids:)"]],
                "\(history.map(\.files))")
        var ids: [String] = []
        try await asyncStore.enumerate(descriptor, batchSize: 64) { quake in ids.append(quake.id) }
        let placeless = try await asyncStore.fetchCount(FetchDescriptor<Quake>(predicate: #Predicate<Quake> {
            $0.place == nil
        }))
        let onMain = OffMain()
        _ = try await asyncStore.verify(progress: { _ in onMain.note(Thread.isMainThread) })
        #expect(onMain.calls > 0 && !onMain.sawMain, "verify ran on the main thread")

        let blocking = try Self.blockingSide(blockingStore, quakes, changed, descriptor)
        #expect(blocking.0.new == inserted.new && blocking.1 == history.map(\.updatedCount))
        #expect(ids.count == 500 && ids == blocking.2)
        #expect(placeless == 48 && placeless == blocking.3)
    }
}

/// What the verify's progress calls saw.
private final class OffMain: Sendable {
    private let seen = Mutex((calls: 0, main: false))

    func note(_ isMain: Bool) {
        seen.locked { state in
            state.calls += 1
            state.main = state.main || isMain
        }
    }

    var calls: Int { seen.locked { $0.calls } }
    var sawMain: Bool { seen.locked { $0.main } }
}
