import QuakeSupport
import Foundation
import Testing
import Synchronization
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

/// The library's `ResultsObserver`: an answer now, and again only after commits that could
/// change it, judged from the history and the descriptor's time bounds.
@Suite struct ResultsObserverTests {
    final class Updates: Sendable {
        private let items = Mutex<[(Int, Int)]>([])
        func add(_ g: Int, _ n: Int) { items.locked { $0.append((g, n)) } }
        var all: [(Int, Int)] { items.locked { $0 } }
        private let ended = Atomic<Bool>(false)
        func end() { ended.store(true, ordering: .releasing) }
        var hasEnded: Bool { ended.load(ordering: .acquiring) }
        func wait(for n: Int, timeout: Double) -> Bool {
            let start = Date()
            while Date().timeIntervalSince(start) < timeout {
                if all.count >= n { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return false
        }
    }

    /// Runs its jobs on GCD, not the cooperative pool, which other tests may hold blocked: the
    /// consuming task must run however busy the test process is.
    final class DispatchExecutor: TaskExecutor {
        let queue = DispatchQueue(label: "observer-test")
        func enqueue(_ job: consuming ExecutorJob) {
            let j = UnownedJob(job)
            let me = asUnownedTaskExecutor()
            queue.async { j.runSynchronously(on: me) }
        }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func observerYieldsOnlyForCommitsThatMatter() throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let c = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        let other = try #require(TestSupport.usgs("geojson_2019-01-29_2019-01-30_233.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: d + "/s")
        try s.load([a])
        let lo = Date(timeIntervalSince1970: 1_562_371_200)   // 2019-07-06
        let hi = lo.addingTimeInterval(86_400)
        let descriptor = FetchDescriptor<Quake>(predicate: #Predicate { $0.time >= lo && $0.time < hi })
        let expected = try s.fetchCount(descriptor)
        let updates = Updates()
        let task = Task(executorPreference: DispatchExecutor()) {
            defer { updates.end() }
            for try await u in s.countResults(for: descriptor) { updates.add(u.generation, u.result) }
        }
        #expect(updates.wait(for: 1, timeout: 10))
        try s.load([other])       // commits, other days only
        try s.load([a])           // commits nothing
        Thread.sleep(forTimeInterval: 1.0)
        #expect(updates.all.count == 1)
        try s.load([c])           // revises the day
        #expect(updates.wait(for: 2, timeout: 5))
        // a history prune commits without touching data: no update
        try s.pruneHistory(before: 3)
        Thread.sleep(forTimeInterval: 0.8)
        task.cancel()
        let start = Date()
        while !updates.hasEnded && Date().timeIntervalSince(start) < 5 { Thread.sleep(forTimeInterval: 0.02) }
        #expect(updates.hasEnded, "cancelling the task ends the iteration")
        let all = updates.all
        #expect(all.map(\.0) == [1, 3] && all.map(\.1) == [expected, expected], "\(all)")
        #expect(try s.fetchCount(descriptor) == expected)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func feedJudgesCommitsFromHistoryAndPartitions() throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let other = try #require(TestSupport.usgs("geojson_2019-01-29_2019-01-30_233.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: d + "/s")
        try s.load([a])
        let m1 = s.manifest
        try s.load([other])
        let m2 = s.manifest
        try s.pruneHistory(before: 2)
        let m3 = s.manifest
        let july = Filter.timeRange(.time, lower: Timestamp.parse("2019-07-01T00:00:00.000Z"), upper: nil)
        let january = Filter.timeRange(.time, lower: Timestamp.parse("2019-01-29T00:00:00.000Z"),
                                       upper: Timestamp.parse("2019-01-30T00:00:00.000Z"))
        for (f, expect12, expect23) in [(july, false, false), (january, true, false), (Filter.all, true, false)] {
            let feed = try ChangeFeed(store: s, filter: f)
            #expect(try feed.couldAffect(from: m1, to: m2) == expect12, "\(f)")
            #expect(try feed.couldAffect(from: m2, to: m3) == expect23, "\(f): a prune changes no answer")
        }
    }
}
