import Foundation

/// Everything measured for one case, as `--json` and `--csv` carry it.
package struct BenchResult: Sendable, Codable {
    /// The command line the case runs.
    package var name: String
    /// `query`, `count`, `agg`, `sections` or `open`.
    package var kind: String
    /// Timed runs (after one warm-up run).
    package var runs: Int
    /// Each timed run, in milliseconds, in the order they ran.
    package var samplesMs: [Double]
    /// Order statistics, mean and standard deviation of ``samplesMs``.
    package var timing: BenchSummary
    /// Rows the engine decoded and tested (``QueryStats/rowsEstimated``: the rows of the units it scanned).
    package var rowsScanned: Int
    /// Rows answered from statistics without decoding: granules so answered × 4,096, at most
    /// the rows of the partitions left that were not scanned.
    package var rowsFromStatistics: Int
    /// Rows in the answer (a count's value; an aggregate's groups).
    package var rowsReturned: Int
    /// On-disk bytes of the columns the engine read, in the partitions left after time pruning,
    /// prorated to the share of their rows it scanned.
    package var bytesRead: Int
    /// `rowsScanned` / median time.
    package var rowsPerSecond: Double
    /// `bytesRead` / 10⁶ / median time.
    package var megabytesPerSecond: Double
    /// How the engine answered (``QueryStats/strategy``), when it says.
    package var strategy: String?
    /// The case in DuckDB's SQL, or nil with ``sqlError`` saying why there is none.
    package var sql: String?
    /// Why the case has no SQL, when it has none.
    package var sqlError: String?
    /// The answer, when `--print` asked for it.
    package var printed: BenchPrinted?
    /// DuckDB's timings of the same SQL, when `--compare duckdb` asked for them.
    package var duckdb: BenchDuckDBResult?

    /// A result of `samplesMs`, with its statistics and rates worked out.
    package init(name: String, kind: String, samplesMs: [Double], rowsScanned: Int, rowsFromStatistics: Int,
                 rowsReturned: Int, bytesRead: Int) {
        self.name = name
        self.kind = kind
        self.runs = samplesMs.count
        self.samplesMs = samplesMs
        self.timing = BenchSummary(samples: samplesMs)
        self.rowsScanned = rowsScanned
        self.rowsFromStatistics = rowsFromStatistics
        self.rowsReturned = rowsReturned
        self.bytesRead = bytesRead
        let seconds = timing.medianMs / 1000
        self.rowsPerSecond = seconds > 0 ? Double(rowsScanned) / seconds : 0
        self.megabytesPerSecond = seconds > 0 ? Double(bytesRead) / 1e6 / seconds : 0
    }
}
