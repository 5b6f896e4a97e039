import ArgumentParser
import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeInterchange

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", _superCommandName: "quakes",
        abstract: "Load USGS feed files (CSV or GeoJSON; plain, .gz or .zst; directories; - for stdin) "
            + "as an upsert by event id."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions

    @Option(help: ArgumentHelp("Partitioning of a new store: day, month or year (default month); "
        + "an existing store keeps its own."))
    var partition: Partitioning?

    @Flag(help: "Fail the whole load, committing nothing and exiting 1, if any row or file is rejected.")
    var strict = false

    @Option(help: ArgumentHelp("Unit of integer times in GeoJSON feeds: s or ms "
        + "(default: decided per file, with a warning)."))
    var timeUnit: TimeUnit?

    @Option(help: ArgumentHelp("Read CSV times that are not ISO 8601 with this strptime pattern, as DuckDB's: "
        + "%Y %y %m %d %b %H %I %M %S %f %p %z %T (e.g. '%d-%m-%y %H:%M'); "
        + "%y reads 00-68 as 20xx, 69-99 as 19xx; "
        + "ISO 8601 times still load.", valueName: "pattern"))
    var timeFormat: String?

    @Flag(help: "Repair double-encoded UTF-8 text (mojibake such as 'SerdÃ¡n' for 'Serdán') while loading.")
    var fixText = false

    @Flag(help: "Print the summary as JSON (with a per-file breakdown).")
    var json = false

    @Flag(name: .shortAndLong, help: "Print a per-file table under the summary.")
    var verbose = false

    @Option(help: "Write every rejected row (file:line: reason) to FILE; the terminal shows the first 100.")
    var rejects: String?

    @Argument(help: "Feed files or directories; - reads standard input.")
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one file, directory or -") }
        if let url = paths.first(where: InputFiles.isURL) {
            throw ValidationError("'\(url)' is a URL, and load reads local files: 'quakes sync \(url)' keeps "
                + "the store current with it, or download it (curl -fLO '\(url)') and load that file")
        }
        _ = try parsedTimeFormat()
    }

    private func parsedTimeFormat() throws -> TimeFormat? {
        guard let timeFormat else { return nil }
        do {
            return try TimeFormat(timeFormat)
        } catch {
            throw ValidationError("--time-format: \(LoadCommand.text(error))")
        }
    }

    private static func text(_ error: TimeFormat.Error) -> String {
        switch error { case .badPattern(let pattern): return pattern }
    }

    /// Exit status: 0 when the load committed (or found nothing new), rejects or not; 1 when
    /// nothing could be loaded (every file or every row rejected), with `--strict` on any reject,
    /// when another writer holds the store's lock, and on data or I/O errors; 130 when
    /// interrupted. Nothing is committed unless it exits 0.
    func run() throws {
        let files = try Store.feedFiles(paths)
        let interrupt = Interrupt.install()
        defer { interrupt.uninstall() }
        let createdDirectory = !FileIO.exists(store.path)
        // the writer lock first: a load refused by another writer has touched nothing
        let opened = try Store.openForWriting(path: store.path, partitioning: partition ?? .month,
                                              blockRows: Manifest.defaultBlockRows, wait: wait.lockWait,
                                              cancelled: { interrupt.fired })
        let target = opened.store
        let lock = opened.lock
        // a load that commits nothing to a store it created leaves no store behind
        var keepNewStore = false
        defer {
            if opened.created && !keepNewStore { target.discardNew(removingDirectory: createdDirectory, lock: lock) }
            withExtendedLifetime(lock) {}
        }
        if let partition, partition != target.manifest.partitioning {
            throw ValidationError("--partition \(partition.rawValue): \(store.path) is partitioned by "
                + "\(target.manifest.partitioning.rawValue), which a store keeps for life; drop --partition or load "
                + "into a new store")
        }
        let parsedFormat = try parsedTimeFormat()
        let report = RejectReport()
        let rejectFile = try rejects.map { try RejectFile(path: $0) }
        let bar = stderrIsTerminal ? ProgressBar(total: LoadCommand.totalBytes(files)) : nil
        var options = loadOptions(timeFormat: parsedFormat, report: report, rejectFile: rejectFile, bar: bar,
                                  interrupt: interrupt, lock: lock)
        // one file rejected whole is told in the one line that ends the load; of several, each as it comes
        let tellsSkipsAtTheEnd = files.count == 1
        options.onFileSkipped = { error in
            if tellsSkipsAtTheEnd {
                report.skip(error)
            } else {
                printError("error: \(error); file skipped, nothing from it is loaded")
            }
        }
        let summary: LoadSummary
        do { summary = try target.load(paths, options: options) } catch let error as QuakeError {
            bar?.clear()
            try? rejectFile?.finish()
            try loadFailed(error, report: report, interrupt: interrupt)
        } catch {
            bar?.clear()
            throw error
        }
        bar?.clear()
        try rejectFile?.finish()
        for line in report.lines(summary, rejectsFile: rejects) { printError(line) }
        let loadedNothing = summary.files > 0 && summary.filesRejected == summary.files
        keepNewStore = summary.committed || !loadedNothing
        // a table of zeros adds nothing to the line that says why
        if !loadedNothing || json || verbose { try printSummary(summary) }
        if loadedNothing {
            printError("quakes: nothing loaded: " + LoadCommand.whyNothing(summary, skipped: report.skippedFiles)
                + (summary.committed ? "" : "; nothing was committed"))
            throw ExitCode(1)
        }
    }

    /// Why a load loaded nothing: the one file's error, or that every file or row was rejected.
    static func whyNothing(_ summary: LoadSummary, skipped: [QuakeError]) -> String {
        if summary.files == 1, let error = skipped.first { return "\(error)" }
        if summary.files == 1 { return "every row of the file was rejected" }
        let whole = summary.perFile.filter { $0.error != nil }.count
        if whole == summary.files { return "every file was rejected" }
        if whole == 0 { return "every row of every file was rejected" }
        return "\(whole) of the \(summary.files) files were rejected whole, and every row of the rest"
    }

    /// The load's options: the command's flags, rejects to `report` and `rejectFile`, progress to
    /// `bar`, cancellation by `interrupt`.
    private func loadOptions(timeFormat: TimeFormat?, report: RejectReport, rejectFile: RejectFile?,
                             bar: ProgressBar?, interrupt: Interrupt, lock: StoreLock) -> LoadOptions {
        var options = LoadOptions(strict: strict)
        options.timeUnit = timeUnit
        options.timeFormat = timeFormat
        options.fixText = fixText
        options.onReject = { reject in
            report.add(reject)
            rejectFile?.write(reject)
        }
        options.onMessage = { printError($0) }
        options.optionNames = ErrorMessage.optionNames
        options.isCancelled = { interrupt.fired }
        options.writerLock = lock
        if let bar { options.onProgress = { bar.update($0) } }
        return options
    }

    /// A load that failed: the rejects so far and the error, then the exit status.
    private func loadFailed(_ error: QuakeError, report: RejectReport, interrupt: Interrupt) throws -> Never {
        if error.kind == .interrupted {
            printError("quakes: interrupted; nothing committed")
            throw ExitCode(interrupt.exitStatus)
        }
        for line in report.lines(LoadSummary(), rejectsFile: rejects) { printError(line) }
        // the store is untouched: the snapshot before the load is still the committed one
        printError("quakes: \(ErrorMessage.line(error))" + (error.kind == .strict ? "" : "; nothing was committed"))
        throw ExitCode(1)
    }

    /// The summary on standard output: JSON, or the table (and with `--verbose` the files').
    private func printSummary(_ summary: LoadSummary) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(LoadCommand.describe(summary))
            if verbose { print(LoadCommand.fileTable(summary)) }
        }
    }

    static func describe(_ summary: LoadSummary) -> String {
        let secs = summary.elapsedSeconds.fixed(2)
        let megabytes = summary.megabytesPerSecond.fixed(1)
        func n(_ count: Int) -> String { count.grouped }
        let counts = [summary.rowsRead, summary.rejected, summary.duplicates, summary.new, summary.updated,
                      summary.unchanged, summary.deleted]
        let width = counts.map { n($0).count }.max() ?? 1
        func row(_ label: String, _ count: Int, _ note: String = "") -> String {
            label + String(repeating: " ", count: Swift.max(1, 14 - label.count))
                + String(repeating: " ", count: width - n(count).count) + n(count) + note
        }
        let deleted = summary.deleted > 0
            ? [row("deleted", summary.deleted, "  (of the new and updated: events their source deleted)")] : []
        let filesRejected = summary.filesRejected > 0 ? " (\(summary.filesRejected) loaded nothing)" : ""
        let duplicatesNote = summary.duplicates > 0 ? "  (older or repeated versions within this load)" : ""
        let counted: [String] = [
            "files         \(summary.files)\(filesRejected)",
            row("rows read", summary.rowsRead, "  = rejected + duplicates + new + updated + unchanged"),
            row("  rejected", summary.rejected),
            row("  duplicates", summary.duplicates, duplicatesNote),
            row("  new", summary.new),
            row("  updated", summary.updated),
            row("  unchanged", summary.unchanged),
        ]
        let ended = [
            "elapsed       \(secs) s  (\(Int(summary.rowsPerSecond).grouped) rows/s, \(megabytes) MB/s)",
            summary.committed ? "committed" : "nothing to commit",
        ]
        return (counted + deleted + ended).joined(separator: "\n")
    }

    /// `--verbose`: one line per input file.
    static func fileTable(_ summary: LoadSummary) -> String {
        let rows = summary.perFile.map { file -> [String] in
            let status = file.error.map { "skipped: " + $0 } ?? (file.loadedNothing ? "every row rejected"
                : file.repairedText > 0 ? "\(file.repairedText) texts repaired"
                : file.garbledText > 0 ? "\(file.garbledText) garbled texts" : "loaded")
            return [DisplayPath.relative(file.path), file.rows.grouped, file.rejected.grouped,
                    file.bytes.grouped, status]
        }
        let header = ["file", "rows", "rejected", "bytes", "status"]
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < 4 { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 4 ? cell : column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func totalBytes(_ paths: [String]) -> Int? {
        var total = 0
        for path in paths {
            if path == "-" { return nil }
            guard let entries = FileManager.default.enumerator(atPath: path) else {
                total += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                continue
            }
            var any = false
            while let entry = entries.nextObject() as? String {
                any = true
                total += (try? FileManager.default.attributesOfItem(atPath: path + "/" + entry)[.size] as? Int) ?? 0
            }
            if !any { total += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        }
        return total
    }
}

/// `--rejects FILE`: every reject, one per line, written from the loader's threads.
final class RejectFile: Sendable {
    /// The file: each thread writes whole lines to it under the lock.
    private let sink: Exclusive<OutputSink>
    init(path: String) throws { sink = Exclusive(try OutputSink(path: path)) }
    func write(_ reject: Reject) { sink.locked { $0.write("\(reject)\n") } }
    func finish() throws { try sink.locked { (output) throws(QuakeError) in try output.finish() } }
}

extension Partitioning: ExpressibleByArgument {}

extension TimeUnit: ExpressibleByArgument {}
