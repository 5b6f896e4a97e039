import ArgumentParser
import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import QuakeInterchange

/// The `quakes` command: load USGS earthquake feeds into a column store and query them.
@main
struct Quakes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quakes",
        abstract: "Load USGS earthquake feeds into a compressed column store and query them.",
        version: "quakes 0.3.0 (store format v2)",
        subcommands: [
            LoadCommand.self, SyncCommand.self, QueryCommand.self, CountCommand.self, AggCommand.self,
            SectionsCommand.self, ExplainCommand.self, InfoCommand.self, HistoryCommand.self, ServeCommand.self,
            VerifyCommand.self, RepairCommand.self, CompactCommand.self, MigrateCommand.self, ExportCommand.self,
            GenerateCommand.self, BenchCommand.self, FmdCommand.self,
        ]
    )

    /// Runs the command; usage errors exit with status 2 and a one-line hint.
    static func main() {
        // Keep freed block buffers in the heap instead of returning them to the kernel:
        // queries allocate and free many large arrays, and each fresh mmap costs page faults.
        // A load gives back what each pass freed (see ``MallocPolicy``).
        MallocPolicy.retain(mmapThreshold: 256 << 20, trimThreshold: 512 << 20)
        let arguments = Array(CommandLine.arguments.dropFirst())
        // before the command tree is built: a one-shot query or count needs none of it
        if !FastPath.isDisabled, let fast = FastPath.parse(arguments), (try? fast.validateAll()) != nil {
            do {
                try fast.run()
                try Console.out.finish()
            } catch {
                exitWithError(error)
            }
            return
        }
        if let first = arguments.first, !first.hasPrefix("-"), first != "help",
           !configuration.subcommands.contains(where: { $0._commandName == first }) {
            let names = configuration.subcommands.map { $0._commandName }
            let near = names.min { editDistance($0, first) < editDistance($1, first) } ?? "query"
            let hint = editDistance(near, first) <= 2 ? "; did you mean '\(near)'?" : ""
            let message = "quakes: unknown command '\(first)'\(hint) (see 'quakes --help')\n"
            FileHandle.standardError.write(Data(message.utf8))
            Foundation.exit(2)
        }
        do {
            var command = try parseCommand(WaitOptions.normalized(arguments)[...])
            try command.run()
            try Console.out.finish()
        } catch {
            exitWithError(error)
        }
    }

    /// Parses a subcommand's arguments with the subcommand as the root, so a one-shot query does not
    /// pay for reflecting on the command tree and on the completion-script pseudo-commands (a third of
    /// a `count` process). Each subcommand names `quakes` as its super-command, so its help and usage
    /// lines read as before. `help`, `--help`, `--version` and no arguments go through the whole tree.
    static func parseCommand(_ arguments: ArraySlice<String>) throws -> ParsableCommand {
        if let first = arguments.first,
           let sub = configuration.subcommands.first(where: { $0._commandName == first }),
           !arguments.contains("--generate-completion-script") {
            return try sub.parseAsRoot(Array(arguments.dropFirst()))
        }
        return try parseAsRoot(Array(arguments))
    }

    static func exitWithError(_ error: any Error) -> Never {
        // What was printed before the error still goes out; a failed write of it is the error to report
        // only when nothing else went wrong.
        let pending: QuakeError? = { () -> QuakeError? in
            do throws(QuakeError) {
                try Console.out.finish()
                return nil
            } catch {
                return error
            }
        }()
        if let failure = (error as? QuakeError) ?? pending, failure.path == "stdout", failure.errno == EPIPE {
            Foundation.exit(0)   // the reader went away (SIGPIPE ignored): as `head` expects, not an error
        }
        if let failure = error as? QuakeError {
            FileHandle.standardError.write(Data("quakes: \(ErrorMessage.line(failure))\n".utf8))
            // Ctrl-C (a wait for the writer lock, a repair): nothing was changed
            Foundation.exit(failure.kind == .interrupted ? 130 : 1)
        }
        let code = exitCode(for: error)
        if code == .validationFailure {
            let first = oneLine(fullMessage(for: error))
            let sub = CommandLine.arguments.dropFirst().first { !$0.hasPrefix("-") }.map { " \($0)" } ?? ""
            let message = first.replacingOccurrences(of: "Error: ", with: "")
            FileHandle.standardError.write(Data("quakes: \(message) (see 'quakes\(sub) --help')\n".utf8))
            Foundation.exit(2)
        }
        if code == .success || error is CleanExit {
            exit(withError: error)
        }
        if let status = error as? ExitCode {
            if status.rawValue == 0, let pending {
                FileHandle.standardError.write(Data("quakes: \(ErrorMessage.line(pending))\n".utf8))
                Foundation.exit(1)
            }
            Foundation.exit(status.rawValue)
        }
        FileHandle.standardError.write(Data("quakes: \(error)\n".utf8))
        Foundation.exit(1)
    }
}

