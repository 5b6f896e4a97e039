import QuakeSupport
import Foundation
import QuakeFormat
import QuakeGenerator

extension BenchCommand {
    /// The report as pretty JSON with sorted keys.
    func printJSON(_ report: BenchReport) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// The CSV columns: the run's facts, then the case's.
    static let csvHeader = [
        "version", "store_rows", "cores", "date", "cache", "rows_per_second_basis", "megabytes_per_second_basis",
        "case", "kind", "runs", "samples_ms", "min_ms", "median_ms", "p95_ms", "max_ms", "mean_ms", "stddev_ms",
        "rows_scanned", "rows_from_statistics", "rows_returned", "bytes_read", "rows_per_second",
        "megabytes_per_second", "strategy", "sql", "sql_error", "printed_lines", "printed_bytes", "printed_fnv1a64",
        "printed_text", "duckdb_timing", "duckdb_samples_ms", "duckdb_median_ms", "duckdb_rows_returned",
        "rows_agree", "ratio",
    ]

    /// One CSV row per case, the run's facts repeated on each.
    func printCSV(_ report: BenchReport) {
        print(BenchCommand.csvHeader.joined(separator: ","))
        let meta = report.meta
        for result in report.cases {
            let facts = [meta.version, String(meta.storeRows), String(meta.cores), meta.date, meta.cache,
                         meta.rowsPerSecondBasis, meta.megabytesPerSecondBasis]
            let timing = result.timing
            let measured = [result.name, result.kind, String(result.runs), BenchCommand.sampleList(result.samplesMs),
                            number(timing.minMs), number(timing.medianMs), number(timing.p95Ms), number(timing.maxMs),
                            number(timing.meanMs), number(timing.stddevMs), String(result.rowsScanned),
                            String(result.rowsFromStatistics), String(result.rowsReturned), String(result.bytesRead),
                            number(result.rowsPerSecond), number(result.megabytesPerSecond), result.strategy ?? "",
                            result.sql ?? "",
                            result.sqlError ?? ""]
            let printed = result.printed.map {
                [String($0.lines), String($0.bytes), $0.fnv1a64, $0.text ?? ""]
            } ?? ["", "", "", ""]
            let duckdb = result.duckdb.map {
                [meta.duckdb ?? "", BenchCommand.sampleList($0.samplesMs), number($0.timing.medianMs),
                 $0.rowsReturned.map(String.init) ?? "", String($0.rowsAgree), $0.ratio.map(number) ?? ""]
            } ?? ["", "", "", "", "", ""]
            print((facts + measured + printed + duckdb).map(BenchCommand.csvCell).joined(separator: ","))
        }
    }

    /// The report for reading: the run's facts and the rates' bases, then each case.
    func printTable(_ report: BenchReport) {
        let meta = report.meta
        print("\(meta.version); store \(meta.store): \(meta.storeRows.grouped) rows; \(meta.cores) cores; "
              + "\(meta.date)")
        print("\(meta.runs) timed run\(meta.runs == 1 ? "" : "s") per case after 1 warm-up; \(meta.cache)")
        if let load = meta.load { print(load) }
        print(meta.rowsPerSecondBasis + "; " + meta.megabytesPerSecondBasis)
        if let duckdb = meta.duckdb { print("duckdb: " + duckdb) }
        for (index, result) in report.cases.enumerated() {
            print("")
            print("[\(index + 1)] \(result.name)")
            let timing = result.timing
            print(String(format: "    ms: median %.3f  min %.3f  p95 %.3f  max %.3f  mean %.3f ± %.3f",
                         timing.medianMs, timing.minMs, timing.p95Ms, timing.maxMs, timing.meanMs, timing.stddevMs))
            print("    samples ms: " + BenchCommand.sampleList(result.samplesMs))
            print("    rows: \(result.rowsScanned.grouped) scanned, \(result.rowsFromStatistics.grouped) "
                  + "from statistics, \(result.rowsReturned.grouped) returned; "
                  + String(format: "%.2f MB read; ", Double(result.bytesRead) / 1e6)
                  + BenchCommand.rate(result.rowsPerSecond) + " rows/s; "
                  + String(format: "%.1f MB/s", result.megabytesPerSecond))
            if let strategy = result.strategy, !strategy.isEmpty { print("    strategy: " + strategy) }
            if let duckdb = result.duckdb { print(BenchCommand.duckdbLine(duckdb)) }
            if let printed = result.printed { printAnswer(printed) }
        }
    }

    /// `--print`'s answer under a case: the text, or its size and hash.
    private func printAnswer(_ printed: BenchPrinted) {
        guard let text = printed.text else {
            print("    answer: \(printed.lines.grouped) CSV lines, \(printed.bytes.grouped) bytes, "
                  + "FNV-1a 64 \(printed.fnv1a64)")
            return
        }
        print("    answer (\(printed.lines) CSV line\(printed.lines == 1 ? "" : "s"), FNV-1a 64 \(printed.fnv1a64)):")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines.dropLast(text.hasSuffix("\n") ? 1 : 0) {
            print("      " + line)
        }
    }

    /// DuckDB's timings of a case, its ratio and whether the row counts agree.
    static func duckdbLine(_ duckdb: BenchDuckDBResult) -> String {
        let ratio = duckdb.ratio.map { String(format: "%.3g", $0) } ?? "n/a"
        let rows = duckdb.rowsReturned.map { $0.grouped } ?? "unknown"
        let agreement = duckdb.rowsAgree ? "rows agree (\(rows))" : "ROWS DIFFER: DuckDB \(rows)"
        let times = String(format: "    duckdb: median %.3f ms (min %.3f, max %.3f); ", duckdb.timing.medianMs,
                           duckdb.timing.minMs, duckdb.timing.maxMs)
        return times + "quakes/duckdb " + ratio + "; " + agreement
    }

    /// Samples as space-separated milliseconds.
    static func sampleList(_ samples: [Double]) -> String {
        samples.map { String(format: "%.3f", $0) }.joined(separator: " ")
    }

    /// A rate in three significant digits with an SI suffix.
    static func rate(_ value: Double) -> String {
        for (size, suffix) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= size {
            return String(format: "%.3g", value / size) + suffix
        }
        return String(format: "%.3g", value)
    }

    /// A double as CSV text.
    func number(_ value: Double) -> String { String(format: "%.6g", value) }

    /// A CSV cell, quoted when it must be.
    static func csvCell(_ text: String) -> String {
        guard text.contains(",") || text.contains("\"") || text.contains("\n") else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
