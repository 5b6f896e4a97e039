import Foundation
import Testing

/// Parquet out, read back by real readers (pyarrow and DuckDB from PyPI, in the venv `make test`
/// sets up), compared field by field with the CSV export; and the hive layout's `year=` and `month=`
/// folders, as DuckDB's `hive_partitioning` reads them.
@Suite struct ParquetExportTests {
    /// The venv's python: `$QUAKES_PYTHON`, else `.build-venv/bin/python` (made by `make test`).
    static var python: String {
        if let p = ProcessInfo.processInfo.environment["QUAKES_PYTHON"] { return p }
        return CLI.packageRoot.appendingPathComponent(".build-venv/bin/python").path
    }

    /// pyarrow and DuckDB in that python: the readers the checks hand the files to.
    static let hasReaders = ServeTests.pythonHas("pyarrow") && ServeTests.pythonHas("duckdb")

    static func check(_ dir: String, csv: String, layout: String) throws -> CLI.Result {
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_parquet.py").path
        return try CLI.exec(python, [script, dir, csv, layout])
    }

    /// Exports `store` (with `filter` flags) as parquet and csv, and has the readers compare them.
    func roundTrip(_ store: String, _ d: String, layout: String, _ filter: [String] = [], rowGroups: Bool = false) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python),
                "no python with duckdb and pyarrow at \(Self.python); `make test` makes it")
        let out = d + "/pq-\(layout)-\(filter.count)"
        let p = try CLI.run(["export", "--store", store, "--format", "parquet", "--out", out, "--partition-by", layout] + filter)
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stderr.hasPrefix("exported "))
        let c = try CLI.run(["export", "--store", store, "--format", "csv", "--out", out + ".csv"] + filter)
        #expect(c.status == 0)
        let r = try Self.check(out, csv: out + ".csv", layout: layout)
        #expect(r.status == 0 && r.stdout.hasPrefix("ok rows="), "\(r.stdout)\(r.stderr)")
        if rowGroups { #expect(!r.stdout.contains("groups=1 "), "\(r.stdout)") }
    }

    @Test(.enabled(if: ParquetExportTests.hasReaders, "needs pyarrow and duckdb in the venv (make test installs them)"))
    func generatedDataWithOddValues() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "300k", "--out", d + "/feed", "--seed", "21"]).status == 0)
        let odd = """
            time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,horizontalError,depthError,magError,magNst,status,locationSource,magSource
            2024-06-15T01:00:00.000Z,-0.0,179.99999999999999,-0.0,-0.0,ml,,,,,ak,odd1,2024-06-15T02:00:00.001Z,"5 km N of Pāhala, Hawaiʻi — “quoted”",earthquake,,,,,reviewed,ak,ak
            1965-03-01T00:00:00.000Z,12.345678901234567,-0.00000000000000001,0,9.1,mw,,,,,iscgem,odd2,,日本海,earthquake,,,,,reviewed,iscgem,iscgem

            """
        try odd.write(toFile: d + "/feed/odd.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/feed"]).status == 0)
        try roundTrip(d + "/s", d, layout: "month")
        try roundTrip(d + "/s", d, layout: "year", rowGroups: true)
        try roundTrip(d + "/s", d, layout: "none", rowGroups: true)
        try roundTrip(d + "/s", d, layout: "month", ["--min-mag", "2.5", "--bbox", "-60,60,-180,0"])
        let again = try CLI.run(["export", "--store", d + "/s", "--format", "parquet", "--out", d + "/pq-month-0"])
        #expect(again.status == 1 && again.stderr.contains("not empty; export into a new or empty directory"))
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ParquetExportTests.hasReaders, "needs pyarrow and duckdb in the venv (make test installs them)"))
    func realFeeds() throws {
        let d = CLI.tempDir()
        let usgs = CLI.usgs
        #expect(try CLI.run(["load", "--store", d + "/s", usgs]).status <= 1)  // the odd files carry rejects
        try roundTrip(d + "/s", d, layout: "month")
        try roundTrip(d + "/s", d, layout: "year", ["--place-like", "alaska"])
    }

    @Test(.enabled(if: ParquetExportTests.hasReaders, "needs pyarrow and duckdb in the venv (make test installs them)"))
    func aKilledExportLeavesNoFileUnderAFinalName() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "2M", "--file-rows", "2M", "--out", d + "/feed", "--seed", "22"]).status == 0)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/feed"]).status == 0)
        for delay in [0.3, 0.8, 1.5] {
            let out = d + "/killed-\(delay)"
            let p = try CLI.start(["export", "--store", d + "/s", "--format", "parquet", "--out", out, "--partition-by", "none"])
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            // either nothing, a hidden temporary, or the whole file that a reader accepts
            for n in names where !n.hasPrefix(".") {
                #expect(n == "part-0.parquet")
                let r = try Self.check(out, csv: "/dev/null", layout: "none")
                #expect(r.stdout.contains("pyarrow read 2000000 rows, the CSV export has 0"), "\(r.stdout)\(r.stderr)")
            }
        }
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
}
