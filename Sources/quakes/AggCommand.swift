import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct AggCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agg", _superCommandName: "quakes",
        abstract: "Aggregate matching events by time bucket, date part, category, region or numeric bin.",
        discussion: """
        Metrics: count, count(X) (non-null), count(distinct X), min(X), max(X), avg(X), sum(X),
        stddev(X) (sample, as DuckDB's stddev), median(X) (continuous: the two middle values
        interpolated, as DuckDB's median and numpy), pNN(X) (discrete: nearest rank, always one
        of the values, as DuckDB's quantile_disc; p50 is the discrete median).
        Example: quakes agg --by region --metrics 'count,avg(mag)' --having 'count > 100' --sort count:desc --limit 10
        """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @Option(help: """
        hour|day|week|month|year, time:N(m|h|d|w) (e.g. time:6h), hourofday|dayofweek|quarter, \
        region (place after "N km DIR of "), net|magType|type|status|place|..., FIELD:WIDTH (e.g. mag:0.5); \
        repeatable, up to 8.
        """) var by: [String] = []
    @Option(help: "Comma-separated metrics (see below).") var metrics: String = "count"
    @Option(help: "Keep the groups whose metrics satisfy EXPR, e.g. 'count > 1000 and avg(mag) >= 2'.")
    var having: String?
    @Option(help: "Sort groups by keys or metrics, e.g. 'year:desc,count:desc'; repeatable.") var sort: [String] = []
    @Option(help: "At most this many groups.") var limit: Int?
    @Option(name: .customLong("format"), help: "Output format.") var output: AggFormat = .table
    @Flag(help: "Leave out the header line (table and csv).") var noHeader = false
    @OptionGroup var live: WatchOptions

    var format: ResultWriter.Format { output.format }

    func validate() throws {
        if by.count > GroupKey.capacity { throw ValidationError("--by: at most \(GroupKey.capacity) keys") }
        _ = try groups()
        _ = try metricList()
        _ = try order()
        if let limit, limit < 0 { throw ValidationError("--limit: at least 0, not \(limit)") }
    }

    func groups() throws -> [GroupBy] {
        try by.map { text in
            guard let group = GroupBy(parsing: text) else {
                throw ValidationError("--by: unknown grouping '\(text)' (month, time:6h, hourofday, region, net, mag:0.5, ...)")
            }
            return group
        }
    }

    func metricList() throws -> [Metric] {
        try AggCommand.splitList(metrics).map { text in
            guard let metric = Metric(parsing: text) else {
                throw ValidationError("--metrics: unknown metric '\(text)' "
                    + "(count, count(distinct X), avg(X), stddev(X), median(X), p90(X), ...)")
            }
            return metric
        }
    }

    /// The metrics' column names.
    func metricLabels() throws -> [String] { try metricList().map(\.description) }

    /// Splits on commas outside parentheses.
    static func splitList(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            if character == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `--having`, `--sort` and `--limit` as the store takes them.
    func order() throws -> AggregateOrder {
        var order = AggregateOrder(limit: limit)
        if let having {
            do {
                order.having = try GroupCondition.parse(having)
            } catch let error as WhereParser.SyntaxError {
                throw ValidationError("--having: \(error)")
            }
        }
        let groupNames = try groups().map(\.description)
        let metricList = try metricList()
        for text in sort.flatMap(AggCommand.splitList) {
            var name = text
            var ascending = true
            if let colon = text.lastIndex(of: ":"), ["asc", "desc"].contains(text[text.index(after: colon)...]) {
                ascending = text[text.index(after: colon)...] == "asc"
                name = String(text[..<colon])
            }
            if let position = by.firstIndex(of: name) ?? groupNames.firstIndex(of: name) {
                order.keys.append((.key(position), ascending))
            } else if let position = metricList.firstIndex(where: { $0.description == name })
                        ?? Metric(parsing: name).flatMap(metricList.firstIndex(of:)) {
                order.keys.append((.metric(position), ascending))
            } else {
                let names = (by + metricList.map(\.description)).joined(separator: ", ")
                throw ValidationError("--sort: '\(name)' is not one of \(names) (each with :asc or :desc)")
            }
        }
        return order
    }

    func run() throws {
        let opened = try store.open()
        guard live.watch else {
            try emit(opened, generation: nil)
            return
        }
        try WatchLoop.run(opened, filter: try filters.flagFilter()) { generation in
            try emit(opened, generation: format == .ndjson && !WatchLoop.isTerminal ? generation : nil)
        }
    }

    /// Prints the groups once; with `generation`, ndjson is one line holding them all.
    private func emit(_ opened: Store, generation: Int?) throws {
        let groups = try groups()
        let (rows, _) = try opened.aggregate(try filters.filter(in: opened), by: groups, metrics: try metricList(),
                                             order: try order())
        AggregateWriter(groups: groups, metrics: try metricList(), format: format, header: !noHeader)
            .print(rows, generation: generation)
    }
}
