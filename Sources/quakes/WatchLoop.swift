import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// `--watch` on query, count and agg.
struct WatchOptions: ParsableArguments {
    @Flag(help: "Print the answer, then again after each load that could change it (Ctrl-C to stop).")
    var watch = false

    /// The value parsed, as a plain value.
    var args: WatchArgs { WatchArgs(watch: watch) }
}

/// The `--watch` flag's value (``WatchOptions``).
struct WatchArgs: Equatable {
    var watch = false
}

/// Prints an answer, then again after each commit that could change it, until Ctrl-C.
///
/// On a terminal each answer replaces the last (the screen is cleared, as `watch` does), under
/// a line naming the generation; piped, each answer follows the last (`--format ndjson` makes
/// each one line). Commits are found by watching the manifest (see ``ChangeFeed``).
enum WatchLoop {
    static var isTerminal: Bool { FileIO.isTerminal(1) }

    /// - Parameters:
    ///   - filter: the filter whose time bounds decide which commits matter.
    ///   - writesFile: the answer goes to a file, so the terminal is not cleared.
    ///   - render: prints one answer, on the store's current snapshot.
    static func run(_ s: Store, filter: Filter, writesFile: Bool = false, render: (Int) throws -> Void) throws {
        let feed = try ChangeFeed(store: s, filter: filter)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            src.setEventHandler { feed.stop() }
            src.resume()
            sources.append(src)
        }
        defer { for src in sources { src.cancel() } }
        let clear = isTerminal && !writesFile
        var generation: Int? = s.manifest.generation
        while let current = generation {
            if clear {
                let args = CommandLine.arguments.dropFirst().joined(separator: " ")
                let when = Timestamp.string(Int64(Date().timeIntervalSince1970 * 1000)).prefix(19)
                    .replacingOccurrences(of: "T", with: " ")
                var head = "generation \(current) · \(when) UTC · Ctrl-C to stop · quakes \(args)"
                let width = max(20, terminalWidth(fd: 1))
                if head.count >= width { head = String(head.prefix(width - 2)) + "…" }
                Console.out.write("\u{1B}[H\u{1B}[2J\u{1B}[2m\(head)\u{1B}[0m\n\n")
            }
            try render(current)
            try Console.flush()
            generation = try feed.next()
        }
    }

    /// Prints a captured JSON answer as one line with the generation first.
    static func printLine(_ sink: OutputSink, generation: Int) {
        sink.flush()
        var line = sink.captured.filter { $0 != 0x0A && $0 != 0x0D }
        if line.first == UInt8(ascii: "{") { line.removeFirst() }
        let out = Array("{\"generation\":\(generation),".utf8) + line + [0x0A]
        Console.out.append(out)
    }
}
