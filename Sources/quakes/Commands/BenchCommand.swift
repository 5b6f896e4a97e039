import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", _superCommandName: "quakes",
        abstract: "Time queries, counts, aggregates and sections on a store, optionally beside DuckDB.",
        discussion: """
        Each case runs once to warm up, then --runs timed times: every sample, min, median, p95, max and \
        mean ± sd (ms); rows scanned and answered from statistics, rows returned, bytes of the columns read; \
        rows/s = rows scanned / median and MB/s = bytes read / median for every case. With --rows, generates \
        that many events into a temporary directory, loads them (timed) and runs the suite on the result. \
        With --queries FILE, runs one command line per line instead: 'query …', 'count …', 'agg …', \
        'sections …' as the CLI takes them (a leading 'quakes' allowed; '#' comments and blank lines skipped), \
        or 'open --day D' (open the store and plan, no scan). --compare duckdb runs each case's SQL in the \
        DuckDB CLI over a Parquet export of the store.
        """
    )

    @Option(help: "Store to benchmark (default: $QUAKES_STORE, else ./quakes.store).") var store: String?
    @Option(help: "Generate and load this many events first (e.g. 1M, 10M).") var rows: String?
    @Option(help: "Timed runs per case (after one warm-up).") var runs: Int = 5
    @Option(help: "A file of command lines, one case per line.") var queries: String?
    @Flag(help: "Drop the store's files from the page cache before each timed run (posix_fadvise).") var cold = false
    @Flag(name: .customLong("print"), help: "Show each case's answer once, as CSV (or its line count and hash).")
    var printAnswers = false
    @Option(help: "Also run each case in this engine: duckdb.") var compare: String?
    @Option(help: "The DuckDB CLI for --compare duckdb (default: duckdb on PATH).") var duckdb: String?
    @Flag(help: "Report each column's codecs, size and decode/encode speed instead.") var codecs = false
    @Option(help: "Day for the day queries (default: a day in the middle of the data).") var day: String?
    @Option(help: "Year for the year queries (default: the year of --day).") var year: Int?
    @Option(help: "Locality for the day map search.") var locality: String = "Alaska"
    @Option(help: "Country for the place search.") var country: String = "Chile"
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print CSV: one row per case, the run's facts repeated on each.") var csv = false

    func validate() throws {
        if let rows, GenerateCommand.count(rows) == nil { throw ValidationError("--rows: expected a count like 1M") }
        if runs < 1 { throw ValidationError("--runs must be >= 1") }
        if runs > 100_000 { throw ValidationError("--runs: at most 100,000") }
        if let day, DateParsing.parse(day) == nil { throw ValidationError("--day: expected YYYY-MM-DD") }
        if json && csv { throw ValidationError("--json and --csv: choose one") }
        if let compare, compare != "duckdb" { throw ValidationError("--compare: only duckdb, not '\(compare)'") }
        if duckdb != nil && compare == nil { throw ValidationError("--duckdb goes with --compare duckdb") }
        if codecs && (compare != nil || queries != nil || printAnswers || cold || csv) {
            throw ValidationError("--codecs reports codecs alone; drop --compare, --queries, --print, --cold, --csv")
        }
    }

    func run() throws {
        if codecs {
            try printCodecs()
            return
        }
        let engine = try compare.map { _ in try DuckDBRunner.locate(explicit: duckdb) }
        var loadNote: String?
        let opened: Store
        var scratch: String?
        if let rows, let count = GenerateCommand.count(rows) {
            let directory = NSTemporaryDirectory() + "quakes-bench-\(getpid())"
            scratch = directory
            let generated = try generateAndLoad(count, into: directory)
            opened = generated.store
            loadNote = generated.note
        } else {
            opened = try Store(path: Store.defaultPath(explicit: store))
        }
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        let cases = try queries.map { try BenchCommand.cases(fromFile: $0, store: opened) }
            ?? standardCases(opened)
        if engine != nil { try BenchCommand.checkTranslations(cases) }
        var meta = BenchMeta(version: Quakes.configuration.version, store: opened.path, storeRows: opened.manifest.rows,
                             cores: FileIO.processorCount(), date: ISO8601DateFormatter().string(from: Date()),
                             runs: runs, cache: "warm")
        meta.load = loadNote
        let prepare = try coldPreparation(opened, meta: &meta)
        var results: [BenchResult] = []
        for benchCase in cases {
            do {
                var result = try BenchRunner.measure(benchCase, runs: runs, beforeEachRun: prepare)
                if printAnswers { result.printed = BenchPrinted(csv: try benchCase.printed()) }
                results.append(result)
            } catch let error as QuakeError {
                throw BenchCommand.located(error, benchCase)
            }
        }
        if let engine {
            meta.duckdb = DuckDBRunner.timingNote(engine)
            try DuckDBRunner(executable: engine, runs: runs).compare(opened, cases: cases, results: &results)
        }
        let report = BenchReport(meta: meta, cases: results)
        if json { try printJSON(report) } else if csv { printCSV(report) } else { printTable(report) }
    }

    /// What to run before each timed run: nothing (warm), or dropping the store from the page
    /// cache; notes in `meta` which, or why cold runs are not available.
    private func coldPreparation(_ opened: Store, meta: inout BenchMeta) throws -> () throws -> Void {
        guard cold else { return {} }
        if let reason = FileIO.pageCacheDropUnavailableReason {
            meta.cache = "cold: not available here: \(reason); runs are warm"
            return {}
        }
        let files: Int
        do throws(QuakeError) {
            files = try opened.dropFromPageCache()
        } catch {
            meta.cache = "cold: not available here: \(ErrorMessage.line(error)); runs are warm"
            return {}
        }
        meta.cache = "cold: before each timed run, the store's partition readers dropped (files unmapped) and "
            + "posix_fadvise(POSIX_FADV_DONTNEED) on its \(files) files"
        return { _ = try opened.dropFromPageCache() }
    }

    /// Generates `count` events under `directory`, loads them (timed) and returns the store.
    private func generateAndLoad(_ count: Int, into directory: String) throws -> (store: Store, note: String) {
        var options = GeneratorOptions(rows: count)
        options.overlap = 0
        let files = try FeedGenerator.generate(options, into: directory + "/feed")
        let bytes = files.reduce(0) { total, file in total + FileIO.size(file) }
        let created = try Store.openOrCreate(path: directory + "/store")
        let start = BenchRunner.now()
        let summary = try created.load([directory + "/feed"])
        let seconds = Double(BenchRunner.now() - start) / 1e9
        let elapsed = max(seconds, 1e-9)
        let rates = String(format: " (CSV %.1f MB) in %.2f s: %.0f rows/s, %.1f MB/s; store ", Double(bytes) / 1e6,
                           seconds, Double(summary.rowsRead) / elapsed, Double(bytes) / 1e6 / elapsed)
        let note = "loaded \(summary.new) rows" + rates + "\(try created.info().diskBytes) bytes"
        return (created, note)
    }

    /// The standard suite, as command lines (each case is named by its line).
    private func standardCases(_ opened: Store) throws -> [BenchCase] {
        let partitions = opened.manifest.partitions
        let middle = partitions.isEmpty ? 0 : partitions[partitions.count / 2].minTime + 14 * 86_400_000
        let chosenDay = day ?? String(Timestamp.string(middle).prefix(10))
        let chosenYear = year ?? Int(chosenDay.prefix(4)) ?? 2024
        let lines = BenchCommand.standardLines(rows: opened.manifest.rows, day: chosenDay, year: chosenYear,
                                               locality: locality, country: country)
        return try lines.map { line in
            do {
                return try BenchCommand.benchCase(line: line, store: opened)
            } catch let error as ValidationError {
                throw ValidationError("standard case '\(line)': \(error.description)")
            }
        }
    }

    /// The quake-browser workload: day map, day list page, counts, top-N, aggregates, deep
    /// paging, substring search, box. The deep page's offset is half the rows, at most 1,000,000.
    static func standardLines(rows: Int, day: String, year: Int, locality: String, country: String) -> [String] {
        let page = "--fields time,mag,place,id"
        let deepOffset = min(1_000_000, rows / 2)
        let yearStart = String(format4: year) + "-01-01"
        let yearEnd = String(format4: year + 1) + "-01-01"
        return [
            "query --day \(day) --place \(quotedWord(locality)) --sort mag:desc \(page)",
            "query --day \(day) --sort time:desc --offset 100 --limit 50 \(page)",
            "count --min-mag 4.5",
            "query --place \(quotedWord(country)) --sort mag:desc --limit 100 \(page)",
            "agg --from \(yearStart) --to \(yearEnd) --by month --metrics 'count,avg(mag),max(mag)'",
            "agg --by net --metrics 'count,avg(mag),max(depth)'",
            "query --sort time:desc --offset \(deepOffset) --limit 100 \(page)",
            "count --place-like california",
            "query --from \(yearStart) --to \(yearEnd) --sort mag:desc --limit 10 \(page)",
            "count --bbox 32,42,-125,-114 --min-mag 2",
        ]
    }

    /// A word quoted for ``shellWords(_:)``.
    static func quotedWord(_ text: String) -> String {
        text.contains("'") ? "\"\(text)\"" : "'\(text)'"
    }

    /// `error`, said to come from `benchCase` (its file and line, when it came from one).
    static func located(_ error: QuakeError, _ benchCase: BenchCase) -> QuakeError {
        // the detail holds the whole first error, its system reason included
        let detail = "case '\(benchCase.name)': \(ErrorMessage.line(error))"
        guard let origin = benchCase.origin else { return QuakeError(error.kind, detail: detail) }
        return QuakeError(error.kind, path: origin.path, position: .line(origin.line), detail: detail)
    }

    /// Throws, naming the case, when a case that DuckDB should run has no SQL translation.
    static func checkTranslations(_ cases: [BenchCase]) throws {
        for benchCase in cases where benchCase.kind != "open" {
            if case .failure(let error) = benchCase.sql {
                throw QuakeError(.unsupported, path: benchCase.origin?.path,
                                 position: benchCase.origin.map { .line($0.line) },
                                 detail: "--compare duckdb: case '\(benchCase.name)': \(error.detail)")
            }
        }
    }
}
