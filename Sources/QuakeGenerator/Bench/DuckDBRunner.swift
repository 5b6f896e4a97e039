import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// Runs benchmark cases' SQL in the DuckDB CLI over a Parquet export of the store: one CLI
/// process per case, reading a script on standard input that counts the answer's rows, then
/// runs the case's SQL once to warm up and `runs` times with `.timer on`, output discarded
/// (`.mode trash`). Each statement's "Run Time (s): real …" line is a sample.
package struct DuckDBRunner: Sendable {
    /// The CLI: a path, or a name found on `PATH`.
    package let executable: String
    /// Timed runs per case (after one warm-up).
    package let runs: Int

    /// A runner of `executable`, timing `runs` runs per case.
    package init(executable: String, runs: Int) {
        self.executable = executable
        self.runs = runs
    }

    /// The DuckDB CLI: `explicit` when given (it must be an executable file), else `duckdb` on
    /// `PATH`. Throws ``QuakeError/Kind/unsupported`` saying which is missing.
    package static func locate(explicit: String?) throws(QuakeError) -> String {
        if let explicit {
            guard FileManager.default.isExecutableFile(atPath: explicit) else {
                throw QuakeError(.unsupported, path: explicit, detail: "--duckdb: no executable DuckDB CLI here")
            }
            return explicit
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in searchPath.split(separator: ":") {
            let candidate = String(directory) + "/duckdb"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw QuakeError(.unsupported, detail: "--compare duckdb: DuckDB is not installed (no duckdb on PATH); "
            + "install the DuckDB CLI or pass --duckdb PATH")
    }

    /// How the samples are taken, for the report.
    package static func timingNote(_ executable: String) -> String {
        "\(executable), one process per case: '.timer on' real time of each statement (1 warm-up, then the runs), "
            + "output discarded (.mode trash), over a view of the store's Parquet export (one file, zstd); "
            + "rows counted with count(*) over the case's SQL"
    }

    /// Exports the store to Parquet in a temporary directory, runs each case that has SQL and
    /// fills its result's ``BenchResult/duckdb``; removes the export after.
    package func compare(_ store: Store, cases: [BenchCase], results: inout [BenchResult]) throws {
        let directory = NSTemporaryDirectory() + "quakes-bench-duckdb-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileIO.makeDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let parquet = directory + "/parquet"
        _ = try store.exportParquet(to: parquet, layout: .none)
        for (index, benchCase) in cases.enumerated() where index < results.count {
            guard case .success(let sql) = benchCase.sql else { continue }
            let (rows, samples) = try run(sql, kind: benchCase.kind, parquet: parquet, scratch: directory,
                                          caseName: benchCase.name)
            results[index].duckdb = BenchDuckDBResult(samplesMs: samples, rowsReturned: rows,
                                                      quakesRows: results[index].rowsReturned,
                                                      quakesMedianMs: results[index].timing.medianMs)
        }
    }

    /// The CLI's script for one case.
    package func script(_ sql: String, kind: String, parquet: String) -> String {
        let source = BenchSQL.literal(parquet + "/**/*.parquet")
        var text = "SET TimeZone = 'UTC';\n"
        text += "CREATE VIEW \(BenchSQL.table) AS SELECT * FROM read_parquet(\(source));\n"
        text += ".mode csv\n.headers off\n"
        text += (kind == "count" ? sql : "SELECT count(*) FROM (\(sql))") + ";\n"
        text += ".mode trash\n.timer on\n"
        for _ in 0...runs { text += sql + ";\n" }
        return text
    }

    /// Runs one case: DuckDB's row count (a count's value) and the timed samples in ms.
    private func run(_ sql: String, kind: String, parquet: String, scratch: String,
                     caseName: String) throws -> (Int?, [Double]) {
        let scriptPath = scratch + "/case.sql"
        let outputPath = scratch + "/case.out"
        let errorPath = scratch + "/case.err"
        try FileIO.writeFile(scriptPath, Array(script(sql, kind: kind, parquet: parquet).utf8))
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-bail"]
        guard let input = FileHandle(forReadingAtPath: scriptPath),
              let output = FileHandle(forWritingAtPath: outputPath),
              let errors = FileHandle(forWritingAtPath: errorPath) else {
            throw QuakeError(.io, path: scratch, detail: "cannot open the DuckDB script's files")
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw QuakeError(.io, path: executable, detail: "cannot run DuckDB: \(error)")
        }
        process.waitUntilExit()
        try? input.close()
        try? output.close()
        try? errors.close()
        let printed = String(decoding: try FileIO.readFile(outputPath), as: UTF8.self)
        let complaint = String(decoding: try FileIO.readFile(errorPath), as: UTF8.self)
        let parsed = DuckDBRunner.parse(printed)
        guard process.terminationStatus == 0, parsed.samples.count == runs + 1 else {
            let said = complaint.split(whereSeparator: \.isNewline).first
                ?? printed.split(whereSeparator: \.isNewline).first
            let reason = "exit \(process.terminationStatus), \(parsed.samples.count) of \(runs + 1) timer lines"
                + (said.map { ": " + $0 } ?? "")
            throw QuakeError(.unsupported, path: executable,
                             detail: "DuckDB failed on case '\(caseName)': \(reason)")
        }
        return (parsed.rows, Array(parsed.samples.dropFirst()))
    }

    /// The row count (the first line that is not a timer line) and each timer line's real
    /// time in ms, from the CLI's standard output.
    package static func parse(_ printed: String) -> (rows: Int?, samples: [Double]) {
        let marker = "Run Time (s): real "
        var rows: Int?
        var samples: [Double] = []
        // CSV mode ends lines with CR LF, one Character: split on any line break
        for line in printed.split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix(marker) {
                let value = text.dropFirst(marker.count).split(separator: " ").first.flatMap { Double($0) }
                if let value { samples.append(value * 1000) }
            } else if rows == nil, !text.isEmpty {
                rows = Int(text.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        return (rows, samples)
    }
}
