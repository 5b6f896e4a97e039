import Foundation
import Observation
import QuakeStore
import Testing

/// The `@Observable` live query a SwiftUI view holds as it holds `@Query`.
@Suite("QuakeQuery")
@MainActor
struct QuakeQueryTests {
    static func big(_ id: String, _ magnitude: Double) -> Quake {
        Quake(id: id, time: Date(timeIntervalSince1970: 1_704_200_000), latitude: 10, longitude: 20, depth: 5,
              magnitude: magnitude, place: "Test Ridge")
    }

    @Test("start, see the quakes, see another handle's upsert within seconds, stop")
    func follows() async throws {
        let store = try Generated.freshStore("query")
        let all = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) >= 5 },
                                         sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        var page = all
        page.fetchLimit = 20
        let total = try await store.fetchCount(all)
        let expected = try await store.fetchIdentifiers(page)
        #expect(total > 20)

        let query = QuakeQuery(store: store, descriptor: page)
        #expect(query.quakes.isEmpty && query.generation == nil)
        query.start()
        #expect(query.isRunning)
        #expect(await eventually(10) { query.quakes.count == 20 }, "no first answer")
        #expect(query.quakes.map(\.id) == expected)
        #expect(query.totalCount == total)
        let first = try #require(query.generation)

        let other = try Store(path: store.path)
        // as SwiftUI watches it
        let changed = Locked(false)
        withObservationTracking { _ = query.quakes } onChange: { changed.set(true) }
        let started = Date()
        try await other.upsert([Self.big("big1", 9.1)])
        #expect(await eventually(10) { query.quakes.first?.id == "big1" }, "the upsert never showed")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(query.totalCount == total + 1)
        #expect((query.generation ?? 0) > first)
        #expect(query.quakes.count == 20)
        #expect(query.error == nil)
        #expect(changed.value, "no Observation change for quakes")

        // a new descriptor fetches again
        var small = page
        small.fetchLimit = 3
        query.descriptor = small
        #expect(await eventually(10) { query.quakes.count == 3 }, "the new descriptor was not fetched")

        query.stop()
        #expect(!query.isRunning)
        try await other.upsert([Self.big("big2", 9.5)])
        try await Task.sleep(for: .seconds(1.5))
        #expect(query.quakes.first?.id == "big1", "a stopped query still follows the store")
    }

    @Test("an error shows in error, not as a trap")
    func error() async throws {
        let store = try Store(path: try Generated.smallStore.get())
        let query = QuakeQuery(store: store, descriptor: FetchDescriptor(predicate: #Predicate { $0.magnitude! > 1 }))
        query.start()
        #expect(await eventually(10) { query.error != nil })
        #expect(query.error?.kind == .predicateFailed)
        query.stop()
    }
}
