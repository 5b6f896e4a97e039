import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeSync
import Testing

/// `Store.sync(from:filter:options:)` in-process, where a test sets the clock: a summary feed's
/// window gap, said in one line and filled by `--backfill`; the cursor's place in the manifest;
/// and tombstones left out of the library's answers by default.
@Suite(.serialized) struct SyncLibraryTests {
    static let day = "geojson_2019-01-29_2019-01-30_233.geojson"

    static func nowMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: SyncSupport.hasPython, "needs python3 (Python/sync_upstream.py)"))
    func aFeedsWindowGapIsReportedAndBackfilled() async throws {
        let features = try SyncSupport.realFeatures(Self.day)
        let dir = CLI.tempDir() + "/feeds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try SyncSupport.writeFeed(features, to: dir + "/all_hour.geojson")
        let feedServer = try SyncSupport.Proxy(feedDir: dir)
        let source = SyncSource.feed(feedServer.url + "all_hour.geojson")
        // the FDSN service behind the feed holds the same events
        let upFeed = CLI.tempDir() + "/up.geojson"
        try SyncSupport.writeFeed(features, to: upFeed)
        let up = CLI.tempDir() + "/up"
        #expect(try CLI.run(["load", "--store", up, upFeed]).status == 0)
        let upstream = try SyncSupport.Upstream(store: up)

        let store = try Store.openOrCreate(path: CLI.tempDir() + "/down")
        let first = try await store.sync(from: source)
        #expect(first.load.new == features.count && first.windowGap == nil)

        // two hours on, one event changed upstream, and the feed's window no longer holds it
        let changed = SyncSupport.newer(features[0], ["mag": 7.7])
        let changeFile = CLI.tempDir() + "/change.geojson"
        try SyncSupport.writeFeed([changed], to: changeFile)
        #expect(try CLI.run(["load", "--store", up, changeFile]).status == 0)
        try SyncSupport.writeFeed(Array(features.dropFirst()), to: dir + "/all_hour.geojson")
        let id = features[0]["id"] as? String ?? ""
        var later = SyncOptions()
        let twoHours: Int64 = 2 * 3_600_000
        later.now = { Self.nowMillis() + twoHours }
        let messages = MessageLog()
        later.onMessage = { messages.add($0) }

        let gap = try await store.sync(from: source, options: later)
        #expect(gap.windowGap?.contains("past hour") == true, "\(String(describing: gap.windowGap))")
        #expect(messages.lines.contains { $0.hasPrefix("warning: ") && $0.contains("--backfill") }, "\(messages.lines)")
        let stale = try await store.fetch(FetchDescriptor<Quake>(predicate: #Predicate { $0.id == id }))
        #expect(stale.first?.magnitude != 7.7, "the feed alone cannot know of the change")

        // the gap is remembered until it is filled
        let again = try await store.sync(from: source, options: later)
        #expect(again.windowGap != nil, "a gap left unfilled was forgotten")
        var filled = later
        filled.backfill = upstream.base
        let backfilled = try await store.sync(from: source, options: filled)
        #expect(backfilled.windowGap != nil)
        let done = try await store.sync(from: source, options: later)
        #expect(done.windowGap == nil, "a filled gap is reported again")
        #expect(upstream.requests.contains { $0.contains("/query?") && $0.contains("updatedafter=") })
        let fresh = try await store.fetch(FetchDescriptor<Quake>(predicate: #Predicate { $0.id == id }))
        #expect(fresh.first?.magnitude == 7.7, "the backfill brought the change")
    }

    /// `.fdsn(url)` made without `SyncSource(url:)`, its trailing slash left off, reads the same
    /// service (it asked for `.../event/1application.wadl`), under the same cursor as the CLI's.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aServiceURLWithoutItsTrailingSlashSyncs() async throws {
        let up = try SyncTests.upstreamStore()
        let upstream = try SyncSupport.Upstream(store: up, maxEvents: 500)
        let bare = String(upstream.base.dropLast())
        #expect(!bare.hasSuffix("/"))
        let store = try Store.openOrCreate(path: CLI.tempDir() + "/down")
        let window = SyncFilter(start: 1_514_764_800_000, end: 1_577_836_800_000,
                                parameters: [SyncFilter.Parameter("minmagnitude", "1")])
        let summary = try await store.sync(from: .fdsn(bare), filter: window)
        let want = try SyncSupport.features(up, SyncTests.window)
        #expect(summary.load.new == want.count && want.count > 0, "\(summary.load.new) of \(want.count)")
        #expect(!upstream.requests.contains { $0.contains("1application.wadl") || $0.contains("1query") },
                "\(upstream.requests.prefix(3))")
        let cursors = try store.syncCursors()
        #expect(cursors.map(\.source) == [upstream.base], "\(cursors.map(\.source))")
    }

    @Test func theManifestKeepsCursorsAndTombstones() throws {
        var m = Manifest(partitioning: .month)
        m.setCursor("fdsn http://127.0.0.1/b/", "{\"since\":2}")
        m.setCursor("feed http://127.0.0.1/a/", "{\"etag\":\"x\"}")
        m.setCursor("fdsn http://127.0.0.1/b/", "{\"since\":3}")
        #expect(m.cursors.map(\.key) == ["fdsn http://127.0.0.1/b/", "feed http://127.0.0.1/a/"])
        #expect(m.cursors.first?.value == "{\"since\":3}")
        let bytes = m.encoded()
        let back = try bytes.withUnsafeBytes { b in try Manifest.decode(b, path: "m") }
        #expect(back == m)
        // a flipped byte in a cursor fails the checksum
        var bad = bytes
        bad[bad.count - 20] ^= 1
        #expect(throws: QuakeError.self) { try bad.withUnsafeBytes { b in try Manifest.decode(b, path: "m") } }
        m.setCursor("feed http://127.0.0.1/a/", nil)
        #expect(m.cursors.count == 1)
    }

    @Test func tombstonesAreHiddenUnlessAskedFor() throws {
        let dir = CLI.tempDir()
        let feed = dir + "/t.csv"
        let header = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,"
            + "horizontalError,depthError,magError,magNst,status,locationSource,magSource\n"
        let rows = [("aa1", "reviewed", "2.0"), ("aa2", "deleted", "3.0"), ("aa3", "", "4.0"),
                    ("aa4", "automatic", "5.0")].map { id, status, mag in
                "2020-01-01T00:00:0\(mag.prefix(1)).000Z,1,2,3,\(mag),ml,,,,,aa,\(id),2020-01-02T00:00:00.000Z,"
                    + "Somewhere,earthquake,,,,,\(status),aa,aa\n"
            }
        try (header + rows.joined()).write(toFile: feed, atomically: true, encoding: .utf8)
        let store = try Store.openOrCreate(path: dir + "/s")
        try store.load([feed])
        #expect(store.manifest.partitions.reduce(0) { $0 + $1.deleted } == 1)
        #expect(try store.fetchCount(FetchDescriptor<Quake>()) == 3)
        var all = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.id)])
        all.includesDeleted = true
        #expect(try store.fetch(all).map(\.id) == ["aa1", "aa2", "aa3", "aa4"])
        let visible = try store.fetch(FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.id)]))
        #expect(visible.map(\.id) == ["aa1", "aa3", "aa4"])
        // the same through the CLI and the FDSN names
        #expect(try CLI.run(["count", "--store", dir + "/s"]).stdout.hasPrefix("3"))
        #expect(try CLI.run(["count", "--store", dir + "/s", "--include-deleted"]).stdout.hasPrefix("4"))
        #expect(try CLI.run(["count", "--store", dir + "/s", "--status", "deleted"]).stdout.hasPrefix("1"))
        // with no tombstone in the snapshot the check is dropped, so the shortcuts see the plain filter
        #expect(Filter.conjunction([.numberRange(.mag, lower: .init(2), upper: nil), Filter.notDeleted])
            .droppingTombstoneCheck.description == "mag >= 2.0")
    }
}

/// Messages a sync reports, collected across threads.
final class MessageLog: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ s: String) { list.locked { $0.append(s) } }
    var lines: [String] { list.locked { $0 } }
}

import Synchronization
