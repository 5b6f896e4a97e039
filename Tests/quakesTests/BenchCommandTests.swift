import Foundation
import Testing

/// `quakes bench`: statistics, the queries file, `--print`, `--cold` and `--compare duckdb`.
@Suite(.serialized) struct BenchCommandTests {
    /// A store of a few thousand generated events, made once.
    static let store: String = {
        (try? CLI.generatedStore(rows: "3000", seed: 41, tag: "benchStore")) ?? "/nonexistent"
    }()

    /// Writes `lines` to a queries file and returns its path.
    static func queriesFile(_ lines: [String], tag: String = #function) throws -> String {
        let path = CLI.tempDir(tag) + "/queries.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The JSON report `quakes bench ARGS --json` prints, after checking it exited 0.
    static func report(_ args: [String]) throws -> [String: Any] {
        let run = try CLI.run(["bench", "--store", store, "--json"] + args)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    static func cases(_ report: [String: Any]) throws -> [[String: Any]] {
        try #require(report["cases"] as? [[String: Any]])
    }

    @Test func jsonHasEveryFieldAndSaneStatistics() throws {
        let report = try Self.report(["--runs", "4"])
        let meta = try #require(report["meta"] as? [String: Any])
        #expect((meta["version"] as? String)?.hasPrefix("quakes ") == true)
        #expect(meta["storeRows"] as? Int == 3000)
        #expect((meta["cores"] as? Int ?? 0) >= 1)
        #expect((meta["date"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
        #expect(meta["cache"] as? String == "warm")
        #expect((meta["rowsPerSecondBasis"] as? String)?.contains("rows scanned / median") == true)
        let cases = try Self.cases(report)
        #expect(cases.count == 10)
        for entry in cases {
            let name = entry["name"] as? String ?? "?"
            for field in ["kind", "runs", "samplesMs", "timing", "rowsScanned", "rowsFromStatistics", "rowsReturned",
                          "bytesRead", "rowsPerSecond", "megabytesPerSecond"] {
                #expect(entry[field] != nil, "\(name): \(field)")
            }
            let samples = try #require(entry["samplesMs"] as? [Double])
            #expect(samples.count == 4, "\(name)")
            #expect(entry["runs"] as? Int == 4)
            let timing = try #require(entry["timing"] as? [String: Double])
            let low = try #require(timing["minMs"]), median = try #require(timing["medianMs"])
            let p95 = try #require(timing["p95Ms"]), high = try #require(timing["maxMs"])
            let mean = try #require(timing["meanMs"]), deviation = try #require(timing["stddevMs"])
            #expect(low <= median && median <= p95 && p95 <= high, "\(name): \(timing)")
            #expect(low == samples.min() && high == samples.max(), "\(name)")
            #expect(mean >= low && mean <= high && deviation >= 0, "\(name)")
            let scanned = try #require(entry["rowsScanned"] as? Int)
            let rate = try #require(entry["rowsPerSecond"] as? Double)
            #expect(scanned <= 3000, "\(name): scanned \(scanned)")
            if median > 0 { #expect(abs(rate - Double(scanned) / (median / 1000)) <= 1e-6 * max(1, rate), "\(name)") }
            #expect(entry["sql"] is String, "\(name): every standard case has SQL")
        }
        let deep = cases.first { ($0["name"] as? String)?.contains("--offset 1500 --limit 100") == true }
        #expect(deep != nil, "the deep page names the offset it uses: half of 3000 rows")
        #expect(deep?["rowsReturned"] as? Int == 100)
    }

    @Test func queriesFileSkipsCommentsAndTakesALeadingQuakes() throws {
        let file = try Self.queriesFile(["# counts", "", "quakes count --min-mag 2", "  agg --by net  # trailing",
                                         "sections --by month --limit-per-section 2"])
        let run = try CLI.run(["bench", "--store", Self.store, "--json", "--runs", "1", "--queries", file])
        #expect(run.status != 0, "a '#' after a command is not a comment: agg's parser rejects it")
        let good = try Self.queriesFile(["# counts", "", "quakes count --min-mag 2", "agg --by net",
                                         "sections --by month --limit-per-section 2"], tag: "goodQueries")
        let cases = try Self.cases(try Self.report(["--runs", "2", "--queries", good]))
        #expect(cases.map { $0["name"] as? String ?? "" }
                == ["quakes count --min-mag 2", "agg --by net", "sections --by month --limit-per-section 2"])
        #expect(cases.map { $0["kind"] as? String ?? "" } == ["count", "agg", "sections"])
    }

    /// The rows of CSV text, quotes honoured.
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if characters.first == "\"" {
                        cell.unicodeScalars.append(scalar)
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                row.append(cell)
                cell = ""
            } else if scalar == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.unicodeScalars.append(scalar)
            }
        }
        return rows
    }

    @Test func csvCarriesEveryFieldPerCase() throws {
        let file = try Self.queriesFile(["count --min-mag 2", "agg --by net --metrics 'count,avg(mag)'",
                                         "open --day 2024-01-01"])
        let run = try CLI.run(["bench", "--store", Self.store, "--csv", "--runs", "3", "--print", "--queries", file])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = Self.csvRows(run.stdout)
        let header = try #require(rows.first)
        for field in ["version", "store_rows", "cores", "date", "case", "samples_ms", "min_ms", "median_ms", "p95_ms",
                      "max_ms", "mean_ms", "stddev_ms", "rows_scanned", "rows_from_statistics", "rows_returned",
                      "bytes_read", "rows_per_second", "megabytes_per_second", "sql", "printed_fnv1a64"] {
            #expect(header.contains(field), "\(field)")
        }
        #expect(rows.count == 4, "\(run.stdout)")
        for row in rows.dropFirst() {
            #expect(row.count == header.count, "\(row)")
            let cell = { (name: String) -> String in header.firstIndex(of: name).map { row[$0] } ?? "" }
            #expect(cell("store_rows") == "3000")
            #expect(cell("samples_ms").split(separator: " ").count == 3, "\(row)")
            let low = Double(cell("min_ms")) ?? -1, median = Double(cell("median_ms")) ?? -1
            let p95 = Double(cell("p95_ms")) ?? -1, high = Double(cell("max_ms")) ?? -1
            #expect(0 <= low && low <= median && median <= p95 && p95 <= high, "\(row)")
        }
        #expect(rows[1][header.firstIndex(of: "kind") ?? 0] == "count")
        #expect(rows[3][header.firstIndex(of: "kind") ?? 0] == "open")
        #expect(rows[3][header.firstIndex(of: "sql_error") ?? 0].contains("no SQL counterpart"))
    }

    @Test func badLinesNameFileAndLine() throws {
        for (line, status) in [("count --bogus 1", Int32(2)), ("frobnicate --day 2024-01-01", 2),
                               ("agg --by nosuchfield", 2), ("query --sort 'mag:desc", 2),
                               ("query --limit 5 --format json", 2), ("count --store /elsewhere", 2)] {
            let file = try Self.queriesFile(["# first", "count", line], tag: "bad\(status)")
            let run = try CLI.run(["bench", "--store", Self.store, "--queries", file])
            #expect(run.status == status, "\(line): \(run.stderr)")
            #expect(run.stderr.contains("\(file):3"), "\(line): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }

    @Test func printShowsWhatTheCommandPrintsAsCSV() throws {
        let lines = ["query --min-mag 2 --sort mag:desc --limit 5 --fields time,mag,place,id",
                     "query --sort time:desc --offset 10 --limit 3",
                     "count --min-mag 3",
                     "agg --by net --metrics count,avg(mag),max(depth) --sort count:desc",
                     "agg --by month --by net --metrics count --having count>5"]
        let file = try Self.queriesFile(lines)
        let cases = try Self.cases(try Self.report(["--runs", "1", "--print", "--queries", file]))
        #expect(cases.count == lines.count)
        for (line, entry) in zip(lines, cases) {
            var args = line.split(separator: " ").map(String.init) + ["--store", Self.store]
            if !line.hasPrefix("count") { args += ["--format", "csv"] }
            let direct = try CLI.run(args)
            #expect(direct.status == 0, "\(line): \(direct.stderr)")
            let printed = try #require(entry["printed"] as? [String: Any], "\(line)")
            let lineCount = direct.stdout.split(separator: "\n").count
            #expect(printed["lines"] as? Int == lineCount, "\(line)")
            #expect(printed["fnv1a64"] as? String == Self.fnv1a64(direct.stdout), "\(line)")
            if lineCount <= 20 {
                #expect(printed["text"] as? String == direct.stdout, "\(line)")
            } else {
                #expect(printed["text"] == nil, "\(line): a long answer is carried as its size and hash")
            }
        }
    }

    /// FNV-1a 64 of the text's UTF-8 bytes, 16 hex digits.
    static func fnv1a64(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func coldRunsDropThePageCache() throws {
        let file = try Self.queriesFile(["count --min-mag 2", "query --day 2024-01-01 --limit 5"])
        let report = try Self.report(["--runs", "2", "--cold", "--queries", file])
        let meta = try #require(report["meta"] as? [String: Any])
        let cache = try #require(meta["cache"] as? String)
        #expect(cache.hasPrefix("cold: "))
        #if os(Linux)
        #expect(cache.contains("posix_fadvise") && !cache.contains("not available"), "\(cache)")
        #endif
        #expect(try Self.cases(report).allSatisfy { ($0["samplesMs"] as? [Double])?.count == 2 })
    }

    /// A DuckDB CLI: `duckdb` on PATH or `$QUAKES_DUCKDB`, else a wrapper around the venv's duckdb module.
    static let duckdbCLI: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["QUAKES_DUCKDB"], FileManager.default.isExecutableFile(atPath: given) {
            return given
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = String(directory) + "/duckdb"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        guard ServeTests.pythonHas("duckdb") else { return nil }
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/duckdb_cli.py").path
        let wrapper = CLI.tempDir("duckdbWrapper") + "/duckdb"
        let text = "#!/bin/sh\nexec '\(ServeTests.python)' '\(script)' \"$@\"\n"
        guard (try? text.write(toFile: wrapper, atomically: true, encoding: .utf8)) != nil,
              (try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)) != nil
        else { return nil }
        return wrapper
    }()

    @Test(.enabled(if: BenchCommandTests.duckdbCLI != nil, "needs a duckdb CLI or duckdb in the venv (make test)"))
    func compareWithDuckDBAgreesOnRows() throws {
        let cli = try #require(Self.duckdbCLI)
        let lines = ["count --min-mag 2", "count --place-like california",
                     "count --bbox 32,42,-125,-114 --min-mag 1",
                     "query --day 2024-01-01 --sort mag:desc --limit 20",
                     "query --sort time:desc --offset 100 --limit 50 --fields time,mag,place,id",
                     "agg --by net --metrics count,avg(mag),max(depth)",
                     "agg --by month --metrics count,median(depth) --having count>10 --sort count:desc --limit 3",
                     "sections --by net --limit-per-section 2"]
        let file = try Self.queriesFile(lines)
        let report = try Self.report(["--runs", "2", "--queries", file, "--compare", "duckdb", "--duckdb", cli])
        let meta = try #require(report["meta"] as? [String: Any])
        #expect((meta["duckdb"] as? String)?.contains(".timer on") == true)
        for entry in try Self.cases(report) {
            let name = entry["name"] as? String ?? "?"
            let duckdb = try #require(entry["duckdb"] as? [String: Any], "\(name)")
            #expect(duckdb["rowsAgree"] as? Bool == true,
                    "\(name): quakes \(entry["rowsReturned"] ?? "?"), DuckDB \(duckdb["rowsReturned"] ?? "?")")
            #expect((duckdb["samplesMs"] as? [Double])?.count == 2, "\(name)")
        }
        // a LIKE pattern that is neither a substring nor an equality runs row by row: no SQL translation
        let rowByRow = "count --where \"place like 'A%ka%'\""
        let untranslatable = try Self.queriesFile([rowByRow], tag: "untranslatable")
        let refused = try CLI.run(["bench", "--store", Self.store, "--queries", untranslatable,
                                   "--compare", "duckdb", "--duckdb", cli])
        #expect(refused.status == 1 && refused.stderr.contains(rowByRow), "\(refused.stderr)")
        #expect(refused.stderr.contains("no SQL translation"), "\(refused.stderr)")
    }

    @Test func compareWithoutDuckDBIsOneLineError() throws {
        let run = try CLI.run(["bench", "--store", Self.store, "--compare", "duckdb"], env: ["PATH": "/nonexistent"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("DuckDB is not installed"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let other = try CLI.run(["bench", "--store", Self.store, "--compare", "sqlite"])
        #expect(other.status == 2)
    }
}
