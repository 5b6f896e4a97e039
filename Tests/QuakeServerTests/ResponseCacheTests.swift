import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import QuakeGenerator
import Testing
@testable import QuakeFormat
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport

/// Whole answers kept per generation (``ResponseCache``): the cache's own bounds, and answers
/// that are never stale: after a commit the same request reads the new rows.
@Suite struct ResponseCacheTests {
    static func answer(_ n: Int, rows: Int = 1) -> ResponseCache.Answer {
        ResponseCache.Answer(body: [UInt8](repeating: UInt8(n % 251), count: n), rows: rows, gzip: false)
    }

    static func key(_ g: Int, _ q: String) -> ResponseCache.Key {
        ResponseCache.Key(generation: g, route: "day", query: q, gzip: false)
    }

    @Test func boundsGenerationsAndRecency() {
        let c = ResponseCache(capacity: 1000, entryLimit: 400)
        #expect(c.answer(Self.key(1, "a")) == nil)
        c.keep(Self.key(1, "a"), Self.answer(300))
        c.keep(Self.key(1, "b"), Self.answer(300))
        #expect(c.answer(Self.key(1, "a"))?.body.count == 300)
        // another generation, gzip or query is another answer
        #expect(c.answer(Self.key(2, "a")) == nil)
        #expect(c.answer(ResponseCache.Key(generation: 1, route: "day", query: "a", gzip: true)) == nil)
        #expect(c.answer(ResponseCache.Key(generation: 1, route: "query", query: "a", gzip: false)) == nil)
        // past the capacity the least recently used goes: "b" (a was just read)
        c.keep(Self.key(1, "c"), Self.answer(300))
        c.keep(Self.key(1, "d"), Self.answer(300))
        #expect(c.answer(Self.key(1, "b")) == nil)
        #expect(c.answer(Self.key(1, "a")) != nil && c.answer(Self.key(1, "d")) != nil)
        // an answer over the entry limit is not kept
        c.keep(Self.key(1, "big"), Self.answer(401))
        #expect(c.answer(Self.key(1, "big")) == nil)
        // a newer generation drops the older ones; an older one is no longer kept
        c.keep(Self.key(2, "a"), Self.answer(10))
        #expect(c.answer(Self.key(1, "a")) == nil && c.answer(Self.key(1, "d")) == nil)
        c.keep(Self.key(1, "e"), Self.answer(10))
        #expect(c.answer(Self.key(1, "e")) == nil)
        #expect(c.answer(Self.key(2, "a"))?.body.count == 10)
        let counts = c.counts
        #expect(counts.hits == 4 && counts.misses == 9)
        // capacity 0 keeps nothing
        let none = ResponseCache(capacity: 0)
        none.keep(Self.key(1, "a"), Self.answer(1))
        #expect(none.answer(Self.key(1, "a")) == nil)
        #expect(!none.startCopy())
        // at most copiesAtOnce streamed answers are copied at once
        let starts = (0..<(ResponseCache.copiesAtOnce + 1)).map { _ in c.startCopy() }
        #expect(starts.filter { $0 }.count == ResponseCache.copiesAtOnce && starts.last == false)
        c.endCopy()
        #expect(c.startCopy())
    }

