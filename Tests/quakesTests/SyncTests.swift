import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `quakes sync` end to end (issue 51), offline: the upstream is another `quakes serve` over the
/// real USGS feeds, capped at 500 events a query so that a first sync must split; faults come
/// from a Python proxy in front of it, and summary feeds from a Python server with ETags.
@Suite(.serialized) struct SyncTests {
    static let ridgecrest = "csv_2019-06-30_2019-07-07_5834.csv"
    static let kilauea = "geojson_2018-06-07_2018-06-14_4711.geojson"
    static let window = ["--from", "2018-01-01", "--to", "2020-01-01", "--min-mag", "1"]

    /// An upstream store of the two real feeds (10,545 events; a CSV week and a GeoJSON week).
    static func upstreamStore(_ tag: String = #function) throws -> String {
        let d = CLI.tempDir(tag) + "/up"
        let r = try CLI.run(["load", "--store", d, SyncSupport.usgs + "/" + ridgecrest,
                             SyncSupport.usgs + "/" + kilauea])
        #expect(r.status == 0, "\(r.stderr)")
        return d
    }

    static func sync(_ store: String, _ source: String, _ extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["sync", "--store", store, source] + extra)
    }

    /// The local store holds exactly what the upstream answers for the window: every id, every field.
    static func expectSame(_ up: String, _ down: String, includeDeleted: Bool = false,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let want = try SyncSupport.features(up, window, includeDeleted: includeDeleted)
        let got = try SyncSupport.features(down, [], includeDeleted: includeDeleted)
        #expect(want.count > 0, sourceLocation: sourceLocation)
        let diff = SyncSupport.differences(want, got)
        #expect(diff.isEmpty, "\(diff.count) events differ, such as \(diff.prefix(5))", sourceLocation: sourceLocation)
    }

    /// A later sync's window is open-ended, so it holds events dated past tomorrow: more of those
    /// than one query returns are fetched in pieces of their own, not narrowed toward tomorrow a
    /// millisecond at a time until the sync gives up (a user trial's upstream held 3,341).
    @Test func laterSyncsFetchMoreFutureDatedEventsThanAQueryHolds() throws {
        let dir = CLI.tempDir()
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
        for (name, rows, when, seed) in [("past", "3000", year - 2, "3"), ("future", "1200", year + 2, "4")] {
            let made = try CLI.run(["generate", "--rows", rows, "--years", "\(when)-\(when)", "--out", dir + "/" + name,
                                    "--seed", seed])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let up = dir + "/up"
        #expect(try CLI.run(["load", "--store", up, dir + "/past", dir + "/future"]).status == 0)
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let down = dir + "/down"
        let from = ["--from", "\(year - 2)-01-01"]
        let first = try Self.sync(down, server.base, from)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let later = try Self.sync(down, server.base, from)
        #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
        let want = try SyncSupport.features(up, [])
        let got = try SyncSupport.features(down, [])
        #expect(want.count == 4200)
        let diff = SyncSupport.differences(want, got)
        #expect(diff.isEmpty, "\(diff.count) events differ, such as \(diff.prefix(5))")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func firstSyncSplitsThenLaterSyncsAskOnlyForChanges() throws {
        let up = try Self.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let down = CLI.tempDir() + "/down"
        // the plan: counted, split under the cap of 500, nothing fetched
        let dry = try Self.sync(down, server.base, Self.window + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let planned = dry.stdout.split(separator: "\n").filter { $0.contains("/query?") }
        #expect(planned.count > 1 && dry.stdout.hasPrefix("plan"), "\(dry.stdout)")
        #expect(!server.requests.contains { $0.contains("/query?") }, "a dry run fetched data")
        #expect(!FileManager.default.fileExists(atPath: down), "a dry run left a store")

        // the first sync
        let first = try Self.sync(down, server.base, Self.window)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("first sync"), "\(first.stdout)")
        let queries = server.requests.filter { $0.contains("/query?") }
        #expect(queries.count >= 10_000 / 500, "\(queries.count) queries for over 10,000 events under a cap of 500")
        #expect(server.requests.contains { $0.contains("/count?") })
        // no query asked for more than the cap: none was refused
        #expect(!server.requests.contains { $0.contains(" 400 ") || $0.contains(" 413 ") })
        try Self.expectSame(up, down)
        let info = try CLI.run(["info", "--store", down])
        #expect(info.stdout.contains("sync         fdsn \(server.base)") && info.stdout.contains("next updatedafter"),
                "\(info.stdout)")

        // upstream changes: two newer versions, one new event, three deletions (GeoJSON events)
        let kilauea = try SyncSupport.realFeatures(Self.kilauea).filter {
            (($0["properties"] as? [String: Any])?["mag"] as? Double ?? 0) >= 1
        }
        var changes = [SyncSupport.newer(kilauea[0], ["mag": 5.5]), SyncSupport.newer(kilauea[1], ["place": "Changed"])]
        var fresh = SyncSupport.newer(kilauea[2], later: 1000)
        fresh["id"] = "zz90000001"
        var p = fresh["properties"] as? [String: Any] ?? [:]
        p["ids"] = ",zz90000001,"
        p["code"] = "90000001"
        p["net"] = "zz"
        fresh["properties"] = p
        changes.append(fresh)
        for f in kilauea[3..<6] { changes.append(SyncSupport.newer(f, ["status": "deleted"])) }
        let changeFile = CLI.tempDir() + "/changes.geojson"
        try SyncSupport.writeFeed(changes, to: changeFile)
        #expect(try CLI.run(["load", "--store", up, changeFile]).status == 0)
        let before = server.requests.count

        let second = try Self.sync(down, server.base, Self.window)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stdout.contains("first sync"))
        #expect(SyncSupport.figure(second.stdout, "new") == 1, "\(second.stdout)")
        #expect(SyncSupport.figure(second.stdout, "updated") == 5, "\(second.stdout)")
        #expect(SyncSupport.figure(second.stdout, "deleted") == 3, "\(second.stdout)")
        let asked = server.requests.dropFirst(before)
        #expect(asked.filter { $0.contains("/query?") }.allSatisfy { $0.contains("updatedafter=") }, "\(asked)")
        #expect(asked.contains { $0.contains("includedeleted=true") }, "the WADL lists includedeleted")
        try Self.expectSame(up, down)
        try Self.expectSame(up, down, includeDeleted: true)
        // deleted events are hidden by default, shown on request
        let hidden = try CLI.run(["count", "--store", down]).stdout
        let shown = try CLI.run(["count", "--store", down, "--include-deleted"]).stdout
        #expect(Int(shown.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 - 3 }
            == Int(hidden.trimmingCharacters(in: .whitespacesAndNewlines)))
        let gone = try CLI.run(["query", "--store", down, "--id", changes[3]["id"] as? String ?? "", "--format", "csv"])
        #expect(gone.stdout.split(separator: "\n").count == 1, "a tombstone answered: \(gone.stdout)")

        // nothing changed: a third sync reads nothing new
        let third = try Self.sync(down, server.base, Self.window)
        #expect(third.status == 0 && SyncSupport.figure(third.stdout, "new") == 0
            && SyncSupport.figure(third.stdout, "updated") == 0, "\(third.stdout)")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func faultsAreRetriedAndNothingPartialIsCommitted() throws {
        let up = try Self.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        // every fault once, on the first pieces; the sync retries through them all
        let faults = ["503", "500", "429", "reset", "cut", "html", "badjson", "gzipcut"]
        let proxy = try SyncSupport.Proxy(upstream: "http://127.0.0.1:\(server.port)", faults: faults)
        let down = CLI.tempDir() + "/down"
        let quick = ["--retry-delay", "0.05"]
        let r = try Self.sync(down, proxy.url + "fdsnws/event/1/",
                              Self.window + quick + ["--attempts", "12", "--commit-bytes", "1"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let used = proxy.requests.compactMap { $0.split(separator: " ").last.map(String.init) }.filter { $0 != "-" }
        #expect(used == faults, "\(proxy.requests)")
        #expect(r.stderr.contains("retrying"), "\(r.stderr)")
        try Self.expectSame(up, down)

        // a body that stalls past the read timeout is given up and fetched again
        let slow = try SyncSupport.Proxy(upstream: "http://127.0.0.1:\(server.port)", faults: ["slow"])
        let down2 = CLI.tempDir() + "/down2"
        let started = Date()
        let s = try Self.sync(down2, slow.url + "fdsnws/event/1/", Self.window + quick + ["--timeout", "1"])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(Date().timeIntervalSince(started) < 25, "the stalled body was waited out")
        #expect(s.stderr.contains("stalled"), "\(s.stderr)")
        try Self.expectSame(up, down2)

        // a fault that persists: exit 1, one line naming the URL, nothing committed, no store left
        let broken = try SyncSupport.Proxy(upstream: "http://127.0.0.1:\(server.port)",
                                           faults: Array(repeating: "503", count: 3))
        let down3 = CLI.tempDir() + "/down3"
        let b = try Self.sync(down3, broken.url + "fdsnws/event/1/", Self.window + quick + ["--attempts", "3"])
        #expect(b.status == 1)
        let lines = b.stderr.split(separator: "\n").filter { !$0.contains("retrying") && !$0.contains("note:") }
        #expect(lines.count == 1 && lines[0].contains(broken.url) && lines[0].contains("HTTP 503"), "\(b.stderr)")
        #expect(!FileManager.default.fileExists(atPath: down3), "a failed first sync left a store behind")

        // a URL that answers but is no event service: one line, exit 1, no store and no cursor left
        let page = try Self.sync(down3, "http://127.0.0.1:\(server.port)/", Self.window)
        #expect(page.status == 1 && page.stderr.contains("not an FDSN event service"), "\(page.stderr)")
        #expect(!FileManager.default.fileExists(atPath: down3))

        // a service that is not there: no retries, at once
        let refusedAt = Date()
        let none = try Self.sync(down3, "http://127.0.0.1:9/fdsnws/event/1/", ["--attempts", "1"])
        #expect(none.status == 1 && none.stderr.contains("127.0.0.1:9"), "\(none.stderr)")
        let again = try Self.sync(down3, "http://127.0.0.1:9/fdsnws/event/1/")
        #expect(again.status == 1 && !again.stderr.contains("retrying"), "\(again.stderr)")
        #expect(Date().timeIntervalSince(refusedAt) < 15, "an unreachable service was retried")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aKilledFirstSyncResumesWithNoGapAndNoDuplicate() throws {
        let up = try Self.upstreamStore()
        let server = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let source = server.base
        // how long a whole first sync takes (a commit per piece): the kills fall anywhere in it
        let timed = CLI.tempDir() + "/timed"
        let start = Date()
        #expect(try Self.sync(timed, source, Self.window + ["--commit-bytes", "1"]).status == 0)
        let whole = Date().timeIntervalSince(start)
        var resumed = 0
        for trial in 0..<10 {
            let down = CLI.tempDir() + "/kill\(trial)"
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.binary)
            p.arguments = ["sync", "--store", down, source, "--commit-bytes", "1"] + Self.window
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            // a random instant of the first sync; a second sync starts at another, before it
            let killAt = Double.random(in: 0.05...max(0.1, whole))
            let secondAt = Double.random(in: 0...killAt)
            Thread.sleep(forTimeInterval: secondAt)
            let second = try WriterSupport.Background(["sync", "--store", down, source] + Self.window)
            Thread.sleep(forTimeInterval: killAt - secondAt)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            // the second runs alone (before the first took the lock, or after it was killed), or is refused
            let status = second.finish()
            #expect(status == 0 || (status == 1 && second.stderr.contains("locked by another writer (pid ")
                && second.stderr.split(separator: "\n").count == 1), "trial \(trial): \(second.stderr)")
            if status == 0 && second.stderr.contains("resuming") { resumed += 1 }
            let again = try Self.sync(down, source, Self.window)
            #expect(again.status == 0, "trial \(trial): \(again.stderr)")
            if again.stderr.contains("resuming") { resumed += 1 }
            #expect(SyncSupport.figure(again.stdout, "duplicates") == 0)
            try Self.expectSame(up, down)
        }
        #expect(resumed > 0, "no kill fell between two commits of a first sync")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func aSummaryFeedIsFetchedConditionally() throws {
        let dir = CLI.tempDir() + "/feeds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let feed = dir + "/all_day.geojson"
        var features = try SyncSupport.realFeatures("geojson_2019-01-29_2019-01-30_233.geojson")
        try SyncSupport.writeFeed(features, to: feed)
        let server = try SyncSupport.Proxy(feedDir: dir)
        let url = server.url + "all_day.geojson"
        let down = CLI.tempDir() + "/down"
        let first = try Self.sync(down, url)
        #expect(first.status == 0 && SyncSupport.figure(first.stdout, "new") == features.count, "\(first.stdout)")
        let manifest = try Data(contentsOf: URL(fileURLWithPath: down + "/manifest.qkm"))
        let info = try CLI.run(["info", "--store", down])
        #expect(info.stdout.contains("sync         feed \(url)") && info.stdout.contains("ETag"), "\(info.stdout)")

        // unchanged: a 304, no rows committed; the cursor's last sync moves (the store was current then)
        let historyBefore = try CLI.run(["history", "--store", down, "--format", "csv"]).stdout
        let second = try Self.sync(down, url)
        #expect(second.status == 0 && second.stdout.hasPrefix("not modified"), "\(second.stdout)")
        #expect(try CLI.run(["history", "--store", down, "--format", "csv"]).stdout == historyBefore)
        let infoAfter = try CLI.run(["info", "--store", down])
        let lastSync = { (text: String) in text.components(separatedBy: "last sync ").last?.prefix(24) }
        #expect(lastSync(infoAfter.stdout) != nil && lastSync(infoAfter.stdout) != lastSync(info.stdout),
                "\(info.stdout)\n\(infoAfter.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: down + "/manifest.qkm")) != manifest)
        #expect(server.requests.last?.contains("GET /all_day.geojson") == true)

        // rewritten: one event updated, one added
        features[0] = SyncSupport.newer(features[0], ["mag": 6.1])
        var added = SyncSupport.newer(features[1], later: 60_000)
        added["id"] = "zz90000002"
        features.append(added)
        try SyncSupport.writeFeed(features, to: feed)
        let third = try Self.sync(down, url)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(SyncSupport.figure(third.stdout, "new") == 1 && SyncSupport.figure(third.stdout, "updated") == 1,
                "\(third.stdout)")

        // an HTML page served as the feed is no feed: retried, then an error, and nothing committed
        let html = try SyncSupport.Proxy(feedDir: dir, faults: ["html", "html"], match: "all_day")
        let before = try Data(contentsOf: URL(fileURLWithPath: down + "/manifest.qkm"))
        let bad = try Self.sync(down, html.url + "all_day.geojson", ["--attempts", "2"])
        #expect(bad.status == 1 && bad.stderr.contains("HTML"), "\(bad.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: down + "/manifest.qkm")) == before)
    }

    @Test func usageErrorsExitTwo() throws {
        for args in [["sync", "ftp://example.org/x"], ["sync", "not-a-url"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--backfill", "http://127.0.0.1:9/fdsnws/event/1/"],
                     ["sync", "http://127.0.0.1:9/feed/all_hour.geojson", "--min-mag", "2"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--every", "soon"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--from", "2020-01-02", "--to", "2020-01-01"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/query?minmagnitude=2"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--min-mag", "5", "--max-mag", "3"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--reviewstatus", "bogus"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--to", "2019-01-31"],
                     ["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--dry-run", "--every", "5s"],
                     ["sync", "http://127.0.0.1:9/feed/all_day.geojson", "--format", "csv"],
                     ["serve", "--sync", "http://127.0.0.1:9/feed/all_day.geojson", "--min-mag", "3"],
                     ["serve", "--every", "5s"]] {
            let r = try CLI.run(args + ["--store", CLI.tempDir() + "/none"])
            #expect(r.status == 2, "\(args): \(r.stderr)")
        }
    }
}
