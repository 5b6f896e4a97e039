import Foundation
import Testing
import QuakeFormat
import QuakeStore
@testable import QuakeSync
import QuakeGenerator
import QuakeTestSupport

/// A sync from an fdsnws-event service inside the test process (``FDSNUpstream`` on 127.0.0.1):
/// a first sync pieced under the service's limit, then incremental syncs that ask only for what
/// changed, against the naive answer (each event in the window as its newest published version):
/// new events inserted, updated ones replaced (some across partitions), deleted ones kept as
/// tombstones, events outside the window never fetched.
@Suite struct FDSNSyncTests {
    static let day: Int64 = 86_400_000
    /// 2024-01-01T00:00:00Z.
    static let base: Int64 = 1_704_067_200_000

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `count` events "evN" (from `first`), updated in the 40 days from `base`, each dated up to
    /// 20 days before its update; none deleted.
    static func events(_ count: Int, first: Int = 0, using random: inout SplitMix64) -> [Quake] {
        (first..<(first + count)).map { number in
            let updated = base + Int64.random(in: 0...(40 * day), using: &random)
            var quake = FoldScenario.randomQuake(id: "ev\(number)", updated: updated, using: &random)
            quake.status = Bool.random(using: &random) ? "reviewed" : "automatic"
            return quake
        }
    }

    /// The store's events against the upstream's newest versions inside `window`.
    static func check(_ store: Store, _ upstream: FDSNUpstream, _ window: Range<Int64>,
                      _ comment: String) throws {
        let inWindow = upstream.catalog.filter { window.contains($0.timeMilliseconds) }
        let expected = FoldScenario.naiveFold(inWindow.map { FoldScenario.Delivery(quake: $0, shape: .value) })
        let differing = FoldScenario.differences(try FoldScenario.contents(store), expected)
        #expect(differing.isEmpty, "\(comment): \(differing.count) events differ: \(differing.prefix(3))")
    }

    @Test func aFirstSyncThenIncrementalSyncsGiveTheServicesEvents() async throws {
        var random = SplitMix64(seed: 70)
        let upstream = try FDSNUpstream(limit: 16)
        defer { upstream.stop() }
        let window = (Self.base - 30 * Self.day)..<(Self.base + 90 * Self.day)
        var initial = Self.events(60, using: &random)
        // three events before the window: never asked for, never stored
        for number in 0..<3 {
            var early = Self.events(1, first: 900 + number, using: &random)[0]
            early.time = Self.date(window.lowerBound - Int64(number + 1) * Self.day)
            initial.append(early)
        }
        upstream.publish(initial)

        let store = try Store.openOrCreate(path: TestSupport.tempDir("fdsn-sync-\(UUID().uuidString)") + "/store")
        let source = try SyncSource(url: upstream.base)
        let filter = SyncFilter(start: window.lowerBound, end: window.upperBound)
        var options = SyncOptions()
        options.attempts = 1
        options.retryDelay = 0.01
        let firstNow = Self.base + 60 * Self.day
        options.now = { firstNow }

        let first = try await store.sync(from: source, filter: filter, options: options)
        let firstRequests = upstream.takeRequests()
        #expect(first.firstSync)
        #expect(first.load.new == 60)
        #expect(first.pieces >= 4, "60 events under a limit of 16 take several pieces: \(first.pieces)")
        #expect(firstRequests.filter { $0.contains("/query?") }.allSatisfy {
            $0.contains("includedeleted=true") && !$0.contains("updatedafter")
        }, "\(firstRequests)")
        try Self.check(store, upstream, window, "after the first sync")

        // later: revisions (every third moved 35 days, across partitions), deletions, new events,
        // and a revision of an event before the window
        let published = initial.filter { window.contains($0.timeMilliseconds) }.sorted { $0.id < $1.id }
        let later = firstNow + Self.day
        var changes: [Quake] = []
        for (index, quake) in published.prefix(10).enumerated() {
            var revised = quake
            revised.magnitude = Double(Int.random(in: 10...80, using: &random)) / 10
            revised.updated = Self.date(later + Int64(index) * 60_000)
            if index % 3 == 0 { revised.time = Self.date(quake.timeMilliseconds + 35 * Self.day) }
            changes.append(revised)
        }
        for quake in published.dropFirst(10).prefix(5) {
            var tombstone = quake
            tombstone.status = "deleted"
            tombstone.updated = Self.date(later)
            changes.append(tombstone)
        }
        for var fresh in Self.events(8, first: 500, using: &random) {
            fresh.updated = Self.date(later + 3_600_000)
            changes.append(fresh)
        }
        var outside = initial[initial.count - 1]
        outside.updated = Self.date(later)
        changes.append(outside)
        upstream.publish(changes)

        options.now = { later + 5 * Self.day }
        let second = try await store.sync(from: source, filter: filter, options: options)
        let secondRequests = upstream.takeRequests()
        #expect(!second.firstSync)
        #expect(second.load.new == 8)
        #expect(second.load.updated == 15)
        #expect(second.deleted == 5)
        let queries = secondRequests.filter { $0.contains("/query?") }
        #expect(!queries.isEmpty && queries.allSatisfy { $0.contains("updatedafter=") }, "\(secondRequests)")
        try Self.check(store, upstream, window, "after the incremental sync")
        #expect(try FoldScenario.contents(store).count == 68, "60 + 8 events, the tombstones among them")

        // nothing changed since: the sync asks for changes only (its overlap may fetch the
        // newest again) and changes nothing
        options.now = { later + 6 * Self.day }
        let third = try await store.sync(from: source, filter: filter, options: options)
        #expect(third.load.new == 0 && third.load.updated == 0 && third.deleted == 0)
        #expect(upstream.takeRequests().filter { $0.contains("/query?") }.allSatisfy { $0.contains("updatedafter=") })
        try Self.check(store, upstream, window, "after a sync with nothing new")
        _ = try await store.verify()
    }
}
