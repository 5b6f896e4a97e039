import Foundation
import Testing

/// `quakes history`, `--changed-since` and history pruning through the CLI, on real feeds.
@Suite struct HistoryCommandTests {
    static let usgs = CLI.usgs

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func historyListsShowsAndPrunesTransactions() throws {
        let a = Self.usgs + "/csv_2019-06-19_2019-07-19_3121.csv", b = Self.usgs + "/csv_2019-06-30_2019-07-07_5834.csv"
        let c = Self.usgs + "/geojson_2019-06-19_2019-07-19_3121.geojson"
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(CLI.usgs)")
        let s = CLI.tempDir() + "/s"
        for f in [a, b, c, c] { #expect(try CLI.run(["load", "--store", s, f]).status == 0) }
        let csv = try CLI.run(["history", "--store", s, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("generation,committed,files,inserted,updated,unchanged") == true)
        #expect(lines.count == 4, "three committed loads; the repeated load changed nothing")
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.map { $0[0] } == ["1", "2", "3"])
        #expect(rows.map { $0[3] } == ["3121", "4527", "0"] && rows.map { $0[4] } == ["0", "0", "3121"])
        #expect(rows.map { $0[5] } == ["0", "1307", "0"])
        #expect(rows.map { $0.last ?? "" } == [a, b, c])
        // counts add up to the store's rows (nothing deleted)
        let count = try CLI.run(["count", "--store", s]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(count) == 3121 + 4527)
        // --since and --limit
        let since = try CLI.run(["history", "--store", s, "--since", "1", "--format", "csv", "--no-header"])
        #expect(since.stdout.split(separator: "\n").map { $0.prefix(2) } == ["2,", "3,"])
        let newest = try CLI.run(["history", "--store", s, "--limit", "1", "--format", "ndjson"]).stdout.split(separator: "\n")
        #expect(newest.count == 1 && newest[0].hasPrefix("{\"generation\":3,"), "--limit keeps the newest")
        let firstAfter = try CLI.run(["history", "--store", s, "--since", "0", "--limit", "1", "--format", "ndjson"])
        #expect(firstAfter.stdout.hasPrefix("{\"generation\":1,"), "with --since, --limit pages forward")
        // one transaction: ndjson events with the changed fields, every updated id once
        let events = try CLI.run(["history", "3", "--store", s, "--format", "ndjson"]).stdout.split(separator: "\n")
        #expect(events.count == 3121)
        let first = try JSONSerialization.jsonObject(with: Data(events[0].utf8)) as? [String: Any]
        #expect(first?["kind"] as? String == "updated" && (first?["changed"] as? [String])?.contains("url") == true)
        let json = try CLI.run(["history", "2", "--store", s, "--format", "json", "--unchanged"])
        let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((obj?["events"] as? [Any])?.count == 4527 + 1307)
        #expect((obj?["transaction"] as? [String: Any])?["inserted"] as? Int == 4527)
        let table = try CLI.run(["history", "2", "--store", s, "--limit", "5"])
        #expect(table.stdout.contains("(5 of 4,527 events; use --limit, or --format csv for all)"))
        // --changed-since through every command that filters
        #expect(try CLI.run(["count", "--store", s, "--changed-since", "2"]).stdout == "3121\n")
        #expect(try CLI.run(["count", "--store", s, "--changed-since", "1"]).stdout == "7648\n")
        #expect(try CLI.run(["count", "--store", s, "--changed-since", "3"]).stdout == "0\n")
        let agg = try CLI.run(["agg", "--store", s, "--changed-since", "2", "--by", "net", "--format", "csv", "--no-header"])
        #expect(agg.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").last ?? "") }.reduce(0, +) == 3121)
        let q = try CLI.run(["query", "--store", s, "--changed-since", "1", "--min-mag", "4", "--format", "csv"])
        let naive = try CLI.run(["query", "--store", s, "--min-mag", "4", "--format", "csv"])
        #expect(q.stdout == naive.stdout, "every event changed after generation 1, so the filter keeps them all")
        // errors: a future generation, a bad value
        let future = try CLI.run(["count", "--store", s, "--changed-since", "99"])
        #expect(future.status == 1 && future.stderr.contains("generation 99"))
        #expect(try CLI.run(["count", "--store", s, "--changed-since", "soon"]).status == 2)
        #expect(try CLI.run(["history", "7", "--store", s]).status == 1)
        // a damaged copy of the first load's ids: an error naming it, and no partial list, in every format
        let copies = try FileManager.default.contentsOfDirectory(atPath: s + "/history").filter { $0.hasSuffix(".qki") }
        let copy = s + "/history/" + (try #require(copies.sorted().first, "the second load rewrote the first's partitions"))
        let good = try Data(contentsOf: URL(fileURLWithPath: copy))
        let listed = try CLI.run(["history", "1", "--store", s, "--format", "csv"]).stdout
        var bad = good
        bad[good.count / 2] ^= 0x5A
        try bad.write(to: URL(fileURLWithPath: copy))
        for format in ["table", "csv", "json", "ndjson"] {
            let damaged = try CLI.run(["history", "1", "--store", s, "--format", format])
            #expect(damaged.status == 1 && damaged.stdout.isEmpty && damaged.stderr.contains(copy)
                    && damaged.stderr.split(separator: "\n").count == 1, "\(format): \(damaged.stdout.prefix(200)) \(damaged.stderr)")
        }
        try good.write(to: URL(fileURLWithPath: copy))
        #expect(try CLI.run(["history", "1", "--store", s, "--format", "csv"]).stdout == listed && listed.contains("\n"))
        // info, then prune, then info again
        #expect(try CLI.run(["info", "--store", s]).stdout.contains("history      3 transactions"))
        // a generation past the store's is a usage error that says which ones there are, and changes nothing
        let past = try CLI.run(["history", "--store", s, "--prune-before", "100"])
        #expect(past.status == 2 && past.stderr.contains("--prune-before 100: the store is at generation 3; give 1 to 4")
                && !past.stderr.contains("corrupt"), "\(past.stderr)")
        #expect(try CLI.run(["info", "--store", s]).stdout.contains("history      3 transactions"))
        let pruned = try CLI.run(["history", "--store", s, "--prune-before", "3"])
        #expect(pruned.status == 0 && pruned.stdout.hasPrefix("pruned 2 transactions"))
        #expect(try CLI.run(["info", "--store", s]).stdout.contains("history      1 transactions"))
        let gone = try CLI.run(["count", "--store", s, "--changed-since", "1"])
        #expect(gone.status == 1 && gone.stderr.contains("not kept"), "an incomplete answer is refused")
        #expect(try CLI.run(["count", "--store", s, "--changed-since", "2"]).stdout == "3121\n")
        #expect(try CLI.run(["count", "--store", s]).stdout == "7648\n", "pruning keeps the data")
        #expect(try CLI.run(["verify", "--store", s]).status == 0)
    }
}
