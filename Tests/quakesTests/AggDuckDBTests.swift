import Foundation
import Testing

/// `quakes agg`'s newer questions against DuckDB's answers (issue 72): `--having`, `count(X)`,
/// `count(distinct X)`, `stddev`, the interpolated `median`, nearest-rank `pNN`, date parts,
/// `time:N` buckets, `region`, `place` and up to eight keys, fixed and drawn at random, over the
/// store's Parquet export. Keys and counts must be equal, other numbers equal to 1e-12 relative.
@Suite struct AggDuckDBTests {
    static func check(_ store: String, _ dir: String, seed: UInt64) throws {
        let parquet = dir + "/parquet"
        let export = try CLI.run(["export", "--store", store, "--format", "parquet", "--out", parquet])
        #expect(export.status == 0, "\(export.stderr)")
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_agg_duckdb.py").path
        let result = try CLI.exec(ParquetExportTests.python, [script, CLI.binary, store, parquet, String(seed)])
        #expect(result.status == 0 && result.stdout.hasPrefix("ok cases="), "seed \(seed): \(result.stdout)\(result.stderr)")
    }

    @Test(.enabled(if: ParquetExportTests.hasReaders, "needs duckdb and pyarrow in the venv (make test installs them)"))
    func generatedEventsAnswerAsDuckDB() throws {
        let dir = CLI.tempDir()
        let seed = UInt64.random(in: 1...1_000_000)
        #expect(try CLI.run(["generate", "--rows", "60000", "--years", "2019-2022", "--out", dir + "/feed",
                             "--seed", String(seed)]).status == 0)
        #expect(try CLI.run(["load", "--store", dir + "/s", dir + "/feed"]).status == 0)
        try Self.check(dir + "/s", dir, seed: seed)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ParquetExportTests.hasReaders, "needs duckdb and pyarrow in the venv (make test installs them)"))
    func realFeedsAnswerAsDuckDB() throws {
        let dir = CLI.tempDir()
        #expect(try CLI.run(["load", "--store", dir + "/s", CLI.usgs]).status <= 1)  // the odd files carry rejects
        try Self.check(dir + "/s", dir, seed: UInt64.random(in: 1...1_000_000))
    }
}
