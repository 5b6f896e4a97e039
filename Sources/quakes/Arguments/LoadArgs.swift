import ArgumentParser
import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeInterchange

/// `quakes load`'s values as plain values, and the load they run: ArgumentParser fills them
/// through ``LoadCommand``, the fast path (``FastPath``) from a plain command line.
struct LoadArgs: Equatable {
    var store = StoreArgs()
    var wait: LockWait = .never
    var partition: Partitioning?
    var strict = false
    var timeUnit: TimeUnit?
    var timeFormat: String?
    var fixText = false
    var json = false
    var verbose = false
    var rejects: String?
    var paths: [String] = []

    /// Every check ArgumentParser runs on the command line.
    func validateAll() throws {
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
            throw ValidationError("--time-format: \(Self.text(error))")
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
                                              blockRows: Manifest.defaultBlockRows, wait: wait,
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
}
