import Foundation
import Testing
@testable import QuakeStore
import QuakeFormat
import QuakeSupport
import QuakeTestSupport
import Synchronization
import QuakeGenerator

/// What an app meets through `Store`: fresh reads and snapshots, queued loads, writes of `Quake`
/// values, cancellation, and errors with their kind and fields.
@Suite struct LibraryStoreTests {
    static func quake(_ id: String, _ minutes: Double, mag: Double? = 3.2) -> Quake {
        Quake(id: id, time: Date(timeIntervalSince1970: 1_700_000_000 + minutes * 60), latitude: 61.2,
              longitude: -149.9, depth: 10, magnitude: mag, place: "10 km N of Anchorage, Alaska")
    }

    static func feed(_ dir: String, rows: Int, seed: UInt64) throws -> String {
        var o = GeneratorOptions(rows: rows)
        o.firstYear = 2024
        o.lastYear = 2024
        o.rowsPerFile = rows
        o.seed = seed
        let out = dir + "/feed-\(seed)"
        _ = try FeedGenerator.generate(o, into: out)
        return out
    }

    @Test func everyReadSeesTheNewestGenerationAndASnapshotKeepsItsOwn() throws {
        let dir = TestSupport.tempDir()
        let a = try Store.openOrCreate(path: dir + "/s")
        try a.upsert([Self.quake("a1", 0)])
        let pinned = try a.snapshot()
        let b = try Store(path: dir + "/s")
        try b.upsert([Self.quake("b1", 1), Self.quake("b2", 2)])
        #expect(try a.fetchCount(FetchDescriptor<Quake>()) == 3, "no refresh() needed")
        #expect(try pinned.fetchCount(FetchDescriptor<Quake>()) == 1, "a snapshot keeps its generation")
        try pinned.refresh()
        #expect(try pinned.fetchCount(FetchDescriptor<Quake>()) == 3)
    }

