import ArgumentParser
import Foundation
import QuakeStore
import QuakeInterchange

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", _superCommandName: "quakes",
        abstract: "Run a query, count, agg or sections command and show partitions and blocks pruned, "
            + "kernels and slow path, and row counts.",
        discussion: "Example: quakes explain query --day 2024-06-15 --place Alaska --sort mag:desc --limit 10"
    )

    @Argument(parsing: .captureForPassthrough, help: "A query, count, agg or sections command line.")
    var command: [String] = []

    func validate() throws {
        let help = Set(["--help", "-h", "help"])
        if let first = command.first, help.contains(first) { throw CleanExit.helpRequest(ExplainCommand.self) }
        if command.dropFirst().contains(where: help.contains) {
            let sub: [String: ParsableCommand.Type] = ["query": QueryCommand.self, "count": CountCommand.self,
                                                       "agg": AggCommand.self, "sections": SectionsCommand.self]
            if let first = command.first, let type = sub[first] { throw CleanExit.helpRequest(type) }
        }
        guard let first = command.first else {
            throw ValidationError("give a command to explain, e.g. 'quakes explain count --min-mag 4.5'")
        }
        guard ["query", "count", "agg", "sections"].contains(first) else {
            throw ValidationError("explain takes query, count, agg or sections, not '\(first)'")
        }
    }

    /// Whether the explained command asked for `--format json` (or ndjson): the plan is then JSON.
    var wantsJSON: Bool {
        for (index, word) in command.enumerated() {
            if word == "--format", index + 1 < command.count, command[index + 1].hasSuffix("json") { return true }
            if word == "--format=json" || word == "--format=ndjson" { return true }
        }
        return false
    }

    /// `arguments` without a `--format json|ndjson` (`--format=…` too).
    static func droppingFormat(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--format", index + 1 < arguments.count, arguments[index + 1].hasSuffix("json") {
                index += 2
                continue
            }
            if word == "--format=json" || word == "--format=ndjson" {
                index += 1
                continue
            }
            out.append(word)
            index += 1
        }
        return out
    }

    func run() throws {
        let rest = Array(command.dropFirst())
        let started = DispatchTime.now().uptimeNanoseconds
        func timed(_ stats: inout QueryStats, _ stage: String) {
            if stats.stages.isEmpty {
                stats.stages.append((stage, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6))
            }
        }
        func show(_ stats: QueryStats, _ filter: Filter, _ tail: String, in store: Store) {
            // the filter as planned: a store with no tombstone drops the check for them first
            let filter = (try? QueryExecutor(store: store).prepared(filter)) ?? filter
            if wantsJSON {
                print(stats.json(filter: filter))
            } else {
                print(stats.report(filter: filter))
                print(tail)
            }
        }
        switch command[0] {
        case "query":
            let parsed = try QueryCommand.parse(rest)
            let opened = try parsed.store.open()
            let filter = try parsed.filters.filter(in: opened)
            let spec = try parsed.page.spec(filter: filter, defaultLimit: 100)
            let pageColumns = try parsed.columns() ?? ResultWriter.tableColumns
            var stats = try opened.query(spec, columns: pageColumns).stats
            timed(&stats, "open, plan, scan and sort")
            show(stats, spec.effectiveFilter, "page:        the rows returned read "
                 + pageColumns.map(\.name).joined(separator: ", "), in: opened)
        case "count":
            // count prints a number and takes no --format; explain's own JSON plan is still asked that way
            let parsed = try CountCommand.parse(ExplainCommand.droppingFormat(rest))
            let opened = try parsed.store.open()
            let filter = try parsed.filters.filter(in: opened)
            var (count, stats) = try opened.explainCount(filter)
            timed(&stats, "open, plan and count")
            show(stats, filter, "count:       \(count)", in: opened)
        case "agg":
            let parsed = try AggCommand.parse(rest)
            let opened = try parsed.store.open()
            let filter = try parsed.filters.filter(in: opened)
            let (rows, stats) = try opened.aggregate(filter, by: try parsed.groups(), metrics: try parsed.metricList(),
                                                     order: try parsed.order())
            show(stats, filter, "groups:      \(rows.count)", in: opened)
        default:
            let parsed = try SectionsCommand.parse(rest)
            let opened = try parsed.store.open()
            let filter = try parsed.filters.filter(in: opened)
            let key = try AggCommand.grouping(parsed.by)
            let (rows, stats) = try opened.aggregate(filter, by: [key], metrics: [.count])
            show(stats, filter, "sections:    \(rows.count) (each then runs as its own query)", in: opened)
        }
    }
}
