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
}