/// ArgumentParser's message on one line: a list of choices ("one of the following:" then
/// "  - x" lines) is folded into the line that introduces it.
func oneLine(_ message: String) -> String {
    let lines = message.split(separator: "\n").map(String.init)
    guard var first = lines.first else { return "invalid usage" }
    let choices = lines.dropFirst().prefix { $0.hasPrefix("  - ") }.map { $0.dropFirst(4) }
    if !choices.isEmpty, first.hasSuffix(" the following:") {
        first = first.dropLast(" the following:".count) + ": " + choices.joined(separator: ", ")
    }
    return first
}

/// Levenshtein distance, for suggesting a command name after a typo.
func editDistance(_ a: String, _ b: String) -> Int {
    let left = Array(a)
    let right = Array(b)
    if left.isEmpty || right.isEmpty { return max(left.count, right.count) }
    var row = Array(0...right.count)
    for i in 1...left.count {
        var diagonal = row[0]
        row[0] = i
        for j in 1...right.count {
            let above = row[j]
            row[j] = min(above + 1, row[j - 1] + 1, diagonal + (left[i - 1] == right[j - 1] ? 0 : 1))
            diagonal = above
        }
    }
    return row[right.count]
}

/// Where the store lives.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "Store directory (default: $QUAKES_STORE, else ./quakes.store).")
    var store: String?

    /// The value parsed, as a plain value.
    var args: StoreArgs { StoreArgs(store: store) }

    var path: String { args.path }

    func open() throws -> Store { try args.open() }
}

/// The `--store` flag's value (``StoreOptions``).
struct StoreArgs: Equatable {
    var store: String?

    var path: String { Store.defaultPath(explicit: store) }

    /// Opens the store for the rest of the process: it is never torn down, since unmapping
    /// hundreds of partition files and freeing their caches one by one costs a one-shot query on a
    /// large store more than the query, and the kernel reclaims them at exit at once.
    func open() throws -> Store {
        let opened = try Store(path: path)
        openStores.append(opened)
        return opened
    }
}

/// Stores the command opened, kept alive until exit (see ``StoreOptions/open()``).
nonisolated(unsafe) private var openStores: [Store] = []

/// Writes a line to standard error.
func printError(_ s: String) {
    // straight to the descriptor: Data and FileHandle cost a one-shot query a conformance scan
    let bytes = Array((s + "\n").utf8)
    // SAFETY: `$0` is used only inside the closure; writeAll writes its count bytes and keeps nothing.
    bytes.withUnsafeBytes { try? FileIO.writeAll(2, $0, path: "stderr") }
}

/// True when standard error is a terminal.
var stderrIsTerminal: Bool { FileIO.isTerminal(2) }

/// Columns of the terminal on `fd` (standard error by default; 80 when unknown).
func terminalWidth(fd: Int32 = 2) -> Int { FileIO.terminalColumns(fd) ?? 80 }
