import Foundation

/// Where and how a benchmark ran, and the bases of its rates.
package struct BenchMeta: Sendable, Codable {
    /// `quakes --version`'s text.
    package var version: String
    /// The store's path.
    package var store: String
    /// Rows in the store's snapshot.
    package var storeRows: Int
    /// Processors this process may run on.
    package var cores: Int
    /// When the benchmark ran, ISO 8601 UTC.
    package var date: String
    /// Timed runs per case.
    package var runs: Int
    /// `warm`, `cold: page cache dropped …`, or `cold: not available here: …`.
    package var cache: String
    /// What rows/s divides, the same for every case.
    package var rowsPerSecondBasis = "rows/s = rows scanned / median time"
    /// What MB/s divides, the same for every case.
    package var megabytesPerSecondBasis = "MB/s = bytes read / 10^6 / median time, bytes read = on-disk bytes of "
        + "the columns read in the partitions left after time pruning, times the share of their rows scanned"
    /// How DuckDB was timed, under `--compare duckdb`.
    package var duckdb: String?
    /// The generate-and-load step of `--rows`, when there was one.
    package var load: String?

    /// The facts of a run; the bases are fixed.
    package init(version: String, store: String, storeRows: Int, cores: Int, date: String, runs: Int, cache: String) {
        self.version = version
        self.store = store
        self.storeRows = storeRows
        self.cores = cores
        self.date = date
        self.runs = runs
        self.cache = cache
    }
}
