import QuakeSupport
import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeSync

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", _superCommandName: "quakes",
        abstract: "Bring the store up to date with an FDSN event service or a USGS summary feed.",
        discussion: """
            SOURCE is an FDSN event service (https://earthquake.usgs.gov/fdsnws/event/1/, another
            'quakes serve', any fdsnws-event service) or a summary feed file (.../summary/all_hour.geojson).
            A first sync from a service counts, splits the window into pieces under the service's
            limit and commits each piece; later syncs ask only for what changed (updatedafter). A feed
            is fetched with a conditional GET. The cursor is committed with the data: a killed sync
            resumes where it stopped. Events the source deleted are kept as tombstones, left out of
            every answer unless --include-deleted is given. 'quakes info' shows each source's cursor.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions
    @OptionGroup var filters: SyncFilterOptions
    @Option(help: "Repeat every DURATION (30s, 5m, 1h) until Ctrl-C, printing one line per round.")
    var every: String?
    @Flag(help: "With --every, print each round's whole summary, not one line.") var verbose = false
    @Flag(name: .customLong("dry-run"), help: "Print the plan (the count, the pieces, the URLs) and fetch nothing.")
    var dryRun = false
    @Option(help: "A feed's gap: fill it from this FDSN event service (events updated since the last sync).")
    var backfill: String?
    @Option(help: "Format of the pieces from a service: geojson (every field) or csv (22 fields).")
    var format: SyncOptions.PieceFormat = .geojson
    @Option(help: "Attempts per request, retries included (5xx, 429, resets, damaged bodies).") var attempts = 5
    @Option(help: "Seconds before a stalled body is given up.") var timeout = 30.0
    @Option(name: .customLong("retry-delay"),
            help: "Seconds before the first retry; each next one waits twice as long, with jitter (Retry-After wins).")
    var retryDelay = 1.0
    @Option(name: .customLong("commit-bytes"),
            help: "Commit downloaded pieces together once they pass this many bytes (default 256 MB; 1 commits each).")
    var commitBytes: Int?
    @Option(help: "Partitioning of a new store: day, month or year (default month).") var partition: Partitioning?
    @Option(name: .customLong("time-unit"),
            help: "Unit of integer times in the source's GeoJSON: s or ms (default: decided per answer).")
    var timeUnit: TimeUnit?
    @Argument(help: "The FDSN event service's base URL, or a summary feed's URL.") var source: String

    func validate() throws {
        _ = try parsedSource()
        if let every { _ = try Self.seconds(every) }
        if let backfill {
            guard case .fdsn? = try? SyncSource(url: backfill) else {
                throw ValidationError("--backfill: an FDSN event service URL (ending in /fdsnws/event/1/)")
            }
            guard case .feed = try parsedSource() else { throw ValidationError("--backfill is for a summary feed") }
        }
        if case .feed = try parsedSource(), !filters.isEmpty || format != .geojson {
            throw ValidationError("a summary feed takes no filter or --format: it is the file it is "
                + "(sync a service to filter)")
        }
        if filters.from == nil, let to = try filters.filter().end,
           to <= Int64(Date().timeIntervalSince1970 * 1000) - 30 * 86_400_000 {
            throw ValidationError("--to is more than 30 days ago, before a first sync's default start: give --from too")
        }
        if dryRun && every != nil { throw ValidationError("--dry-run prints the plan once: drop --every") }
        if verbose && every == nil {
            throw ValidationError("--verbose is for --every: a single sync prints its whole summary")
        }
        if dryRun && wait.wait != nil {
            throw ValidationError("--dry-run takes no lock, so it waits for none: drop --wait")
        }
        if let commitBytes, commitBytes < 1 { throw ValidationError("--commit-bytes: at least 1") }
        guard (1...100).contains(attempts) else { throw ValidationError("--attempts: 1...100") }
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout: seconds, above 0 and at most 86400")
        }
        guard retryDelay >= 0, retryDelay <= 3600 else {
            throw ValidationError("--retry-delay: seconds, 0 to 3600")
        }
    }

    func parsedSource() throws -> SyncSource {
        do { return try SyncSource(url: source) } catch {
            let why = error.kind == .invalidArgument && source.contains("?") ? error.detail
                : "expected an http or https URL of an FDSN event service or a feed file"
            throw ValidationError("'\(source)': " + why)
        }
    }

    /// `30s`, `5m`, `1h` (or plain seconds) in seconds.
    static func seconds(_ s: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        let unit = s.last.flatMap { units[$0] }
        guard let count = Double(unit == nil ? s : String(s.dropLast())), count > 0, count * (unit ?? 1) <= 1e7 else {
            throw ValidationError("--every: a duration such as 30s, 5m or 1h (at most 1e7 s)")
        }
        return count * (unit ?? 1)
    }

    func options() -> SyncOptions {
        var options = SyncOptions()
        options.dryRun = dryRun
        options.backfill = backfill
        options.format = format
        options.attempts = attempts
        options.readTimeout = timeout
        options.retryDelay = retryDelay
        if let commitBytes { options.commitBytes = commitBytes }
        options.timeUnit = timeUnit
        options.optionNames = ErrorMessage.optionNames
        options.onMessage = { printError("quakes sync: " + $0) }
        return options
    }

    /// One writer, decided first: the store's lock is taken before the store is opened or created,
    /// and held for the whole sync (with `--every`, for each round; another writer may commit
    /// between rounds). A sync refused by another writer exits 1 having touched nothing. A dry
    /// run takes no lock and writes nothing.
    func run() throws {
        let src = try parsedSource()
        let filter = try filters.filter()
        let interrupt = Interrupt.install()
        defer { interrupt.uninstall() }
        if dryRun { return try plan(src, filter, interrupt) }
        let createdDirectory = !FileIO.exists(store.path)
        let createdParents = Self.missingParents(of: store.path)
        let target: Store
        let created: Bool
        // the lock of the first round; scoped so that nothing else keeps it past that round
        var held: StoreLock?
        do {
            let opened = try Store.openForWriting(path: store.path, partitioning: partition ?? .month,
                                                  blockRows: Manifest.defaultBlockRows, wait: wait.lockWait,
                                                  cancelled: { interrupt.fired })
            target = opened.store
            created = opened.created
            held = opened.lock
        }
        // a first sync that commits nothing leaves no new store behind
        defer {
            let manifest = target.freshManifest()
            if created && manifest.rows == 0 && manifest.cursors.isEmpty {
                target.discardNew(removingDirectory: createdDirectory, lock: held)
                // the folders made to hold the store go with it, deepest first, each only when empty
                for parent in createdParents where FileIO.list(parent).isEmpty { FileIO.remove(parent) }
            }
        }
        let interval = try every.map(Self.seconds)
        repeat {
            // with --every the lock is let go between rounds: it lives only in this round
            let roundLock = held
            if interval != nil { held = nil }
            // consumed: the round's lock ends with the round, not at the end of this loop's body
            try round(target, src, filter, interrupt, lock: consume roundLock, every: interval)
            if let interval {
                if SyncLoop.sleep(interval, interrupt) { throw ExitCode(interrupt.exitStatus) }
            }
        } while interval != nil
    }

    /// One sync round under the writer lock (`lock`, or one taken now), released when it returns.
    private func round(_ s: Store, _ src: SyncSource, _ filter: SyncFilter, _ interrupt: Interrupt,
                       lock given: StoreLock?, every interval: Double?) throws {
        let lock: StoreLock
        if let given {
            lock = given
        } else {
            do throws(QuakeError) {
                lock = try Store.writerLock(path: s.path, wait: wait.lockWait, cancelled: { interrupt.fired })
            } catch {
                printError("quakes: " + ErrorMessage.line(error))
                if error.kind == .interrupted || interval == nil {
                    throw ExitCode(error.kind == .interrupted ? interrupt.exitStatus : 1)
                }
                return
            }
        }
        var roundOptions = options()
        roundOptions.writerLock = lock
        let bar = stderrIsTerminal ? SyncProgressLine() : nil
        if let bar { roundOptions.onProgress = { bar.update($0) } }
        let options = roundOptions
        let outcome = SyncLoop.wait(interrupt) { () async throws -> SyncSummary in
            try await s.sync(from: src, filter: filter, options: options)
        }
        bar?.clear()
        switch outcome {
        case .done(let summary):
            // straight to the descriptor: with --every, each summary shows as it is made, even in a pipe
            let text = interval == nil ? Self.describe(summary, dryRun: false)
                : verbose ? Self.roundTime() + "\n" + Self.describe(summary, dryRun: false) : Self.roundLine(summary)
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        case .interrupted:
            // a first sync that committed no piece leaves no store (its empty one is removed on the way out)
            let committed = (try? Store(path: store.path)).map { !$0.manifest.cursors.isEmpty || $0.manifest.rows > 0 }
            if committed != true {
                printError("quakes: interrupted; nothing committed")
            } else {
                printError("quakes: interrupted; the pieces committed so far are kept, and the next sync resumes there")
            }
            throw ExitCode(interrupt.exitStatus)
        case .failed(let failure):
            // with --every the loop goes on: the line says when the round failed
            printError("quakes: " + (interval == nil ? "" : Self.roundTime() + "  ") + ErrorMessage.line(failure))
            if interval == nil { throw ExitCode(1) }
        }
    }

    /// `--dry-run`: the plan, from the store as it is (or as none, when there is no store yet);
    /// no lock is taken and nothing is written, in the store or beside it.
    private func plan(_ source: SyncSource, _ filter: SyncFilter, _ interrupt: Interrupt) throws {
        let planned: Store
        do throws(QuakeError) { planned = try Store(path: store.path) } catch {
            guard error.kind == .notFound else { throw error }
            planned = Store(absentAt: store.path, partitioning: partition ?? .month)
        }
        let options = self.options()
        switch SyncLoop.wait(interrupt, { () async throws -> SyncSummary in
            try await planned.sync(from: source, filter: filter, options: options)
        }) {
        case .done(let summary):
            FileHandle.standardOutput.write(Data((Self.describe(summary, dryRun: true) + "\n").utf8))
        case .interrupted:
            printError("quakes: interrupted")
            throw ExitCode(interrupt.exitStatus)
        case .failed(let failure):
            printError("quakes: " + ErrorMessage.line(failure))
            throw ExitCode(1)
        }
    }

    /// One round of `--every` (and of `serve --sync`) in a line: when it ended, what it changed,
    /// and its traffic.
    static func roundLine(_ summary: SyncSummary, at now: Date = Date()) -> String {
        let load = summary.load
        let when = roundTime(now)
        let seconds = String(format: "%.2f", summary.elapsedSeconds)
        let requests = "\(summary.requests) request" + (summary.requests == 1 ? "" : "s")
        guard !summary.notModified else {
            return "\(when)  not modified (304), \(requests), \(seconds) s"
        }
        return "\(when)  \(load.new) new, \(load.updated) updated, \(summary.deleted) deleted, "
            + "\(requests), \(summary.bytes) bytes, \(seconds) s"
    }

    /// The folders above `path` that do not exist yet, deepest first: opening the store makes them.
    static func missingParents(of path: String) -> [String] {
        var parents: [String] = []
        var parent = (path as NSString).deletingLastPathComponent
        while !parent.isEmpty && parent != "/" && parent != "." && !FileIO.exists(parent) {
            parents.append(parent)
            parent = (parent as NSString).deletingLastPathComponent
        }
        return parents
    }

    /// When a round ended, to the second, UTC: `2026-11-29T16:40:01Z`.
    static func roundTime(_ now: Date = Date()) -> String {
        now.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    }

    /// The summary, with the load summary's labels and the traffic.
    static func describe(_ s: SyncSummary, dryRun: Bool) -> String {
        if dryRun {
            let events = s.plan.compactMap(\.events).reduce(0, +)
            let cap = s.serviceLimit.map { ", at most \($0.grouped) a query" } ?? ""
            let counted = s.plan.contains { $0.events != nil } ? "\(events.grouped) events in " : ""
            var lines = ["plan          " + counted + "\(s.plan.count) request\(s.plan.count == 1 ? "" : "s")"
                + (s.plan.isEmpty ? " (nothing matches)" : cap)]
            for piece in s.plan {
                lines.append("  " + (piece.events.map { "\($0.grouped) events  " } ?? "") + piece.url)
            }
            return lines.joined(separator: "\n")
        }
        if s.notModified {
            return "not modified  (304: the feed is as it was; no events committed)\nrequests      \(s.requests)"
        }
        let load = s.load
        func n(_ v: Int) -> String { v.grouped }
        let width = [load.rowsRead, load.rejected, load.duplicates, load.new, load.updated, load.unchanged, s.deleted]
            .map { n($0).count }.max() ?? 1
        func row(_ label: String, _ v: Int, _ note: String = "") -> String {
            label.padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(repeating: " ", count: width - n(v).count) + n(v) + note
        }
        let mb = String(format: "%.1f", Double(s.bytes) / 1e6)
        let rate = s.elapsedSeconds > 0 ? Int(Double(load.rowsRead) / s.elapsedSeconds) : 0
        return [
            s.firstSync ? "first sync    \(s.pieces) of \(s.piecesPlanned) piece\(s.piecesPlanned == 1 ? "" : "s")"
                : "pieces        \(s.pieces)",
            row("rows read", load.rowsRead, "  = rejected + duplicates + new + updated + unchanged"),
            row("  rejected", load.rejected),
            row("  duplicates", load.duplicates),
            row("  new", load.new),
            row("  updated", load.updated),
            row("  unchanged", load.unchanged),
            row("deleted", s.deleted, "  (of the above: now tombstones, left out unless --include-deleted)"),
            "requests      \(s.requests)",
            "bytes         \(n(s.bytes)) (\(mb) MB)",
            "elapsed       \(String(format: "%.2f", s.elapsedSeconds)) s  (\(rate) events/s)",
            load.committed ? (load.new + load.updated > 0 ? "committed" : "committed (the cursor only)")
                : "nothing to commit",
        ].joined(separator: "\n")
    }
}

extension SyncOptions.PieceFormat: ExpressibleByArgument {}
