import Foundation
import QuakeStore
import Testing

/// Fresh reads: a handle sees every commit, another process's too, without `refresh()`; a
/// snapshot keeps its generation until its own `refresh()`.
@Suite("Fresh reads")
struct FreshReadTests {
    @Test("a Store sees rows a child process committed; a snapshot does not until refresh()")
    func childProcessLoad() throws {
        let store = try Generated.freshStore("fresh")
        let forCount = try Store(path: store.path)
        let forHistory = try Store(path: store.path)
        let forInfo = try Store(path: store.path)
        let snapshot = try store.snapshot()
        let before = try store.fetchCount(FetchDescriptor())
        let token = store.historyToken
        let extra = try Paths.temporary("fresh-extra").appendingPathComponent("extra.csv")
        try Generated.write(extra, rows: 12, prefix: "x")

        let r = try Probe.run(["load", store.path, extra.path])
        #expect(r.finished, "\(r)")
        #expect(r.int("new") == 12)

        #expect(try forCount.fetchCount(FetchDescriptor()) == before + 12, "fetchCount before any other read")
        #expect(try store.fetch(FetchDescriptor(predicate: #Predicate { $0.id.starts(with: "usx") })).count == 2)
        #expect(try forHistory.history(since: token).count == 1, "history(since:) before any other read")
        #expect(try forInfo.info().generation == token.generation + 1, "info() before any other read")
        #expect(store.historyToken.generation == token.generation + 1)

        #expect(snapshot.isSnapshot)
        #expect(try snapshot.fetchCount(FetchDescriptor()) == before, "the snapshot moved")
        #expect(try snapshot.fetchIdentifiers(FetchDescriptor()).count == before)
        try snapshot.refresh()
        #expect(try snapshot.fetchCount(FetchDescriptor()) == before + 12)
    }

    @Test("a handle sees another handle's upsert in the same process")
    func otherHandle() throws {
        let a = try Generated.freshStore("handles")
        let b = try Store(path: a.path)
        let before = try a.fetchCount(FetchDescriptor())
        try b.upsert([Quake(id: "zz1", time: Date(timeIntervalSince1970: 1_704_100_000), latitude: 1, longitude: 2)])
        #expect(try a.fetchCount(FetchDescriptor()) == before + 1)
        #expect(try a.fetchIdentifiers(FetchDescriptor(predicate: #Predicate { $0.id == "zz1" })) == ["zz1"])
    }
}

@Suite("Concurrency and cancellation")
struct ConcurrencyTests {
    static func feed(_ name: String, rows: Int, prefix: String, step: Int = 37) throws -> URL {
        let url = try Paths.temporary(name).appendingPathComponent("\(name).csv")
        try Generated.write(url, rows: rows, prefix: prefix, startDay: 19_800, step: step)
        return url
    }

    @Test("two async loads on one Store from a TaskGroup both succeed, queued")
    func twoAsyncLoads() async throws {
        let store = try Generated.freshStore("two-loads")
        let a = try Self.feed("a", rows: 2000, prefix: "a"), b = try Self.feed("b", rows: 2500, prefix: "b")
        let before = try await store.fetchCount(FetchDescriptor())
        let summaries = try await withThrowingTaskGroup(of: LoadSummary.self) { group in
            group.addTask { try await store.load([a.path]) }
            group.addTask { try await store.load([b]) }
            var out: [LoadSummary] = []
            for try await s in group { out.append(s) }
            return out
        }
        #expect(summaries.map(\.new).sorted() == [2000, 2500])
        #expect(summaries.allSatisfy { $0.committed })
        #expect(try await store.fetchCount(FetchDescriptor()) == before + 4500)
    }

