import Foundation

/// DuckDB's side of a case under `--compare duckdb`.
package struct BenchDuckDBResult: Sendable, Codable {
    /// Each timed run in milliseconds (after one warm-up run).
    package var samplesMs: [Double]
    /// Order statistics, mean and standard deviation of ``samplesMs``.
    package var timing: BenchSummary
    /// Rows DuckDB's answer holds (a count's value), or nil when it could not be read.
    package var rowsReturned: Int?
    /// Whether `rowsReturned` equals quakes's.
    package var rowsAgree: Bool
    /// quakes's median / DuckDB's median.
    package var ratio: Double?

    /// DuckDB's samples and row count, set beside quakes's.
    package init(samplesMs: [Double], rowsReturned: Int?, quakesRows: Int, quakesMedianMs: Double) {
        self.samplesMs = samplesMs
        self.timing = BenchSummary(samples: samplesMs)
        self.rowsReturned = rowsReturned
        self.rowsAgree = rowsReturned == quakesRows
        self.ratio = timing.medianMs > 0 ? quakesMedianMs / timing.medianMs : nil
    }
}
