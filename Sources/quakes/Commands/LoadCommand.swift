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

    /// The values parsed, as a plain value (``LoadArgs``, which the fast path fills too).
    var args: LoadArgs {
        LoadArgs(store: store.args, wait: wait.lockWait, partition: partition, strict: strict, timeUnit: timeUnit,
                 timeFormat: timeFormat, fixText: fixText, json: json, verbose: verbose, rejects: rejects,
                 paths: paths)
    }

    func validate() throws { try args.validateAll() }

    /// The load and its exit status (``LoadArgs/run()``).
    func run() throws { try args.run() }

    /// Why a load loaded nothing: the one file's error, or that every file or row was rejected.
    static func whyNothing(_ summary: LoadSummary, skipped: [QuakeError]) -> String {
        if summary.files == 1, let error = skipped.first { return "\(error)" }
        if summary.files == 1 { return "every row of the file was rejected" }
        let whole = summary.perFile.filter { $0.error != nil }.count
        if whole == summary.files { return "every file was rejected" }
        if whole == 0 { return "every row of every file was rejected" }
        return "\(whole) of the \(summary.files) files were rejected whole, and every row of the rest"
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