    @Test("synchronous loads from several tasks and handles queue too")
    func syncLoadsFromTasks() async throws {
        let store = try Generated.freshStore("sync-loads")
        let other = try Store(path: store.path)
        let feeds = try (0..<3).map { try Self.feed("s\($0)", rows: 700, prefix: "s\($0)x") }
        let before = try await store.fetchCount(FetchDescriptor())
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (k, f) in feeds.enumerated() {
                group.addTask { try blocking { try (k == 1 ? other : store).load([f.path]).new } }
            }
            var total = 0
            for try await n in group { total += n }
            #expect(total == 2100)
        }
        #expect(try await store.fetchCount(FetchDescriptor()) == before + 2100)
    }

    @Test("async fetch, fetchCount, fetchIdentifiers, fetchSections and aggregate equal the synchronous ones")
    func asyncReads() async throws {
        let store = try Store(path: try Generated.smallStore.get())
        var d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) > 2 },
                                       sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        d.fetchLimit = 100
        let fetched = try await store.fetch(d)
        #expect(fetched == (try blocking { try store.fetch(d) }))
        #expect(try await store.fetchCount(d) == (try blocking { try store.fetchCount(d) }))
        #expect(try await store.fetchIdentifiers(d) == fetched.map(\.id))
        let sections = try await store.fetchSections(d, by: .value(.net), limitPerSection: 4)
        let syncSections = try blocking { try store.fetchSections(d, by: .value(.net), limitPerSection: 4) }
        #expect(sections.map(\.id) == syncSections.map(\.id))
        #expect(sections.map { $0.map(\.id) } == syncSections.map { $0.map(\.id) })
        let p = #Predicate<Quake> { $0.depth != nil }
        let rows = try await store.aggregate(p, by: [.value(.net)], metrics: [.count, .avg(.depth)])
        let syncRows = try blocking { try store.aggregate(p, by: [.value(.net)], metrics: [.count, .avg(.depth)]) }
        #expect(rows.map(\.id) == syncRows.map(\.id))
        #expect(rows.map(\.values) == syncRows.map(\.values))
        // eight concurrent reads
        let page = d
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await store.fetchCount(page) } }
            var out: [Int] = []
            for try await n in group { out.append(n) }
            return out
        }
        #expect(Set(counts) == [100])
    }

    @Test("LoadOptions.isCancelled stops a synchronous load: interrupted, nothing committed")
    func isCancelled() throws {
        let store = try Generated.freshStore("is-cancelled")
        let feed = try Self.feed("is-cancelled", rows: 5000, prefix: "c")
        let generation = try store.info().generation
        var options = LoadOptions()
        options.isCancelled = { true }
        #expect(quakeError { try store.load([feed.path], options: options) }?.kind == .interrupted)
        #expect(try store.info().generation == generation)
        #expect(try store.load([feed.path]).new == 5000, "the store is still writable")
    }

    @Test("a long async fetch over 400 partitions, cancelled midway, throws interrupted instead of its rows")
    func cancelFetch() async throws {
        let path = try Paths.temporary("cancel-fetch").appendingPathComponent("quakes.store").path
        let store = try Store.openOrCreate(path: path, partitioning: .day)
        let feed = try Self.feed("cancel-fetch", rows: 24_000, prefix: "f", step: 1440)
        _ = try await store.load([feed.path])
        let d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.place ?? "").contains("a") },
                                       sortBy: [SortDescriptor(\.depth, order: .reverse)])
        let start = Date()
        let all = try await store.fetch(d).count
        let whole = Date().timeIntervalSince(start)
        #expect(all > 10_000)
        // No bound on wall time (tests share the machine): a fetch that ignored its cancellation
        // would return its rows. A cancel that came after the fetch ended is tried again, sooner.
        var outcomes: [String] = []
        var wait = whole / 10
        for _ in 0..<4 {
            let task = Task { try await store.fetch(d) }
            try await Task.sleep(for: .seconds(wait))
            task.cancel()
            do {
                let rows = try await task.value
                outcomes.append("\(rows.count) rows after a cancel at \(wait) s of \(whole) s")
                wait /= 4
            } catch let e as QuakeError {
                #expect(e.kind == .interrupted, "\(e)")
                outcomes.append("interrupted")
                break
            }
        }
        #expect(outcomes.last == "interrupted", "\(outcomes)")
    }

    @Test("the types an app shares across tasks are Sendable")
    func sendable() {
        func sendable<T: Sendable>(_: T.Type) -> Bool { true }
        #expect(sendable(Store.self) && sendable(Quake.self) && sendable(FetchDescriptor<Quake>.self))
        #expect(sendable(ResultsObserver<[Quake]>.self) && sendable(QuakeError.self) && sendable(AggregateRow.self))
        #expect(sendable(QuakeSection.self) && sendable(HistoryTransaction.self) && sendable(LoadSummary.self))
    }

    @Test("a read in a task cancelled before it starts throws interrupted")
    func cancelledRead() async throws {
        let store = try Store(path: try Generated.smallStore.get())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.fetch(FetchDescriptor())
        }
        let e = await quakeError { _ = try await task.value }
        #expect(e?.kind == .interrupted)
    }

    @Test("cancelling a task loading 400,000 rows throws CancellationError and commits nothing")
    func cancelLoad() async throws {
        let store = try Generated.freshStore("cancel")
        let large = try Generated.large.get()
        let generation = try store.info().generation
        let count = try await store.fetchCount(FetchDescriptor())
        let reading = Locked(false)
        let totals = Locked<[Int?]>([])
        var options = LoadOptions()
        options.onProgress = { p in
            if p.phase == .read {
                totals.update { $0.append(p.total) }
                reading.set(true)
            }
        }
        let task = Task { try await store.load([large], options: options) }
        let started = await eventually(120) { reading.value }
        #expect(started, "no read progress")
        task.cancel()
        await #expect(throws: CancellationError.self, "the load was not stopped") { _ = try await task.value }
        #expect(try store.info().generation == generation)
        #expect(try await store.fetchCount(FetchDescriptor()) == count)
        #expect(try await Store(path: store.path).fetchCount(FetchDescriptor(predicate: #Predicate {
            $0.id.starts(with: "usL")
        })) == 0)
        #expect(!totals.value.isEmpty && totals.value.allSatisfy { $0 != nil }, "LoadProgress.total while reading")
        try await store.verify()
    }

    @Test("another process's writer: locked at once or after lockWait; one killed mid-load leaves the store whole")
    func lockedByAnotherProcess() throws {
        let store = try Generated.freshStore("locked")
        let large = try Generated.large.get()
        let small = try Self.feed("locked-small", rows: 10, prefix: "k")
        let before = try store.fetchCount(FetchDescriptor())
        let exe = try #require(Paths.probe)
        let child = Process()
        child.executableURL = exe
        child.arguments = ["load-announce", store.path, large.path]
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        try child.run()
        var seen = ""
        while !seen.contains("reading=1") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains("reading=1"), "the child never read: \(seen)")
        let e = quakeError { try store.load([small.path]) }
        // LoadOptions.lockWait: waits up to its limit, then the same error
        var patient = LoadOptions()
        patient.lockWait = .upTo(.milliseconds(200))
        let waitStarted = Date()
        let timedOut = quakeError { try store.load([small.path], options: patient) }
        let waited = Date().timeIntervalSince(waitStarted)
        // killed mid-load, as a crash would (SIGTERM may be ignored in a child of the test runner)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal, "the writer finished before it was killed")
        #expect(e?.kind == .locked, "\(String(describing: e))")
        #expect(timedOut?.kind == .locked && waited >= 0.2, "\(String(describing: timedOut)) after \(waited) s")
        let after = try store.fetchCount(FetchDescriptor())
        #expect(after == before, "the killed writer's rows: \(after - before); its output: \(seen)")
        try store.verify()
        #expect(try store.load([small.path]).new == 10, "the lock of a killed writer is not released")
    }
}
