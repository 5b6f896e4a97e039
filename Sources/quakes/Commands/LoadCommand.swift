import ArgumentParser
import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeInterchange

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", _superCommandName: "quakes",
        abstract: "Load USGS feed files (CSV or GeoJSON; plain, .gz or .zst; directories; - for stdin) as an upsert by event id."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions

    @Option(help: "Partitioning of a new store: day, month or year (default month); an existing store keeps its own.")
    var partition: Partitioning?

    @Flag(help: "Fail the whole load, committing nothing and exiting 1, if any row or file is rejected.")
    var strict = false

    @Option(help: "Unit of integer times in GeoJSON feeds: s or ms (default: decided per file, with a warning).")
    var timeUnit: TimeUnit?

    @Option(help: ArgumentHelp("Read CSV times that are not ISO 8601 with this strptime pattern, as DuckDB's: "
        + "%Y %y %m %d %b %H %I %M %S %f %p %z %T (e.g. '%d-%m-%y %H:%M'); %y reads 00-68 as 20xx, 69-99 as 19xx; "
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
        do { return try TimeFormat(timeFormat) } catch { throw ValidationError("--time-format: \(LoadCommand.text(error))") }
    }

    private static func text(_ e: TimeFormat.Error) -> String {
        switch e { case .badPattern(let s): return s }
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
        let target = opened.store, lock = opened.lock
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
        var o = LoadOptions(strict: strict)
        o.timeUnit = timeUnit
        o.timeFormat = try parsedTimeFormat()
        o.fixText = fixText
        let report = RejectReport()
        let rejectFile = try rejects.map { try RejectFile(path: $0) }
        o.onReject = { r in
            report.add(r)
            rejectFile?.write(r)
        }
        o.onMessage = { printError($0) }
        o.optionNames = ErrorMessage.optionNames
        o.isCancelled = { interrupt.fired }
        o.writerLock = lock
        let bar = stderrIsTerminal ? ProgressBar(total: LoadCommand.totalBytes(files)) : nil
        if let bar { o.onProgress = { bar.update($0) } }
        let summary: LoadSummary
        do { summary = try target.load(paths, options: o) } catch let e as QuakeError {
            bar?.clear()
            try? rejectFile?.finish()
            if e.kind == .interrupted {
                printError("quakes: interrupted; nothing committed")
                throw ExitCode(interrupt.exitStatus)
            }
            for line in report.lines(LoadSummary(), rejectsFile: rejects) { printError(line) }
            // the store is untouched: the snapshot before the load is still the committed one
            printError("quakes: \(ErrorMessage.line(e))" + (e.kind == .strict ? "" : "; nothing was committed"))
            throw ExitCode(1)
        } catch {
            bar?.clear()
            throw error
        }
        bar?.clear()
        try rejectFile?.finish()
        for line in report.lines(summary, rejectsFile: rejects) { printError(line) }
        let loadedNothing = summary.files > 0 && summary.filesRejected == summary.files
        keepNewStore = summary.committed || !loadedNothing
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            print(String(decoding: try e.encode(summary), as: UTF8.self))
        } else {
            print(LoadCommand.describe(summary))
            if verbose { print(LoadCommand.fileTable(summary)) }
        }
        if loadedNothing {
            printError("quakes: nothing loaded: " + (summary.files == 1 ? "the file was rejected" : "every file was rejected")
                + (summary.committed ? "" : "; nothing was committed"))
            throw ExitCode(1)
        }
    }

    static func describe(_ s: LoadSummary) -> String {
        let secs = String(format: "%.2f", s.elapsedSeconds)
        func n(_ v: Int) -> String { v.formatted() }
        let width = [s.rowsRead, s.rejected, s.duplicates, s.new, s.updated, s.unchanged].map { n($0).count }.max() ?? 1
        func row(_ label: String, _ v: Int, _ note: String = "") -> String {
            label.padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(repeating: " ", count: width - n(v).count) + n(v) + note
        }
        return [
            "files         \(s.files)\(s.filesRejected > 0 ? " (\(s.filesRejected) loaded nothing)" : "")",
            row("rows read", s.rowsRead, "  = rejected + duplicates + new + updated + unchanged"),
            row("  rejected", s.rejected),
            row("  duplicates", s.duplicates, s.duplicates > 0 ? "  (older or repeated versions within this load)" : ""),
            row("  new", s.new),
            row("  updated", s.updated),
            row("  unchanged", s.unchanged),
            "elapsed       \(secs) s  (\(Int(s.rowsPerSecond)) rows/s, \(String(format: "%.1f", s.megabytesPerSecond)) MB/s)",
            s.committed ? "committed" : "nothing to commit",
        ].joined(separator: "\n")
    }

    /// `--verbose`: one line per input file.
    static func fileTable(_ s: LoadSummary) -> String {
        let rows = s.perFile.map { f -> [String] in
            let status = f.error.map { "skipped: " + $0 } ?? (f.loadedNothing ? "every row rejected"
                : f.repairedText > 0 ? "\(f.repairedText) texts repaired"
                : f.garbledText > 0 ? "\(f.garbledText) garbled texts" : "loaded")
            return [DisplayPath.relative(f.path), f.rows.formatted(), f.rejected.formatted(), f.bytes.formatted(), status]
        }
        let header = ["file", "rows", "rejected", "bytes", "status"]
        var widths = header.map(\.count)
        for r in rows { for (k, c) in r.enumerated() where k < 4 { widths[k] = max(widths[k], c.count) } }
        func line(_ r: [String]) -> String {
            r.enumerated().map { k, c in
                k == 4 ? c : k == 0 ? c.padding(toLength: widths[k], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[k] - c.count) + c
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func totalBytes(_ paths: [String]) -> Int? {
        var total = 0
        for p in paths {
            if p == "-" { return nil }
            guard let e = FileManager.default.enumerator(atPath: p) else {
                total += (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0
                continue
            }
            var any = false
            while let f = e.nextObject() as? String {
                any = true
                total += (try? FileManager.default.attributesOfItem(atPath: p + "/" + f)[.size] as? Int) ?? 0
            }
            if !any { total += (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0 }
        }
        return total
    }
}

/// `--rejects FILE`: every reject, one per line, written from the loader's threads.
final class RejectFile: Sendable {
    /// The file: each thread writes whole lines to it under the lock.
    private let sink: Exclusive<OutputSink>
    init(path: String) throws { sink = Exclusive(try OutputSink(path: path)) }
    func write(_ r: Reject) { sink.locked { $0.write("\(r)\n") } }
    func finish() throws { try sink.locked { (s) throws(QuakeError) in try s.finish() } }
}

extension Partitioning: ExpressibleByArgument {}

extension TimeUnit: ExpressibleByArgument {}
