import ArgumentParser
import Foundation
import QuakeStore
import QuakeInterchange

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain", _superCommandName: "quakes",
        abstract: "Run a query, count, agg or sections command and show partitions and blocks pruned, kernels and slow path, and row counts.",
        discussion: "Example: quakes explain query --day 2024-06-15 --place Alaska --sort mag:desc --limit 10"
    )

    @Argument(parsing: .captureForPassthrough, help: "A query, count, agg or sections command line.") var command: [String] = []

    func validate() throws {
        let help = Set(["--help", "-h", "help"])
        if let first = command.first, help.contains(first) { throw CleanExit.helpRequest(ExplainCommand.self) }
        if command.dropFirst().contains(where: help.contains) {
            let sub: [String: ParsableCommand.Type] = ["query": QueryCommand.self, "count": CountCommand.self,
                                                       "agg": AggCommand.self, "sections": SectionsCommand.self]
            if let first = command.first, let t = sub[first] { throw CleanExit.helpRequest(t) }
        }
        guard let first = command.first else { throw ValidationError("give a command to explain, e.g. 'quakes explain count --min-mag 4.5'") }
        guard ["query", "count", "agg", "sections"].contains(first) else { throw ValidationError("explain takes query, count, agg or sections, not '\(first)'") }
    }

    func run() throws {
        let rest = Array(command.dropFirst())
        switch command[0] {
        case "query":
            let c = try QueryCommand.parse(rest)
            let s = try c.store.open()
            let f = try c.filters.filter(in: s)
            let q = try c.page.spec(filter: f, defaultLimit: 100)
            let r = try s.query(q, columns: try c.columns() ?? ResultWriter.tableColumns)
            print(r.stats.report(filter: q.effectiveFilter))
        case "count":
            let c = try CountCommand.parse(rest)
            let s = try c.store.open()
            let f = try c.filters.filter(in: s)
            let (n, stats) = try s.explainCount(f)
            print(stats.report(filter: f))
            print("count:       \(n)")
        case "agg":
            let c = try AggCommand.parse(rest)
            let s = try c.store.open()
            let f = try c.filters.filter(in: s)
            let (rows, stats) = try s.aggregate(f, by: try c.groups(), metrics: try c.metricList(), order: try c.order())
            print(stats.report(filter: f))
            print("groups:      \(rows.count)")
        default:
            let c = try SectionsCommand.parse(rest)
            let s = try c.store.open()
            let f = try c.filters.filter(in: s)
            let (rows, stats) = try s.aggregate(f, by: [GroupBy(parsing: c.by)!], metrics: [.count])
            print(stats.report(filter: f))
            print("sections:    \(rows.count) (each then runs as its own query)")
        }
    }
}
