import QuakeSupport
import ArgumentParser
import Foundation
import QuakeStore
import QuakeInterchange

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", _superCommandName: "quakes",
        abstract: "List committed loads (transactions), show one with its event ids, or prune old history.",
        discussion: """
            quakes history                     every kept transaction, one row each
            quakes history --since 12          transactions after generation 12 (or after a time)
            quakes history 14                  transaction 14: files, counts, inserted and updated ids
            quakes history --prune-before 10   drop transactions older than generation 10 (never data)
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var wait: WaitOptions
    @Argument(help: "A generation: show that transaction's events.") var generation: Int?
    @Option(help: "Only transactions after GEN (a generation) or after a time (YYYY-MM-DD or ISO date-time).")
    var since: String?
    @Option(help: ArgumentHelp("At most this many transactions: the newest, or the first after --since "
        + "(for one transaction's table, events)."))
    var limit: Int?
    @Option(help: "Output format.") var format: HistoryWriter.Format = .table
    @Flag(help: "With a generation, also list the events the load left unchanged.") var unchanged = false
    @Flag(help: "Leave out the header line (table and csv).") var noHeader = false
    @Option(name: .customLong("prune-before"), help: "Drop the transactions of generations before GEN; data is kept.")
    var pruneBefore: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be >= 0") }
        if let generation, generation < 1 { throw ValidationError("a generation counts from 1") }
        if let pruneBefore, pruneBefore < 1 { throw ValidationError("--prune-before counts from generation 1") }
        if pruneBefore != nil && (generation != nil || since != nil) {
            throw ValidationError("--prune-before goes alone (no generation or --since)")
        }
        if generation != nil && since != nil { throw ValidationError("give a generation or --since, not both") }
        if wait.wait != nil && pruneBefore == nil { throw ValidationError("--wait goes with --prune-before (a write)") }
        if let since { _ = try HistoryPoint(parsing: since, flag: "--since") }
    }

    func run() throws {
        let opened = try store.open()
        let sink = Console.out
        defer { sink.flush() }
        var writer = HistoryWriter(format: format)
        writer.displayPath = DisplayPath.relative
        writer.moreHint = "use --limit, or --format csv for all"
        writer.header = !noHeader
        if let pruneBefore {
            let current = opened.manifest.generation
            guard pruneBefore <= current + 1 else {
                throw ValidationError("--prune-before \(pruneBefore): the store is at generation \(current); give 1 to "
                    + "\(current + 1) (\(current + 1) drops every transaction)")
            }
            let interrupt = Interrupt.install()
            defer { interrupt.uninstall() }
            let pruned = try opened.pruneHistory(before: pruneBefore, lockWait: wait.lockWait,
                                                 cancelled: { interrupt.fired })
            let extent = opened.historyExtent
            print("pruned \(pruned.transactions) transaction\(pruned.transactions == 1 ? "" : "s") "
                + "(\(pruned.bytes.grouped) bytes); \(extent.transactions) kept (\(extent.bytes.grouped) bytes), "
                + "history complete after generation \(extent.completeAfter)")
            return
        }
        if let generation {
            let transaction = try opened.transaction(generation: generation)
            // a damaged section is an error before anything is written, never a shorter list
            try opened.checkChanges(generation: generation)
            if let limit { writer.tableLimit = limit }
            try writer.writeTransaction(transaction, events: { body in
                try opened.forEachChange(generation: generation, includeUnchanged: unchanged, body)
            }, to: sink)
            return
        }
        let list: [HistoryTransaction]
        switch try since.map({ try HistoryPoint(parsing: $0, flag: "--since") }) {
        case .generation(let generation):
            list = try opened.history(since: HistoryToken(generation: generation), identifiers: false, limit: limit)
        case .time(let date): list = try opened.history(since: date, identifiers: false, limit: limit)
        case nil:
            // like `git log -n`: without --since, --limit keeps the newest transactions
            let all = try opened.history(identifiers: false)
            list = limit.map { Array(all.suffix($0)) } ?? all
        }
        writer.writeList(list, to: sink)
        if format == .table {
            let extent = opened.historyExtent
            sink.write("(\(list.count) transaction\(list.count == 1 ? "" : "s") shown; \(extent.transactions) kept, "
                + "\(extent.bytes.grouped) bytes; history complete after generation \(extent.completeAfter))\n")
        }
    }
}

/// A point in the history given on the command line: a generation number or a time.
enum HistoryPoint {
    case generation(Int)
    case time(Date)

    init(parsing text: String, flag: String) throws {
        if let generation = Int(text) {
            guard generation >= 0 else { throw ValidationError("\(flag): a generation is >= 0") }
            self = .generation(generation)
        } else if let millis = DateParsing.parse(text) {
            self = .time(Date(timeIntervalSince1970: Double(millis) / 1000))
        } else {
            throw ValidationError("\(flag): expected a generation number or a time "
                + "(YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ), got '\(text)'")
        }
    }
}

extension HistoryWriter.Format: ExpressibleByArgument {}
