import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `quakes sync` as a daily tool (issue 69): count answers retried, feeds in epoch seconds, fast
/// failures where nothing can succeed, `--every` in one line a round, history and `info --json`
/// that name the source, and a `last sync` that moves when nothing changed.
@Suite(.serialized) struct DailySyncTests {
    static let window = SyncTests.window

    /// An HTML error page served as 200 to a `count` request is retried, as on a query piece.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func anHTMLPageForACountIsRetried() throws {
        let up = try SyncTests.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let proxy = try SyncSupport.Proxy(upstream: "http://127.0.0.1:\(server.port)", faults: ["html", "html"],
                                          match: "/count")
        let down = CLI.tempDir() + "/down"
        let r = try SyncTests.sync(down, proxy.url + "fdsnws/event/1/", Self.window + ["--retry-delay", "0.05"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let used = proxy.requests.filter { $0.hasSuffix(" html") }
        #expect(used.count == 2 && used.allSatisfy { $0.contains("/count?") }, "\(proxy.requests)")
        #expect(r.stderr.contains("retrying") && r.stderr.contains("HTML"), "\(r.stderr)")
        try SyncTests.expectSame(up, down)
    }

    /// A feed whose times are epoch seconds: without `--time-unit` the error names the option in
    /// the CLI's words and the URL, never the scratch file; with `--time-unit s` it syncs.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func aFeedInEpochSecondsTakesTimeUnit() throws {
        let dir = CLI.tempDir() + "/feeds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var features = try SyncSupport.realFeatures("geojson_2019-01-29_2019-01-30_233.geojson")
        features = features.map { feature in
            var f = feature
            var p = f["properties"] as? [String: Any] ?? [:]
            for key in ["time", "updated"] {
                if let ms = (p[key] as? NSNumber)?.int64Value { p[key] = ms / 1000 }
            }
            f["properties"] = p
            return f
        }
        try SyncSupport.writeFeed(features, to: dir + "/seconds_day.geojson")
        let server = try SyncSupport.Proxy(feedDir: dir)
        let url = server.url + "seconds_day.geojson"
        let down = CLI.tempDir() + "/down"
        let refused = try SyncTests.sync(down, url)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("--time-unit") && refused.stderr.contains(url), "\(refused.stderr)")
        #expect(!refused.stderr.contains("sync.tmp") && !refused.stderr.contains("LoadOptions"), "\(refused.stderr)")
        let synced = try SyncTests.sync(down, url, ["--time-unit", "s"])
        #expect(synced.status == 0 && SyncSupport.figure(synced.stdout, "new") == features.count,
                "\(synced.stdout)\(synced.stderr)")
        let first = try CLI.run(["query", "--store", down, "--sort", "time", "--limit", "1", "--format", "csv",
                                 "--fields", "time"])
        #expect(first.stdout.contains("2019-01-2"), "times read as seconds: \(first.stdout)")
    }

    /// A service that is not listening fails at once with one attempt: no 5 s connect timeout.
    @Test func aRefusedConnectionFailsAtOnce() throws {
        let started = Date()
        let dir = CLI.tempDir()
        let r = try SyncTests.sync(dir + "/made/for/it", "http://127.0.0.1:9/fdsnws/event/1/", ["--attempts", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 1 && r.stderr.contains("connection refused"), "\(r.stderr)")
        #expect(elapsed < 2, "a refused connection took \(elapsed) s")
        // the failed first sync leaves nothing: not the store, nor the folders made to hold it
        #expect(!FileManager.default.fileExists(atPath: dir + "/made"), "a failed first sync left its folders")
    }

    /// `--every` prints one line a round, with its time and counts; `--verbose` the whole summary.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func everyRoundIsOneLine() throws {
        let dir = CLI.tempDir() + "/feeds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let features = try SyncSupport.realFeatures("geojson_2019-01-29_2019-01-30_233.geojson")
        try SyncSupport.writeFeed(features, to: dir + "/all_day.geojson")
        let server = try SyncSupport.Proxy(feedDir: dir)
        let down = CLI.tempDir() + "/down"
        let every = try WriterSupport.Background(["sync", "--store", down, server.url + "all_day.geojson",
                                                  "--every", "1s"])
        let rounds = WriterSupport.eventually(30) { every.stdout.split(separator: "\n").count >= 3 }
        kill(every.pid, SIGINT)
        _ = every.finish()
        #expect(rounds, "\(every.stdout)\(every.stderr)")
        let lines = every.stdout.split(separator: "\n").map(String.init)
        let shape = #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  "#
        #expect(lines.allSatisfy { $0.range(of: shape, options: .regularExpression) != nil }, "\(lines)")
        #expect(lines.first?.contains("\(features.count) new, 0 updated, 0 deleted") == true, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.contains("not modified (304)") }, "\(lines)")
        let verbose = try CLI.run(["sync", "--store", down, server.url + "all_day.geojson", "--verbose"])
        #expect(verbose.status == 2 && verbose.stderr.contains("--every"), "\(verbose.stderr)")
    }

    /// History names each piece by its URL and window; `info --json` carries the cursor; `last
    /// sync` moves after a sync that changed nothing.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func historyAndInfoNameTheSource() throws {
        let up = try SyncTests.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let down = CLI.tempDir() + "/down"
        #expect(try SyncTests.sync(down, server.base, Self.window).status == 0)
        let history = try CLI.run(["history", "--store", down, "--format", "csv"])
        #expect(history.status == 0 && !history.stdout.contains("sync.tmp"), "\(history.stdout)")
        #expect(history.stdout.contains(server.base + "query?") && history.stdout.contains("starttime="),
                "\(history.stdout)")

        func cursor() throws -> [String: Any] {
            let info = try CLI.run(["info", "--store", down, "--json"])
            let document = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
            let sync = try #require(document?["sync"] as? [[String: Any]])
            #expect(sync.count == 1 && document?["rows"] != nil)
            return sync[0]
        }
        let before = try cursor()
        #expect(before["source"] as? String == server.base && before["kind"] as? String == "fdsn", "\(before)")
        #expect(before["nextUpdatedAfter"] is String && before["lastSync"] is String, "\(before)")
        Thread.sleep(forTimeInterval: 0.01)
        let again = try SyncTests.sync(down, server.base, Self.window)
        #expect(again.status == 0 && SyncSupport.figure(again.stdout, "new") == 0, "\(again.stdout)")
        let after = try cursor()
        let last = try #require(after["lastSync"] as? String), previous = try #require(before["lastSync"] as? String)
        #expect(last > previous, "last sync stayed at \(previous) after a sync that changed nothing")
    }
}
