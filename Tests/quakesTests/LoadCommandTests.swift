import Foundation
import Testing

/// `quakes load` end to end: summaries that add up, partial and strict loads and their exit
/// status, failed first loads that leave no store, Ctrl-C, reject lists, empty and wrong paths,
/// URLs, broken symlinks, and files cut short (a real feed cut as an interrupted download is).
@Suite struct LoadCommandTests {
    static let tiny = CLI.usgs + "/csv_2024-09-11_2024-10-06_12.csv"

    static func count(_ store: String, _ args: [String]) throws -> Int {
        let r = try CLI.run(["count", "--store", store] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func loadSummariesAddUp() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "3000", "--out", d + "/feed", "--seed", "4", "--overlap", "0"]).status == 0)
        let feed = try FileManager.default.contentsOfDirectory(atPath: d + "/feed").map { d + "/feed/" + $0 }.sorted()
        let bad = d + "/bad.csv"
        try "time,latitude,longitude,depth,mag,id,updated\nnot-a-time,1,2,3,4,x1,2024-01-01T00:00:00Z\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try CLI.run(["load", "--store", d + "/s", "--json"] + feed + feed + [bad])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        func n(_ k: String) -> Int { (o[k] as? Int) ?? -1 }
        #expect(n("rowsRead") == 6001 && n("new") == 3000 && n("duplicates") == 3000 && n("rejected") == 1)
        #expect(n("rowsRead") == n("rejected") + n("duplicates") + n("new") + n("updated") + n("unchanged"))
        #expect(n("filesRejected") == 1)
        let files = try #require(o["perFile"] as? [[String: Any]])
        #expect(files.count == feed.count * 2 + 1)
        #expect((files.last?["rows"] as? Int) == 1 && (files.last?["rejected"] as? Int) == 1)
        // again: everything is unchanged, and the table says how the rows add up
        let again = try CLI.run(["load", "--store", d + "/s", "--verbose"] + feed)
        #expect(again.status == 0)
        #expect(again.stdout.contains("unchanged") && again.stdout.contains("3,000"), "\(again.stdout)")
        #expect(again.stdout.contains("= rejected + duplicates + new + updated + unchanged"))
        #expect(again.stdout.split(separator: "\n").filter { $0.hasSuffix("loaded") }.count == feed.count)
    }

    @Test func partialLoadsCommitAndExitZeroUnlessStrict() throws {
        let d = CLI.tempDir()
        let f = d + "/mixed.csv"
        try """
        time,latitude,longitude,depth,mag,id,updated
        2024-01-01T00:00:00Z,1,2,3,4,ok1,2024-01-01T00:00:00Z
        2024-01-01T00:00:01Z,95,2,3,4,bad1,2024-01-01T00:00:00Z
        2024-01-01T00:00:02Z,1,2,3,4,ok2,2024-01-01T00:00:00Z

        """.write(toFile: f, atomically: true, encoding: .utf8)
        let strict = try CLI.run(["load", "--store", d + "/s", "--strict", f])
        #expect(strict.status == 1 && strict.stderr.contains("nothing committed"))
        #expect(!FileManager.default.fileExists(atPath: d + "/s"), "a failed first load leaves no store")
        let r = try CLI.run(["load", "--store", d + "/s", f])
        #expect(r.status == 0 && r.stdout.contains("committed"), "\(r.stderr)")
        #expect(r.stderr.contains("mixed.csv:3: latitude: 95.0 out of range"))
        #expect(try Self.count(d + "/s", []) == 2)
    }

    @Test func failedFirstLoadsLeaveNoStore() throws {
        let d = CLI.tempDir()
        let empty = d + "/empty.csv"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let r = try CLI.run(["load", "--store", d + "/s", empty])
        #expect(r.status == 1)
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
        let c = try CLI.run(["count", "--store", d + "/s"])
        #expect(c.status == 1 && c.stderr.contains("no store"))
        // an existing empty directory is left as it was
        try FileManager.default.createDirectory(atPath: d + "/mine", withIntermediateDirectories: true)
        #expect(try CLI.run(["load", "--store", d + "/mine", empty]).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d + "/mine").isEmpty)
    }

    @Test func ctrlCStopsALoadAndRemovesWhatItWrote() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "20000", "--out", d + "/feed", "--seed", "5"]).status == 0)
        let s = d + "/s"
        let first = try FileManager.default.contentsOfDirectory(atPath: d + "/feed").sorted()[0]
        #expect(try CLI.run(["load", "--store", s, d + "/feed/" + first]).status == 0)
        let before = try Self.count(s, [])
        let text = try String(contentsOfFile: d + "/feed/" + first, encoding: .utf8)
        // standard input stays open, so the load is still reading when the signal comes
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["load", "--store", s, "-"]
        let inp = Pipe(), err = Pipe()
        p.standardInput = inp
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        inp.fileHandleForWriting.write(Data(text.utf8))
        Thread.sleep(forTimeInterval: 1.0)
        p.interrupt()
        try inp.fileHandleForWriting.close()   // a read that waits on the pipe ends, and the load sees the signal
        p.waitUntilExit()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 130)
        #expect(said.contains("quakes: interrupted; nothing committed"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: s + "/tmp"))
        let info = try CLI.run(["verify", "--store", s])
        #expect(info.status == 0, "\(info.stdout) \(info.stderr)")
        #expect(try Self.count(s, []) == before)
        // nothing but the committed files is left in the store
        let parts = try FileManager.default.contentsOfDirectory(atPath: s + "/partitions")
        #expect(parts.allSatisfy { $0.contains(".g1.") }, "\(parts)")
    }

    /// A load that loads nothing says why in one line on stderr and prints no table of zeros:
    /// the one file's error; of several files, each as it is skipped, then that every one was.
    @Test func aLoadThatLoadsNothingSaysWhyInOneLine() throws {
        let d = CLI.tempDir()
        let bad = d + "/bad.csv", worse = d + "/worse.csv", rows = d + "/rows.csv"
        try "foo,bar\n1,2\n".write(toFile: bad, atomically: true, encoding: .utf8)
        try "time,latitude\n".write(toFile: worse, atomically: true, encoding: .utf8)
        try "time,latitude,longitude,depth,mag,id,updated\nnot-a-time,1,2,3,4,x1,2024-01-01T00:00:00Z\n"
            .write(toFile: rows, atomically: true, encoding: .utf8)
        let one = try CLI.run(["load", "--store", d + "/s", bad])
        #expect(one.status == 1 && one.stdout.isEmpty, "\(one.stdout)")
        #expect(one.stderr.hasPrefix("quakes: nothing loaded: \(bad): not a USGS CSV feed: missing required column")
                && one.stderr.hasSuffix("; nothing was committed\n")
                && one.stderr.split(separator: "\n").count == 1, "\(one.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
        // --json still prints the summary; the reason stays one line
        let json = try CLI.run(["load", "--store", d + "/s", "--json", bad])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(json.status == 1 && summary["filesRejected"] as? Int == 1)
        #expect(json.stderr.split(separator: "\n").count == 1, "\(json.stderr)")
        let two = try CLI.run(["load", "--store", d + "/s", bad, worse])
        let lines = two.stderr.split(separator: "\n").map(String.init)
        #expect(two.status == 1 && two.stdout.isEmpty && lines.count == 3, "\(two.stderr)")
        #expect(lines.first?.hasPrefix("error: \(bad): not a USGS CSV feed") == true
                && lines.dropFirst().first?.hasPrefix("error: \(worse): not a USGS CSV feed") == true)
        #expect(lines.last == "quakes: nothing loaded: every file was rejected; nothing was committed")
        // a file rejected whole beside one whose every row is: neither loaded anything
        let mixed = try CLI.run(["load", "--store", d + "/s", bad, rows])
        #expect(mixed.status == 1 && mixed.stderr.hasSuffix("quakes: nothing loaded: 1 of the 2 files were rejected "
                + "whole, and every row of the rest; nothing was committed\n"), "\(mixed.stderr)")
        // every row rejected: the reject, then why nothing loaded
        let allRows = try CLI.run(["load", "--store", d + "/s", rows])
        let rowLines = allRows.stderr.split(separator: "\n").map(String.init)
        #expect(allRows.status == 1 && allRows.stdout.isEmpty && rowLines.count == 2, "\(allRows.stderr)")
        #expect(rowLines.first?.hasPrefix("rejected: \(rows):2:") == true)
        #expect(rowLines.last == "quakes: nothing loaded: every row of the file was rejected; nothing was committed")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
    }

    /// A GeoJSON file cut short says where: inside which feature, or after the last whole one.
    @Test func aTruncatedGeoJSONSaysWhereItEnds() throws {
        let d = CLI.tempDir()
        func feature(_ id: String) -> String {
            "{\"type\":\"Feature\",\"properties\":{\"mag\":2.5,\"time\":1718409600000,\"updated\":1718409600000},"
                + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[-120.5,36.1,8.2]},\"id\":\"\(id)\"}"
        }
        let head = "{\"type\":\"FeatureCollection\",\"features\":["
        let cases = [(head + feature("a1"), "after feature 1, before the features array closes"),
                     (head + feature("a1") + ",\n", "after feature 1, before the features array closes"),
                     (head + feature("a1") + "," + String(feature("a2").prefix(40)), "inside feature 2"),
                     (head + feature("a1") + "]", "after the features array, before the collection closes"),
                     (head, "before the first feature")]
        for (index, (text, place)) in cases.enumerated() {
            let path = d + "/cut\(index).geojson"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try CLI.run(["load", "--store", d + "/s", path])
            #expect(r.status == 1 && r.stderr.contains("truncated GeoJSON (input ends \(place))"), "\(index): \(r.stderr)")
        }
        let whole = d + "/whole.geojson"
        try (head + feature("a1") + "]}").write(toFile: whole, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", whole]).status == 0)
    }

    /// `deleted` counts the tombstones a load added; `deletedRows` the rows read with status
    /// `deleted`, stale ones too.
    @Test func deletedCountsTombstonesTheLoadAdded() throws {
        let d = CLI.tempDir()
        let header = "time,latitude,longitude,depth,mag,id,updated,status\n"
        func feed(_ name: String, _ lines: [String]) throws -> String {
            let path = d + "/" + name
            try (header + lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        func load(_ path: String) throws -> [String: Any] {
            let r = try CLI.run(["load", "--store", d + "/s", "--json", path])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let first = try feed("a.csv", (0..<4).map { "2024-05-0\($0 + 1)T00:00:00Z,1,2,3,4,ev\($0),2024-05-10T00:00:00Z,reviewed" })
        #expect(try load(first)["deleted"] as? Int == 0)
        // two deleted by newer versions, one stale delete, one deleted event the store never held
        let second = try feed("b.csv", [
            "2024-05-01T00:00:00Z,1,2,3,4,ev0,2024-06-01T00:00:00Z,deleted",
            "2024-05-02T00:00:00Z,1,2,3,4,ev1,2024-06-01T00:00:00Z,deleted",
            "2024-05-03T00:00:00Z,1,2,3,4,ev2,2024-05-01T00:00:00Z,deleted",
            "2024-05-05T00:00:00Z,1,2,3,4,new9,2024-06-01T00:00:00Z,deleted",
        ])
        let loaded = try load(second)
        #expect(loaded["deleted"] as? Int == 3 && loaded["deletedRows"] as? Int == 4, "\(loaded)")
        let text = try CLI.run(["load", "--store", d + "/s", second])
        #expect(text.status == 0 && !text.stdout.contains("deleted"), "\(text.stdout)")
        // one brought back by a newer live version, one more deleted: net 0
        let third = try feed("c.csv", [
            "2024-05-01T00:00:00Z,1,2,3,4,ev0,2024-07-01T00:00:00Z,reviewed",
            "2024-05-04T00:00:00Z,1,2,3,4,ev3,2024-07-01T00:00:00Z,deleted",
        ])
        #expect(try load(third)["deleted"] as? Int == 0)
        let fourth = try feed("d.csv", ["2024-05-03T00:00:00Z,1,2,3,4,ev2,2024-08-01T00:00:00Z,deleted"])
        let shown = try CLI.run(["load", "--store", d + "/s", fourth])
        #expect(shown.status == 0 && shown.stdout.contains("deleted       1  (of the new and updated"), "\(shown.stdout)")
        #expect(try Self.count(d + "/s", ["--include-deleted"]) == 5)
        #expect(try Self.count(d + "/s", []) == 1)
    }

    @Test func loadingNothingAndWrongStores() throws {
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/empty", withIntermediateDirectories: true)
        let r = try CLI.run(["load", "--store", d + "/s", d + "/empty"])
        #expect(r.status == 1)
        #expect(r.stderr == "quakes: \(d)/empty: no feed files (looked for names containing .csv, .geojson or .json); "
                + "nothing was loaded\n")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
        FileManager.default.createFile(atPath: d + "/file", contents: Data("x".utf8))
        let f = try CLI.run(["count", "--store", d + "/file"])
        #expect(f.status == 1 && f.stderr == "quakes: \(d)/file is a file, not a store directory\n")
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let p = try CLI.run(["load", "--store", s, "--partition", "year", s + "/../feed"])
        #expect(p.status == 2)
        #expect(p.stderr.contains("is partitioned by month") && p.stderr.split(separator: "\n").count == 1)
        #expect(try CLI.run(["load", "--store", s, "--partition", "month", s + "/../feed"]).status == 0)
    }

    @Test func rejectListsSayHowManyMoreAndGoToAFile() throws {
        let d = CLI.tempDir()
        var rows = ["time,latitude,longitude,depth,mag,net,id"]
        // three reasons, none of them most of the file's rows: each reject is listed
        for i in 0..<250 {
            rows.append(["2024-01-01T00:00:00Z,999,1,1,1,us,b\(i)", "2024-01-01T00:00:00Z,1,999,1,1,us,b\(i)",
                         "2024-13-01T00:00:00Z,1,1,1,1,us,b\(i)"][i % 3])
        }
        rows.append("2024-01-01T00:00:00Z,1,1,1,1,us,good")
        FileManager.default.createFile(atPath: d + "/f.csv", contents: Data((rows.joined(separator: "\n") + "\n").utf8))
        let r = try CLI.run(["load", "--store", d + "/s", d + "/f.csv"])
        #expect(r.status == 0)   // the good row is committed; the rejects are reported
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("rejected: \(d)/f.csv:") }.count == 100)
        #expect(lines.last == "rejected: … and 150 more (use --rejects FILE for all)")
        let all = try CLI.run(["load", "--store", d + "/s2", d + "/f.csv", "--rejects", d + "/rej.txt"])
        #expect(all.stderr.split(separator: "\n").last == "rejected: … and 150 more (all 250 are in \(d)/rej.txt)")
        let file = try String(contentsOfFile: d + "/rej.txt", encoding: .utf8).split(separator: "\n")
        #expect(file.count == 250)
        let numbers: Set<Substring> = Set(file.map { $0.split(separator: ":")[1] })
        let want: Set<Substring> = Set((2...251).map { Substring(String($0)) })
        #expect(numbers == want)
    }

    @Test func aURLGivenToLoadSaysWhatToDo() throws {
        let d = CLI.tempDir()
        let url = "https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/all_day.csv"
        let r = try CLI.run(["load", "--store", d + "/s", url])
        #expect(r.status == 2)
        #expect(r.stderr.contains("is a URL") && r.stderr.contains("curl -fLO '\(url)'")
            && r.stderr.contains("quakes sync \(url)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aBrokenSymlinkInADirectoryIsSkipped() throws {
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/feeds", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.tiny, toPath: d + "/feeds/tiny.csv")
        try FileManager.default.createSymbolicLink(atPath: d + "/feeds/gone.csv", withDestinationPath: d + "/nowhere.csv")
        let r = try CLI.run(["load", "--store", d + "/s", d + "/feeds"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: \(d)/feeds/gone.csv: a broken symlink"), "\(r.stderr)")
        #expect(try CLI.run(["count", "--store", d + "/s"]).stdout == "12\n")
        let strict = try CLI.run(["load", "--store", d + "/t", "--strict", d + "/feeds"])
        #expect(strict.status == 1 && strict.stderr.contains("gone.csv: a broken symlink"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/t"))
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aCSVWithoutItsLastNewlineIsFlagged() throws {
        let d = CLI.tempDir()
        var text = try String(contentsOfFile: Self.tiny, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        text.removeLast(4)   // cut inside the last field, as an interrupted download is
        try text.write(toFile: d + "/cut.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["load", "--store", d + "/s", d + "/cut.csv"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: \(d)/cut.csv: the last line has no newline: the file may be truncated"))
        let strict = try CLI.run(["load", "--store", d + "/t", "--strict", d + "/cut.csv"])
        #expect(strict.status == 1 && strict.stderr.contains("cut.csv") && strict.stderr.contains("truncated"))
        #expect(!FileManager.default.fileExists(atPath: d + "/t"))
        // the whole file with its newline: no warning
        let whole = try CLI.run(["load", "--store", d + "/w", "--strict", Self.tiny])
        #expect(whole.status == 0 && !whole.stderr.contains("truncated"))
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func anOpenQuotedFieldAtTheEndIsAnError() throws {
        let d = CLI.tempDir()
        var text = try String(contentsOfFile: Self.tiny, encoding: .utf8)
        // the last row cut inside its quoted place
        let last = text.dropLast().lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        let row = String(text[last...])
        let quote = try #require(row.firstIndex(of: "\""))
        text = String(text[..<last]) + String(row[...quote]) + "12 km N of Some"
        try text.write(toFile: d + "/open.csv", atomically: true, encoding: .utf8)
        for strict in [false, true] {
            let r = try CLI.run(["load", "--store", d + "/s\(strict)", d + "/open.csv"] + (strict ? ["--strict"] : []))
            #expect(r.status == 1, "strict \(strict): \(r.stderr)")
            #expect(r.stderr.contains("open.csv") && r.stderr.contains("ends inside a quoted field"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: d + "/s\(strict)"))
        }
    }
}
