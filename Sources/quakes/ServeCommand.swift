import ArgumentParser
import Foundation
import QuakeServer
import QuakeStore

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
    @Option(help: "Address to bind (0.0.0.0 for every interface).") var host = "127.0.0.1"
    @Option(help: "Port (0 picks a free one and prints it).") var port = 8080
    @Option(name: .customLong("max-events"), help: "Most events a query answers without 'limit' (USGS: 20000).")
    var maxEvents = 20_000
    @Option(name: .customLong("log-format"), help: "Request log on stderr: text or json.") var logFormat = "text"
    @Flag(help: "No request log.") var quiet = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard maxEvents >= 1 else { throw ValidationError("--max-events must be >= 1") }
        guard logFormat == "text" || logFormat == "json" else { throw ValidationError("--log-format: text or json") }
        guard !host.isEmpty, host.utf8.count < 256 else { throw ValidationError("--host: an address or host name") }
    }

    func run() throws {
        let s = try store.open()
        var options = QuakeServer.Options()
        options.host = host
        options.port = port
        options.maxEvents = maxEvents
        options.log = quiet ? nil : logFormat
        let server = QuakeServer(store: s, options: options)
        let path = s.path, host = host
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
        if let e = outcome.error as? ServeError {
            printError("quakes: " + ErrorMessage.line(e))
            throw ExitCode.failure
        }
        if let e = outcome.error { throw e }
    }
}

/// The error that ended the server, handed from its task to the waiting main thread.
private final class ServeOutcome: @unchecked Sendable {
    // @unchecked: written once by the server task before it signals, read after the wait.
    private(set) var error: (any Error)?
    func set(_ e: any Error) { error = e }
}
