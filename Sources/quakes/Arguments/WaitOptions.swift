import ArgumentParser
import QuakeFormat

/// `--wait [DURATION]` on the writing commands (load, sync, serve --sync, repair, compact, migrate, history
/// --prune-before), like sqlite3's busy timeout: without it a command finding another writer's
/// lock exits 1 at once; `--wait 30s` waits up to 30 s for it, and `--wait` alone as long as it
/// takes. Ctrl-C ends the wait (exit 130).
struct WaitOptions: ParsableArguments {
    @Option(name: .customLong("wait"),
            help: ArgumentHelp("Wait for another writer's lock: up to DURATION (500ms, 30s, 5m, 1h), or as long as "
                + "it takes when given alone (default: exit 1 at once).", valueName: "duration"))
    var wait: WaitDuration?

    /// The library's wait for the lock.
    var lockWait: LockWait { wait?.lockWait ?? .never }

    /// The commands that take `--wait`.
    static let commands: Set<String> = ["load", "sync", "serve", "repair", "compact", "migrate", "history"]

    /// The arguments with a bare `--wait` (one not followed by a duration) spelled `--wait=forever`,
    /// which ArgumentParser reads: an option's value cannot be optional there. A path after it
    /// (`--wait feeds/`, `--wait -`) stays an argument.
    static func normalized(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, commands.contains(command) else { return arguments }
        var out: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                out += arguments[index...]
                break
            }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if argument == "--wait" && next.flatMap(WaitDuration.init(argument:)) == nil
                && !(next.map(looksLikeDuration) ?? false) {
                out.append("--wait=forever")
            } else {
                out.append(argument)
            }
            index += 1
        }
        return out
    }

    /// Whether `argument` after `--wait` was meant as a duration that is misspelt (`30sec`, `1.5.s`):
    /// it begins with a digit and names no file, so ArgumentParser refuses it (exit 2) rather
    /// than the load reading it as a path.
    private static func looksLikeDuration(_ argument: String) -> Bool {
        guard let first = argument.unicodeScalars.first, ("0"..."9").contains(first) else { return false }
        return !FileIO.exists(argument)
    }
}

/// A `--wait` value: a duration (`500ms`, `30s`, `5m`, `1h`; a plain number is seconds), or
/// `forever`.
struct WaitDuration: ExpressibleByArgument {
    let lockWait: LockWait

    init?(argument: String) {
        if argument == "forever" {
            lockWait = .forever
            return
        }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        let unit = units.first { argument.hasSuffix($0.suffix) }
        let number = unit.map { String(argument.dropLast($0.suffix.count)) } ?? argument
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number) else { return nil }
        let seconds = value * (unit?.seconds ?? 1)
        guard seconds.isFinite, seconds >= 0, seconds <= 1e7 else { return nil }
        lockWait = .upTo(.milliseconds(Int64((seconds * 1000).rounded())))
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
