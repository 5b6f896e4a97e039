import Foundation
import Testing

/// Issue 50 (fit for real users, part 3): fidelity on load, clear errors, and the small things,
/// on the real feeds in `../shared/usgs` where the item concerns data.
@Suite struct UserFit3Tests {
    static let usgs = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/usgs").path
    static let week = usgs + "/csv_2016-04-24_2016-05-01_1386.csv"
    static let tiny = usgs + "/csv_2024-09-11_2024-10-06_12.csv"

    /// The feed as a spreadsheet re-saves it: each time as `dd-mm-yy HH:MM` (seconds and
    /// milliseconds gone), every other field as it was. Returns the copy's text and how many
    /// times lost digits.
    static func spreadsheetCopy(_ text: String) -> (String, Int) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var coarser = 0
        for k in 1..<lines.count where !lines[k].isEmpty {
            guard let comma = lines[k].firstIndex(of: ",") else { continue }
            let t = lines[k][..<comma]   // 2016-04-30T22:36:58.110Z
            let y = t.dropFirst(2).prefix(2), m = t.dropFirst(5).prefix(2), d = t.dropFirst(8).prefix(2)
            let hm = t.dropFirst(11).prefix(5)
            if t.dropFirst(17).prefix(6) != "00.000" { coarser += 1 }
            lines[k] = "\(d)-\(m)-\(y) \(hm)" + lines[k][comma...]
        }
        return (lines.joined(separator: "\n"), coarser)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs")) func aCoarserTimeNeverReplacesAPreciseOne() throws {
        let d = CLI.tempDir()
        let text = try String(contentsOfFile: Self.week, encoding: .utf8)
        let (copy, coarser) = Self.spreadsheetCopy(text)
        #expect(coarser > 1000)
        try copy.write(toFile: d + "/resaved.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", Self.week]).status == 0)
        let before = try CLI.run(["export", "--store", d + "/s"]).stdout
        let r = try CLI.run(["load", "--store", d + "/s", "--time-format", "%d-%m-%y %H:%M", d + "/resaved.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: kept the full-precision time of \(coarser.formatted()) events"), "\(r.stderr)")
        #expect(r.stdout.contains("nothing to commit"))
        #expect(try CLI.run(["export", "--store", d + "/s"]).stdout == before)
        // the other way round, the precise feed replaces the coarse times
        #expect(try CLI.run(["load", "--store", d + "/c", "--time-format", "%d-%m-%y %H:%M", d + "/resaved.csv"])
            .status == 0)
        #expect(try CLI.run(["load", "--store", d + "/c", Self.week]).status == 0)
        #expect(try CLI.run(["export", "--store", d + "/c"]).stdout == before)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs")) func aCSVWithoutItsLastNewlineIsFlagged() throws {
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

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs")) func anOpenQuotedFieldAtTheEndIsAnError() throws {
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

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs")) func aBrokenSymlinkInADirectoryIsSkipped() throws {
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

    @Test func aURLGivenToLoadSaysWhatToDo() throws {
        let d = CLI.tempDir()
        let url = "https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/all_day.csv"
        let r = try CLI.run(["load", "--store", d + "/s", url])
        #expect(r.status == 2)
        #expect(r.stderr.contains("is a URL") && r.stderr.contains("curl -fLO '\(url)'"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
    }

    @Test func fromAfterToIsAUsageError() throws {
        let store = try CLI.generatedStore(rows: "500", seed: 50)
        let r = try CLI.run(["count", "--store", store, "--from", "2024-02-01", "--to", "2024-01-01"])
        #expect(r.status == 2 && r.stderr.contains("--from 2024-02-01 is after --to 2024-01-01"), "\(r.stderr)")
        let q = try CLI.run(["query", "--store", store, "--starttime", "2024-02-01", "--endtime", "2024-01-01"])
        #expect(q.status == 2 && q.stderr.contains("is after --endtime"))
        // the same instant is one instant with the inclusive --endtime, an empty window with --to
        let first = try CLI.run(["query", "--store", store, "--orderby", "time-asc", "--limit", "1", "--format", "csv",
                                 "--fields", "time"]).stdout.split(separator: "\n")
        let t = String(try #require(first.last))
        #expect(try CLI.run(["count", "--store", store, "--starttime", t, "--endtime", t]).stdout == "1\n")
        #expect(try CLI.run(["count", "--store", store, "--from", t, "--to", t]).stdout == "0\n")
        // digits past the millisecond never widen a bound: t is .xyz, so .xyz1 starts after it
        let later = String(t.dropLast()) + "1Z", earlier = String(t.dropLast()) + "0Z"
        #expect(t.hasSuffix("Z") && t.count == 24)
        #expect(try CLI.run(["count", "--store", store, "--from", t, "--to", later]).stdout == "1\n")
        #expect(try CLI.run(["count", "--store", store, "--from", later, "--to", later]).stdout == "0\n")
        #expect(try CLI.run(["count", "--store", store, "--starttime", later, "--endtime", later]).stdout == "0\n")
        #expect(try CLI.run(["count", "--store", store, "--starttime", earlier, "--endtime", later]).stdout == "1\n")
    }

    @Test func medianIsTheFiftiethPercentile() throws {
        let store = try CLI.generatedStore(rows: "2000", seed: 51)
        let r = try CLI.run(["agg", "--store", store, "--by", "net", "--metrics", "median(mag),p50(mag),median(depth),p50(depth)",
                             "--format", "csv", "--no-header"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count > 3)
        for row in rows {
            #expect(row.count == 5 && row[1] == row[2] && row[3] == row[4], "\(row)")
        }
        // the column keeps the name asked for, and sorts by it
        let sorted = try CLI.run(["agg", "--store", store, "--by", "net", "--metrics", "count,median(mag)",
                                  "--sort", "median(mag):desc", "--format", "csv"])
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let lines = sorted.stdout.split(separator: "\n")
        #expect(lines.first == "net,count,median(mag)")
        let medians = lines.dropFirst().compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
        #expect(medians.count == lines.count - 1 && medians == medians.sorted(by: >))
    }

    /// An export of generated events, as a hive-partitioned Parquet data set.
    static let hiveExport: String = {
        let d = CLI.tempDir("hive-export")
        _ = try? CLI.run(["generate", "--rows", "2000", "--out", d + "/feed", "--seed", "52"])
        _ = try? CLI.run(["load", "--store", d + "/s", d + "/feed"])
        _ = try? CLI.run(["export", "--store", d + "/s", "--format", "parquet", "--out", d + "/pq"])
        return d + "/pq"
    }()

    @Test func hiveMonthFoldersHaveNoLeadingZero() throws {
        let pq = Self.hiveExport
        let years = try FileManager.default.contentsOfDirectory(atPath: pq).filter { $0.hasPrefix("year=") }
        let months = try years.flatMap { try FileManager.default.contentsOfDirectory(atPath: pq + "/" + $0) }
        #expect(months.count > 12 && months.allSatisfy { $0.hasPrefix("month=") && !$0.hasPrefix("month=0") })
        #expect(months.contains("month=3") && months.contains("month=12"))
    }

    @Test(.enabled(if: ServeTests.pythonHas("duckdb"), "needs duckdb in the venv (make test installs it)"))
    func hivePartitionColumnsAreBothIntegersInDuckDB() throws {
        let script = """
            import duckdb
            print(duckdb.sql("select distinct typeof(year), typeof(month) from read_parquet('\(Self.hiveExport)/**/*.parquet', \
            hive_partitioning=true)").fetchall())
            """
        let py = try CLI.exec(ServeTests.python, ["-c", script])
        #expect(py.stdout == "[('BIGINT', 'BIGINT')]\n", "\(py.stdout) \(py.stderr)")
    }

    /// Longitudes past ±180 on the CLI, as the service takes them: 170...190 is the box across 180°.
    @Test func longitudesPastTheAntimeridian() throws {
        let store = try CLI.generatedStore(rows: "4000", seed: 53)
        let across = try CLI.run(["count", "--store", store, "--minlongitude", "170", "--maxlongitude", "190"])
        #expect(across.status == 0, "\(across.stderr)")
        let bbox = try CLI.run(["count", "--store", store, "--bbox", "-90,90,170,-170"])
        #expect(across.stdout == bbox.stdout)
        let west = try CLI.run(["count", "--store", store, "--minlon", "-190", "--maxlon", "-170"])
        #expect(west.stdout == bbox.stdout)
        let bad = try CLI.run(["count", "--store", store, "--minlongitude", "200", "--maxlongitude", "100"])
        #expect(bad.status == 2 && bad.stderr.contains("minlongitude"))
    }
}
