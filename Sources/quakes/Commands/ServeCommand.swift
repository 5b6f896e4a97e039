import ArgumentParser
import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeServer
import Synchronization
import QuakeSync

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", _superCommandName: "quakes",
        abstract: "Serve the store read-only: the quake browser at /, and an FDSN event service at /fdsnws/event/1/.",
        discussion: """
            Binds 127.0.0.1 by default, so only this machine can connect. --host 0.0.0.0 lets any
            machine that reaches this one read every event in the store (no authentication, no TLS).
            Loads by 'quakes load' in other processes are seen by the next request.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions
    @Option(help: "Address to bind (0.0.0.0 for every interface).") var host = "127.0.0.1"
    @Option(help: "Port (0 picks a free one and prints it).") var port = 8080
    @Option(name: .customLong("max-events"), help: "Most events a query answers without 'limit' (USGS: 20000).")
    var maxEvents = 20_000
    @Option(name: .customLong("cache-mb"),
            help: "Megabytes of recent answers kept until the next commit (0 keeps none).") var cacheMB = 64
    @Option(name: .customLong("log-format"), help: "Request log on stderr: text or json.") var logFormat = "text"
    @Flag(help: "No request log (with --sync, only the syncs that changed something are logged).") var quiet = false
    @Option(name: .customLong("sync"),
            help: "Keep the store current from this FDSN event service or summary feed (see 'quakes sync').")
    var syncSource: String?
    @Option(help: "With --sync: how often (30s, 5m, 1h; default 60s).") var every: String?
    @OptionGroup(title: "With --sync, the filter") var syncFilters: SyncFilterOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard maxEvents >= 1 else { throw ValidationError("--max-events must be >= 1") }
        guard (0...65_536).contains(cacheMB) else { throw ValidationError("--cache-mb must be in 0...65536") }
        guard logFormat == "text" || logFormat == "json" else { throw ValidationError("--log-format: text or json") }
        guard !host.isEmpty, host.utf8.count < 256 else { throw ValidationError("--host: an address or host name") }
        if let every { _ = try SyncCommand.seconds(every) }
        if let syncSource {
            guard let source = try? SyncSource(url: syncSource) else {
                throw ValidationError("--sync: an http or https URL of an FDSN event service (no query) or a feed file")
            }
            if case .feed = source, !syncFilters.isEmpty {
                throw ValidationError("a summary feed takes no filter: it is the file it is (sync a service to filter)")
            }
        } else if !syncFilters.isEmpty || every != nil || wait.wait != nil {
            throw ValidationError("the filter flags, --every and --wait go with --sync")
        }
    }

    func run() throws {
        let served = try syncSource == nil ? store.open() : openForSync()
        if let syncSource { try startSync(served, syncSource) }
        var options = QuakeServer.Options()
        options.host = host
        options.port = port
        options.maxEvents = maxEvents
        options.cacheBytes = cacheMB << 20
        options.log = quiet ? nil : logFormat
        let server = QuakeServer(store: served, options: options)
        let path = served.path
        let host = host
        let done = DispatchSemaphore(value: 0)
        let outcome = ServeOutcome()
        Task {
            do {
                try await server.run { bound in
                    printError("quakes serve: http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/ "
                        + "(store \(path); FDSN at /fdsnws/event/1/; Ctrl-C stops)")
                }
            } catch {
                outcome.set(error)
            }
            done.signal()
        }
        done.wait()
        if let failure = outcome.error as? ServeError {
            printError("quakes: " + ErrorMessage.line(failure))
            throw ExitCode.failure
        }
        if let failure = outcome.error { throw failure }
    }
}

extension ServeCommand {
    /// `--sync`'s store: opened, or created under the writer lock (waiting as `--wait` allows),
    /// which is let go once it exists: each round takes it again.
    func openForSync() throws -> Store {
        if FileIO.exists(Store.manifestPath(store.path)) { return try store.open() }
        // No signal source here: a second one for SIGINT in this process (the server's) would find
        // libdispatch's first registration in place and leave the signals ignored. Ctrl-C while
        // this waits ends the process as it would any command; nothing is half-written.
        let opened = try Store.openForWriting(path: store.path, partitioning: .month,
                                              blockRows: Manifest.defaultBlockRows, wait: wait.lockWait,
                                              cancelled: { false })
        return opened.store
    }

    /// `--sync`: a task that syncs now and then every interval, committing as `quakes sync` does;
    /// the pages see each commit through the change feed. Each round holds the store's writer lock
    /// from its start to its end and lets it go until the next round, so other writers (a
    /// `quakes load`) commit between rounds; the server's readers take no lock and never wait.
    /// A round that finds another writer's lock (after `--wait`, when given), like any error, is
    /// logged and retried at the next interval, and the server answers from the last good
    /// snapshot meanwhile.
    func startSync(_ s: Store, _ url: String) throws {
        let source = try SyncSource(url: url)
        let filter = try syncFilters.filter()
        let every = self.every ?? "60s"
        let interval = try SyncCommand.seconds(every)
        var syncOptions = SyncOptions()
        syncOptions.lockWait = wait.lockWait
        syncOptions.onMessage = { printError("quakes serve: sync: " + $0) }
        let options = syncOptions
        Task.detached {
            while !Task.isCancelled {
                do {
                    let summary = try await s.sync(from: source, filter: filter, options: options)
                    let load = summary.load
                    // --quiet keeps the syncs that changed something, as the request log keeps nothing
                    if !quiet || summary.deleted + load.new + load.updated > 0 {
                        printError("quakes serve: sync: " + SyncCommand.roundLine(summary))
                    }
                } catch let failure as QuakeError {
                    printError("quakes serve: sync: " + ErrorMessage.line(failure) + "; retrying in \(every)")
                } catch {
                    printError("quakes serve: sync: \(error); retrying in \(every)")
                }
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
            }
        }
    }
}

/// The error that ended the server, handed from its task to the waiting main thread.
private final class ServeOutcome: Sendable {
    /// Written once by the server task before it signals, read after the wait.
    private let failure = Mutex<(any Error)?>(nil)
    var error: (any Error)? { failure.locked { $0 } }
    func set(_ e: any Error) { failure.locked { $0 = e } }
}
