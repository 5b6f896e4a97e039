import Foundation
import Testing

/// `query --format arrow` (an IPC stream on stdout) and `query --format parquet --out FILE`,
/// read by pyarrow and compared with the same query's CSV output.
@Suite struct ArrowAndParquetResultTests {
    static func check(_ kind: String, _ path: String, csv: String) throws -> CLI.Result {
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_result.py").path
        return try CLI.exec(ParquetExportTests.python, [script, kind, path, csv])
    }

    /// Runs `query` as csv, arrow (stdout written to a file) and parquet, and compares them.
    func compare(_ s: String, _ d: String, _ args: [String]) throws {
        let tag = String(args.joined().hashValue.magnitude)
        let csv = try CLI.run(["query", "--store", s, "--format", "csv"] + args)
        #expect(csv.status == 0)
        try csv.stdout.write(toFile: d + "/\(tag).csv", atomically: true, encoding: .utf8)
        let arrow = try CLI.exec(CLI.binary, ["query", "--store", s, "--format", "arrow"] + args,
                                 stdoutFile: d + "/\(tag).arrow")
        #expect(arrow.status == 0, "\(arrow.stderr)")
        let a = try Self.check("arrow", d + "/\(tag).arrow", csv: d + "/\(tag).csv")
        #expect(a.status == 0 && a.stdout.hasPrefix("ok rows="), "\(args): \(a.stdout)")
        let pq = try CLI.run(["query", "--store", s, "--format", "parquet", "--out", d + "/\(tag).parquet"] + args)
        #expect(pq.status == 0, "\(pq.stderr)")
        let r = try Self.check("parquet", d + "/\(tag).parquet", csv: d + "/\(tag).csv")
        #expect(r.status == 0 && r.stdout.hasPrefix("ok rows="), "\(args): \(r.stdout)")
    }

    @Test(.enabled(if: ServeTests.pythonHas("pyarrow"), "needs pyarrow in the venv (make test installs it)"))
    func arrowAndParquetEqualTheCSV() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "200k", "--out", d + "/feed", "--seed", "31"]).status == 0)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/feed"]).status == 0)
        try compare(d + "/s", d, [])
        try compare(d + "/s", d, ["--min-mag", "3", "--sort", "mag:desc", "--fields", "time,mag,place,id,updated,felt"])
        try compare(d + "/s", d, ["--min-mag", "99"])
        let bad = try CLI.run(["query", "--store", d + "/s", "--format", "parquet"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("quakes: --format parquet needs --out FILE"))
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ServeTests.pythonHas("pyarrow"), "needs pyarrow in the venv (make test installs it)"))
    func arrowAndParquetEqualTheCSVOnRealFeeds() throws {
        let d = CLI.tempDir()
        let real = CLI.tempDir("real")
        let usgs = CLI.usgs
        #expect(try CLI.run(["load", "--store", real + "/s", usgs]).status <= 1)
        try compare(real + "/s", d, ["--place-like", "alaska", "--sort", "time:asc"])
    }
}
