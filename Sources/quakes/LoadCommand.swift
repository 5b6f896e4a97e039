import ArgumentParser
import Foundation
import QuakeStore
import QuakeFormat
import QuakeInterchange
import QuakeTestSupport

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load USGS feed files (CSV or GeoJSON; plain, .gz or .zst; directories; - for stdin) as an upsert by event id."
    )

    @OptionGroup var store: StoreOptions

    @Option(help: "Partitioning of a new store: day, month or year (default month); an existing store keeps its own.")
    var partition: Partitioning?

    @Flag(help: "Fail the whole load, committing nothing, if any row or file is rejected.")
    var strict = false

    @Option(help: "Unit of integer times in GeoJSON feeds: s or ms (default: decided per file, with a warning).")
    var timeUnit: TimeUnit?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Option(help: "Write every rejected row (file:line: reason) to FILE; the terminal shows the first 100.")
    var rejects: String?

    @Argument(help: "Feed files or directories; - reads standard input.")
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one file, directory or -") }
    }

    func run() throws {
        let files = try Store.feedFiles(paths)
        let s = try Store.openOrCreate(path: store.path, partitioning: partition ?? .month)
        if let partition, partition != s.manifest.partitioning {
            throw ValidationError("--partition \(partition.rawValue): \(store.path) is partitioned by "
                + "\(s.manifest.partitioning.rawValue), which a store keeps for life; drop --partition or load into a new store")
        }
        var o = LoadOptions(strict: strict)
        o.timeUnit = timeUnit
        let shown = Counter()
        let rejectFile = try rejects.map { try RejectFile(path: $0) }
        o.onReject = { r in
            if shown.next() < LoadCommand.shownRejects { printError("rejected: " + ErrorMessage.flags("\(r)")) }
            rejectFile?.write(r)
        }
        o.onMessage = { printError(ErrorMessage.flags($0)) }
        let bar = stderrIsTerminal ? ProgressBar(total: LoadCommand.totalBytes(files)) : nil
        if let bar { o.onProgress = { bar.update($0) } }
        let summary: LoadSummary
        do { summary = try s.load(files, options: o) } catch let e as StoreError {
            bar?.clear()
            // the store is untouched: the snapshot before the load is still the committed one
            printError("quakes: \(ErrorMessage.line(e))" + (e.kind == .strict ? "" : "; nothing was committed"))
            throw ExitCode(1)
        } catch {
            bar?.clear()
            throw error
        }
        bar?.clear()
        try rejectFile?.finish()
        if shown.value > LoadCommand.shownRejects {
            let more = shown.value - LoadCommand.shownRejects
            printError(rejects.map { "rejected: … and \(more) more (all \(shown.value) are in \($0))" }
                ?? "rejected: … and \(more) more (use --rejects FILE for all)")
        }
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            print(String(decoding: try e.encode(summary), as: UTF8.self))
        } else {
            print(LoadCommand.describe(summary))
        }
        if summary.filesRejected > 0 || summary.rejected > 0 { throw ExitCode(1) }
    }

    /// Rejects printed on the terminal; the rest are counted, and all go to `--rejects FILE`.
    static let shownRejects = 100

    static func describe(_ s: LoadSummary) -> String {
        let secs = String(format: "%.2f", s.elapsedSeconds)
        return """
        files      \(s.files)\(s.filesRejected > 0 ? " (\(s.filesRejected) rejected)" : "")
        rows read  \(s.rowsRead)
        new        \(s.new)
        updated    \(s.updated)
        unchanged  \(s.unchanged)
        rejected   \(s.rejected)
        elapsed    \(secs) s  (\(Int(s.rowsPerSecond)) rows/s, \(String(format: "%.1f", s.megabytesPerSecond)) MB/s)
        \(s.committed ? "committed" : "nothing to commit")
        """
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
final class RejectFile: @unchecked Sendable {
    private let sink: OutputSink
    private let lock = NSLock()
    init(path: String) throws { sink = try OutputSink(path: path) }
    func write(_ r: Reject) { lock.lock(); sink.write(ErrorMessage.flags("\(r)") + "\n"); lock.unlock() }
    func finish() throws { lock.lock(); defer { lock.unlock() }; try sink.finish() }
}

/// A thread-safe counter for callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value = 0
    func next() -> Int { lock.lock(); defer { value += 1; lock.unlock() }; return value }
}

extension Partitioning: ExpressibleByArgument {}

extension TimeUnit: ExpressibleByArgument {}
