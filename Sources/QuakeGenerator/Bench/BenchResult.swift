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
    package var sqlError: String?
    /// The answer, when `--print` asked for it.
    package var printed: BenchPrinted?
    /// DuckDB's timings of the same SQL, when `--compare duckdb` asked for them.
    package var duckdb: BenchDuckDBResult?

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

/// A case's answer as the CLI prints it in CSV: whole when short, else its size and hash.
package struct BenchPrinted: Sendable, Codable, Equatable {
    /// Lines of the CSV text (header included).
    package var lines: Int
    package var bytes: Int
    /// FNV-1a 64 of the CSV text's UTF-8 bytes, 16 hex digits.
    package var fnv1a64: String
    /// The CSV text itself, when it has at most ``BenchPrinted/wholeLines`` lines.
    package var text: String?

    /// Results up to this many lines are carried whole.
    package static let wholeLines = 20

    package init(csv: String) {
        let breaks = csv.reduce(0) { count, character in count + (character.isNewline ? 1 : 0) }
        self.lines = breaks + (csv.isEmpty || csv.last?.isNewline == true ? 0 : 1)
        self.bytes = csv.utf8.count
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in csv.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        self.fnv1a64 = String(repeating: "0", count: 16 - hex.count) + hex
        self.text = self.lines <= BenchPrinted.wholeLines ? csv : nil
    }
}

/// DuckDB's side of a case under `--compare duckdb`.
package struct BenchDuckDBResult: Sendable, Codable {
    /// Each timed run in milliseconds (after one warm-up run).
    package var samplesMs: [Double]
    package var timing: BenchSummary
    /// Rows DuckDB's answer holds (a count's value), or nil when it could not be read.
    package var rowsReturned: Int?
    /// Whether `rowsReturned` equals quakes's.
    package var rowsAgree: Bool
    /// quakes's median / DuckDB's median.
    package var ratio: Double?

    package init(samplesMs: [Double], rowsReturned: Int?, quakesRows: Int, quakesMedianMs: Double) {
        self.samplesMs = samplesMs
        self.timing = BenchSummary(samples: samplesMs)
        self.rowsReturned = rowsReturned
        self.rowsAgree = rowsReturned == quakesRows
        self.ratio = timing.medianMs > 0 ? quakesMedianMs / timing.medianMs : nil
    }
}