    /// A store loaded one feed file at a time, served with and without the cache: after every
    /// commit, the day and the FDSN query answer the same bytes both ways, and the second asking
    /// is served from the cache.
    @Test func aCommitIsSeenAtOnce() async throws {
        let feeds = TestScratch.folder("cache-feeds")
        var o = GeneratorOptions(rows: 2400)
        o.firstYear = 2024
        o.lastYear = 2024
        o.rowsPerFile = 800
        o.seed = 77
        _ = try FeedGenerator.generate(o, into: feeds)
        let files = try FileManager.default.contentsOfDirectory(atPath: feeds).sorted().map { feeds + "/" + $0 }
        try #require(files.count >= 3)
        let store = try Store.openOrCreate(path: TestScratch.folder("cache-store") + "/store")
        _ = try await store.load([files[0]])
        var options = QuakeServer.Options()
        options.log = nil
        let cached = SnapshotSource(store: store)
        let plain = SnapshotSource(store: try Store(path: store.path), cacheBytes: 0)
        let withCache = QuakeServer.buildApplication(source: cached, options: options).app
        let without = QuakeServer.buildApplication(source: plain, options: options).app
        let b = try TestSupport.allRows(store)
        let newest = (0..<b.count).map { b.ints[Column.time.rawValue][$0] }.max() ?? 0
        let day = ServedStore.day(newest)
        let uris = ["/api/day?day=\(day)&orderby=magnitude",
                    "/fdsnws/event/1/query?format=geojson&starttime=\(day)&endtime=\(day)T23:59:59.999"]
        for (k, file) in files.enumerated() {
            if k > 0 { _ = try await store.load([file]) }
            let bodies = try await without.test(.router) { client in
                var out: [String: [UInt8]] = [:]
                for uri in uris {
                    out[uri] = try await client.execute(uri: uri, method: .get) { r in
                        #expect(r.status == .ok)
                        return Array(buffer: r.body)
                    }
                }
                return out
            }
            let before = cached.answers.counts.hits
            let generation = String(store.manifest.generation)
            try await withCache.test(.router) { client in
                for _ in 0..<2 {
                    for uri in uris {
                        let got = try await client.execute(uri: uri, method: .get) { r in
                            #expect(r.status == .ok)
                            #expect(r.headers[ServedStore.generation] == generation)
                            return Array(buffer: r.body)
                        }
                        if uri.hasPrefix("/api/day") {
                            #expect(got == bodies[uri], "file \(k): \(uri)")
                        } else {
                            // the GeoJSON's metadata holds the time it was generated: compare the features
                            let j = try ServedStore.json(ByteBuffer(bytes: got))
                            let want = try ServedStore.json(ByteBuffer(bytes: bodies[uri] ?? []))
                            let ids = (j["features"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                            let wantIds = (want["features"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                            #expect(ids != nil && ids == wantIds, "file \(k)")
                        }
                    }
                }
            }
            // the second asking of each came from the cache
            #expect(cached.answers.counts.hits - before == uris.count, "file \(k)")
        }
        // the past hours follow the clock: never kept
        let hits = cached.answers.counts.hits
        try await withCache.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/api/day?last=1d", method: .get) { r in #expect(r.status == .ok) }
            }
        }
        #expect(cached.answers.counts.hits == hits)
    }

    static func kept(_ t: ResponseCache.Turn) -> Int? {
        if case .kept(let a) = t { return a.body.count }
        return nil
    }

    static func makes(_ t: ResponseCache.Turn, first: Bool) -> Bool {
        if case .make(let f) = t { return f == first }
        return false
    }

    /// Waits until `n` requests wait on `c` (at most two minutes: on a machine busy with other
    /// suites, tasks can start seconds late).
    static func untilWaiting(_ c: ResponseCache, _ n: Int) async throws {
        var tries = 0
        while c.waiting < n && tries < 12_000 {
            try await Task.sleep(for: .milliseconds(10))
            tries += 1
        }
    }

    static func turns(_ c: ResponseCache, _ k: ResponseCache.Key, _ n: Int,
                      patience: Duration = .seconds(300)) -> Task<[ResponseCache.Turn], Never> {
        Task {
            await withTaskGroup(of: ResponseCache.Turn.self) { g in
                for _ in 0..<n { g.addTask { await c.turn(k, patience: patience) } }
                var out: [ResponseCache.Turn] = []
                for await t in g { out.append(t) }
                return out
            }
        }
    }

    /// Misses of one key at once: the first makes the answer, the others wait and get it; when
    /// the maker keeps nothing they make their own; a wait ends after its patience.
    @Test func missesOfOneKeyWaitForOneMaker() async throws {
        let c = ResponseCache(capacity: 1000, entryLimit: 400)
        let k = Self.key(1, "a")
        #expect(Self.makes(await c.turn(k), first: true))
        let waiters = Self.turns(c, k, 3)
        try await Self.untilWaiting(c, 3)
        #expect(c.waiting == 3)
        c.keep(k, Self.answer(100))
        c.made(k)
        let got = await waiters.value
        #expect(got.map(Self.kept) == [100, 100, 100])
        #expect(c.counts.hits == 3 && c.counts.misses == 1 && c.waiting == 0)
        // kept now: a plain hit
        #expect(Self.kept(await c.turn(k)) == 100)

        // the maker keeps nothing (over the entry limit): each waiter makes its own, none waits
        let big = Self.key(1, "big")
        #expect(Self.makes(await c.turn(big), first: true))
        let more = Self.turns(c, big, 2)
        try await Self.untilWaiting(c, 2)
        #expect(c.waiting == 2)
        c.keep(big, Self.answer(401))
        c.made(big)
        #expect(await more.value.allSatisfy { Self.makes($0, first: false) })
        // the next miss is a maker again
        #expect(Self.makes(await c.turn(big), first: true))

        // a maker that never ends: the wait gives up after its patience
        let slow = Self.key(1, "slow")
        #expect(Self.makes(await c.turn(slow), first: true))
        // (how soon is not asserted: on a machine busy with other suites the wake-up can be late)
        let impatient = await Self.turns(c, slow, 1, patience: .milliseconds(50)).value
        #expect(impatient.count == 1 && impatient.allSatisfy { Self.makes($0, first: false) })
        #expect(c.waiting == 0)
        c.made(slow)
        c.made(slow)
        // capacity 0: nobody waits, nobody is first
        let none = ResponseCache(capacity: 0)
        let once = await none.turn(k), twice = await none.turn(k)
        #expect(Self.makes(once, first: false) && Self.makes(twice, first: false))
    }

    /// Many clients ask for the same FDSN answer at once on a new generation: the rows are read
    /// and written once, and every client gets the same features.
    @Test func concurrentMissesAreMadeOnce() async throws {
        let feeds = TestScratch.folder("cache-once-feeds")
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2024
        o.lastYear = 2024
        o.seed = 78
        _ = try FeedGenerator.generate(o, into: feeds)
        let files = try FileManager.default.contentsOfDirectory(atPath: feeds).sorted().map { feeds + "/" + $0 }
        let store = try Store.openOrCreate(path: TestScratch.folder("cache-once-store") + "/store")
        _ = try await store.load(files)
        var options = QuakeServer.Options()
        options.log = nil
        // patient waiters: on a machine busy with other suites the maker can take seconds (a
        // waiter that gives up makes its own answer, as it should, and would count a miss)
        let source = SnapshotSource(store: store, patience: .seconds(120))
        let app = QuakeServer.buildApplication(source: source, options: options).app
        let uri = "/fdsnws/event/1/query?format=geojson&starttime=2024-01-01&endtime=2024-12-31T23:59:59.999"
        let clients = 16
        let bodies = try await app.test(.router) { client in
            try await withThrowingTaskGroup(of: [String].self) { g in
                for _ in 0..<clients {
                    g.addTask {
                        try await client.execute(uri: uri, method: .get) { r in
                            #expect(r.status == .ok)
                            let j = try ServedStore.json(r.body)
                            return (j["features"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
                        }
                    }
                }
                var out: [[String]] = []
                for try await b in g { out.append(b) }
                return out
            }
        }
        #expect(bodies.count == clients && bodies.allSatisfy { $0 == bodies[0] } && bodies[0].count > 1000)
        let counts = source.answers.counts
        #expect(counts.misses == 1 && counts.hits == clients - 1, "\(counts)")
    }
}
