import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeSync
import Synchronization
import Testing

/// `Store.sync` cancelled at any instant (issue 67): during a request, between pieces, while
/// pieces load, during a commit. It throws `CancellationError` promptly; each batch of pieces is
/// committed whole with its cursor or not at all, so the copy always equals the upstream's events
/// up to where its cursor says the first sync reached; nothing is committed after the call
/// returned; and the store verifies. The upstream is a local `quakes serve` over generated events.
@Suite(.serialized) struct SyncCancellationTests {
    /// How far apart two instants of one thread may be read on a loaded machine: "a commit began after the
    /// cancel" and "the call returned after it" are told by more than this, so the test is about order, not speed.
    static let slack = 1.0
    static let start: Int64 = 1_577_836_800_000   // 2020-01-01
    static let end: Int64 = 1_609_459_200_000     // 2021-01-01

    /// Every event, tombstones too, in id order.
    static func events(_ store: Store) throws -> [Quake] {
        var all = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.id)])
        all.includesDeleted = true
        return try store.fetch(all)
    }

    @Test func aSyncCancelledAtAnyInstantKeepsItsCursorInStep() async throws {
        let (up, _) = try WriterSupport.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: WriterSupport.maxEvents)
        let source = SyncSource.fdsn(server.base)
        let filter = SyncFilter(start: Self.start, end: Self.end)
        let dir = CLI.tempDir()
        let reference = try Store.openOrCreate(path: dir + "/reference")
        let began = Date()
        _ = try await reference.sync(from: source, filter: filter)
        // how long a sync takes now: the cancels fall inside it (a sync that ended first tells anew)
        var whole = Date().timeIntervalSince(began)
        let all = try Self.events(reference)
        #expect(all.count == 3000)

        var cancelled = 0
        var intermediate = 0
        var latencies: [Double] = []
        for trial in 0..<50 {
            let store = try Store.openOrCreate(path: dir + "/trial\(trial)")
            // odd trials commit each piece; even ones commit every piece together, at the end
            var options = SyncOptions()
            if trial % 2 == 1 { options.commitBytes = 1 }
            // when each commit of a load began: none may begin after the cancel
            let commits = Moments()
            options.load.onPhase = { if $0 == "committing" { commits.add() } }
            let trialBegan = Date()
            let task = Task { [options] in
                let summary = try await store.sync(from: source, filter: filter, options: options)
                return (summary, Date())
            }
            try await Task.sleep(for: .seconds(Double.random(in: 0...whole * 0.8)))
            let cancelledAt = Date()
            task.cancel()
            let result = await task.result
            latencies.append(Date().timeIntervalSince(cancelledAt))
            let late = commits.all.filter { $0.timeIntervalSince(cancelledAt) > Self.slack }
            #expect(late.isEmpty, "trial \(trial): a load began its commit after the cancel")
            let generation = store.freshManifest().generation
            let now = try Self.events(store)
            let cursor = try store.syncCursors().first
            switch result {
            case .success(let (_, returnedAt)):
                // only a sync that was over before the cancel came returns: it never ignores one
                #expect(returnedAt.timeIntervalSince(cancelledAt) < Self.slack,
                        "trial \(trial): the cancel was ignored")
                whole = returnedAt.timeIntervalSince(trialBegan)
                #expect(now == all && cursor?.since != nil, "trial \(trial): a sync that returned is not whole")
            case .failure(let error):
                #expect(error is CancellationError, "trial \(trial): \(error)")
                cancelled += 1
                // the cursor and the events agree: the first sync reached `through`, and holds exactly that
                if let cursor, cursor.since != nil {
                    #expect(now == all, "trial \(trial): the cursor says done")
                } else if let through = cursor?.firstSyncThrough?.0 {
                    let want = all.filter { $0.time.timeIntervalSince1970 * 1000 < Double(through) }
                    #expect(now == want, "trial \(trial): \(now.count) events, the cursor says \(want.count)")
                    #expect(trial % 2 == 1, "trial \(trial): one batch was committed in part")
                    if !want.isEmpty && want.count < all.count { intermediate += 1 }
                } else {
                    #expect(now.isEmpty, "trial \(trial): \(now.count) events without a cursor")
                }
            }
            _ = try await store.verify()
            #expect(!FileIO.exists(store.path + "/sync.tmp") && !FileIO.exists(store.path + "/tmp"), "trial \(trial)")
            // nothing goes on after the call returned: no load left in flight commits later
            try await Task.sleep(for: .milliseconds(300))
            #expect(store.freshManifest().generation == generation, "trial \(trial): a commit after the sync returned")
        }
        #expect(cancelled >= 20, "only \(cancelled) of 50 syncs were cancelled before they ended")
        #expect(intermediate > 0, "no cancel fell between two commits of a first sync")
        // every cancel was answered; how fast (200 ms) is measured in Benchmarks/compare/cancel.py
        #expect(latencies.allSatisfy { $0 < 30 }, "cancel to throw: \(latencies.sorted()) s")
    }
}

/// Instants something happened, collected across threads.
final class Moments: Sendable {
    private let list = Mutex<[Date]>([])
    func add() { list.locked { $0.append(Date()) } }
    var all: [Date] { list.locked { $0 } }
}