    @Test func loadsThroughOneStoreQueueInsteadOfFailing() async throws {
        let dir = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: dir + "/s")
        let feeds = try (1...3).map { try Self.feed(dir, rows: 3000, seed: UInt64($0)) }
        let summaries = try await withThrowingTaskGroup(of: LoadSummary.self) { g in
            for f in feeds { g.addTask { try await s.load([f]) } }
            return try await g.reduce(into: []) { $0.append($1) }
        }
        #expect(summaries.count == 3 && summaries.allSatisfy(\.committed))
        #expect(try await s.history().count == 3)
        _ = try await s.verify()
    }

    @Test func cancellingTheTaskStopsALoadBeforeItCommits() async throws {
        let dir = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: dir + "/s")
        let big = try Self.feed(dir, rows: 200_000, seed: 9)
        // cancelled from inside the load, once it has read and spilled its input: a sleep before the
        // cancel says nothing on a busy machine, where the whole load may end before the sleep does
        let pending = Mutex<(task: Task<LoadSummary, any Error>?, spilled: Bool)>((nil, false))
        var options = LoadOptions()
        options.onPhase = { phase in
            if phase == "spilled" {
                let task = pending.withLock { state in
                    state.spilled = true
                    return state.task
                }
                task?.cancel()
            }
        }
        let task = Task { [options] in try await s.load([big], options: options) }
        let spilledFirst = pending.withLock { state in
            state.task = task
            return state.spilled
        }
        if spilledFirst { task.cancel() }
        let result = await task.result
        #expect(pending.withLock { $0.spilled }, "the load got as far as its spill")
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await s.fetchCount(FetchDescriptor<Quake>()) == 0, "nothing committed")
        #expect(s.historyToken.generation == 0)
    }

    @Test func upsertAndDeleteAreTransactionsAndTombstonesHide() throws {
        let dir = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: dir + "/s")
        var first = Self.quake("u1", 0)
        first.updated = Date(timeIntervalSince1970: 1_700_000_100)
        let inserted = try s.upsert([first, Self.quake("u2", 5)])
        #expect(inserted.new == 2)
        var newer = first
        newer.magnitude = 4.4
        newer.updated = Date(timeIntervalSince1970: 1_700_000_200)
        let replaced = try s.upsert([newer])
        #expect(replaced.updated == 1)
        let got = try s.fetch(FetchDescriptor<Quake>(predicate: #Predicate { $0.id == "u1" }))
        #expect(got.first?.magnitude == 4.4 && got.first?.place == first.place)
        let deleted = try s.delete(ids: ["u1", "nope"])
        #expect(deleted.updated == 1)
        #expect(try s.fetchIdentifiers(FetchDescriptor<Quake>()) == ["u2"])
        var all = FetchDescriptor<Quake>()
        all.includesDeleted = true
        #expect(try s.fetch(all).first { $0.id == "u1" }?.status == "deleted")
        let history = try s.history()
        #expect(history.count == 3)
        #expect(history.last?.updated.first?.changedFields.contains(.status) == true)
        let data = try JSONEncoder().encode(history)
        #expect(try JSONDecoder().decode([HistoryTransaction].self, from: data) == history)
        var bad = Self.quake("u3", 9)
        bad.latitude = .nan
        let e = #expect(throws: QuakeError.self) { try s.upsert([bad]) }
        #expect(e?.kind == .invalidArgument)
        #expect(try s.history().count == 3, "a refused upsert commits nothing")
    }

    @Test func errorsCarryKindPathAndErrno() throws {
        let dir = TestSupport.tempDir()
        FileManager.default.createFile(atPath: dir + "/file", contents: Data("x".utf8))
        let file = #expect(throws: QuakeError.self) { _ = try Store(path: dir + "/file") }
        #expect(file?.kind == .io && file?.path == dir + "/file" && file?.errno == ENOTDIR)
        #expect(file?.localizedDescription.contains("not a store directory") == true)
        let missing = #expect(throws: QuakeError.self) { _ = try Store(path: dir + "/none") }
        #expect(missing?.kind == .notFound && missing?.path == dir + "/none")
        _ = try Store.openOrCreate(path: dir + "/day", partitioning: .day)
        let mismatch = #expect(throws: QuakeError.self) {
            _ = try Store.openOrCreate(path: dir + "/day", partitioning: .month)
        }
        #expect(mismatch?.kind == .partitioningMismatch)
        #expect(try Store.openOrCreate(path: dir + "/day").info().partitioning == "day", "no partitioning: the store's")
        let s = try Store.openOrCreate(url: URL(fileURLWithPath: dir + "/u"))
        let input = #expect(throws: QuakeError.self) { try s.load([URL(fileURLWithPath: dir + "/no.csv")]) }
        #expect(input?.kind == .io && input?.path?.hasSuffix("no.csv") == true)
    }

    @Test func aggregateKeysAreNamedByProperty() throws {
        let s = Fixtures.generated.store
        let rows = try s.aggregate(nil, by: [.value(.net)], metrics: [.count, .avg(.mag)])
        let sum = rows.reduce(0.0) { $0 + ($1.value(.count) ?? 0) }
        #expect(Int(sum) == (try s.fetchCount(FetchDescriptor<Quake>())))
        #expect(Set(rows.map(\.id)).count == rows.count)
        for r in rows { #expect(r.value("avg(magnitude)") == r.value(.avg(.mag)) && r["net"] == r[.value(.net)]) }
    }

    @Test func progressKnowsTheReadTotal() throws {
        let dir = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: dir + "/s")
        let f = try Self.feed(dir, rows: 5000, seed: 3)
        let totals = Mutex<[Int?]>([])
        var o = LoadOptions()
        o.onProgress = { p in if p.phase == .read { totals.locked { $0.append(p.total) } } }
        try s.load([f], options: o)
        let seen = totals.locked { $0 }
        #expect(!seen.isEmpty && seen.allSatisfy { $0 != nil && $0! > 0 })
    }
}
