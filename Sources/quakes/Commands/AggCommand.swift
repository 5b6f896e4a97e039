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
        --format svg draws the first metric against one --by key: a time bucket (day, week, month, \
        time:6h, ...) as a time series (a count as bars, another metric as a line, and with --cumulative \
        the running count as a step line), any other key as horizontal bars (at most 60).
        Example: quakes agg --by region --metrics 'count,avg(mag)' --having 'count > 100' --sort count:desc --limit 10
        Example: quakes agg --by month --cumulative --format svg --out cumulative.svg
        """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @Option(help: """
        hour|day|week|month|year, time:N(m|h|d|w) (e.g. time:6h), hourofday|dayofweek|quarter, \
        region (place after "N km DIR of "), net|magType|type|status|place|..., FIELD:WIDTH (e.g. mag:0.5); \
        repeatable, up to 8.
        """) var by: [String] = []
    @Option(help: "Comma-separated metrics (listed above).") var metrics: String = "count"
    @Option(help: "Keep the groups whose metrics satisfy EXPR, e.g. 'count > 1000 and avg(mag) >= 2'.")
    var having: String?
    @Option(help: "Sort groups by keys or metrics, e.g. 'year:desc,count:desc'; repeatable.") var sort: [String] = []
    @Option(help: "At most this many groups.") var limit: Int?
    @Option(name: .customLong("format"), help: """
        Output format: arrow (an Arrow IPC stream) and parquet write typed columns: keys and \
        metrics as int64, float64, timestamp[ms, UTC] or utf8. svg draws the first metric (see above).
        """) var output: AggFormat = .table
    @Option(help: "The file --format arrow, parquet or svg writes ('-': standard output; arrow's and svg's default).")
    var out: String?
    @Flag(help: "With --format svg, a time --by and --metrics count: the running count as a step line.")
    var cumulative = false
    @Flag(help: "Leave out the header line (table and csv).") var noHeader = false
    @OptionGroup var live: WatchOptions

    var format: ResultWriter.Format { output.format }

    func validate() throws {
        if by.count > GroupKey.capacity { throw ValidationError("--by: at most \(GroupKey.capacity) keys") }
        if let twice = AggCommand.firstRepeated(try groups().map(\.description)) {
            throw ValidationError("--by: '\(twice)' is given twice")
        }
        if AggCommand.splitList(metrics).isEmpty {
            throw ValidationError("--metrics: name at least one (count, avg(mag), ...)")
        }
        if let twice = AggCommand.firstRepeated(try metricList().map(\.description)) {
            throw ValidationError("--metrics: '\(twice)' is given twice")
        }
        for metric in try metricList() {
            do { try metric.validate() } catch { throw ValidationError("--metrics: \(error.detail)") }
        }
        _ = try order()
        if let limit, limit < 0 { throw ValidationError("--limit: at least 0, not \(limit)") }
        if output == .parquet && out == nil { throw ValidationError("--format parquet needs --out FILE") }
        if !output.isColumnar && output != .svg && out != nil {
            throw ValidationError("--out goes with --format arrow, parquet or svg; other formats go to stdout")
        }
        try validateFigure()
    }

    func groups() throws -> [GroupBy] {
        try by.map(AggCommand.grouping)
    }

    /// The grouping `text` names, or a usage error that says what is wrong with it.
    static func grouping(_ text: String) throws -> GroupBy {
        if let group = GroupBy(parsing: text) { return group }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0] == "time" {
            throw ValidationError("--by: '\(text)': a time bucket is a whole number of m, h, d or w "
                + "(time:15m, time:6h)")
        }
        if parts.count == 2, let column = Column(name: parts[0]), column.kind == .decimal {
            throw ValidationError("--by: '\(text)': a bin width is a number greater than 0 (\(parts[0]):0.5)")
        }
        throw ValidationError("--by: unknown grouping '\(text)' (month, time:6h, hourofday, region, net, mag:0.5, ...)")
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

    /// The first name that appears twice.
    static func firstRepeated(_ names: [String]) -> String? {
        var seen: Set<String> = []
        return names.first { !seen.insert($0).inserted }
    }

    /// The metrics to compute: those asked for, then any that `--sort` names and they lack
    /// (computed for the order, not printed).
    func queryMetrics() throws -> [Metric] {
        let listed = try metricList()
        var extra: [Metric] = []
        for text in sort.flatMap(AggCommand.splitList) {
            let name = AggCommand.sortName(text).name
            if let metric = Metric(parsing: name), !listed.contains(metric), !extra.contains(metric),
               !by.contains(name) {
                extra.append(metric)
            }
        }
        return listed + extra
    }

    /// A sort key's name and direction: `count:desc` is ("count", false).
    static func sortName(_ text: String) -> (name: String, ascending: Bool) {
        guard let colon = text.lastIndex(of: ":"), ["asc", "desc"].contains(text[text.index(after: colon)...]) else {
            return (text, true)
        }
        return (String(text[..<colon]), text[text.index(after: colon)...] == "asc")
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
        let metricList = try queryMetrics()
        for text in sort.flatMap(AggCommand.splitList) {
            let (name, ascending) = AggCommand.sortName(text)
            if let position = by.firstIndex(of: name) ?? groupNames.firstIndex(of: name) {
                order.keys.append((.key(position), ascending))
            } else if let position = metricList.firstIndex(where: { $0.description == name })
                        ?? Metric(parsing: name).flatMap(metricList.firstIndex(of:)) {
                order.keys.append((.metric(position), ascending))
            } else {
                var names: [String] = []
                for candidate in by + metricList.map(\.description) where !names.contains(candidate) {
                    names.append(candidate)
                }
                throw ValidationError("--sort: '\(name)' is not a key or a metric (\(names.joined(separator: ", ")), "
                    + "or any metric such as avg(mag)), each with :asc or :desc")
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
        try WatchLoop.run(opened, filter: try filters.flagFilter(), writesFile: out != nil) { generation in
            try emit(opened, generation: format == .ndjson && !WatchLoop.isTerminal ? generation : nil)
            if let out { printError("wrote \(out) (generation \(generation))") }
        }
    }

    /// Prints the groups once; with `generation`, ndjson is one line holding them all.
    private func emit(_ opened: Store, generation: Int?) throws {
        let groups = try groups()
        let (rows, _) = try opened.aggregate(try filters.filter(in: opened), by: groups, metrics: try queryMetrics(),
                                             order: try order())
        if output.isColumnar {
            try writeColumns(try AggregateTable(rows: rows, groups: groups, metrics: try metricList()))
            return
        }
        if output == .svg {
            try writeFigure(rows, groups: groups)
            return
        }
        AggregateWriter(groups: groups, metrics: try metricList(), format: format, header: !noHeader)
            .print(rows, generation: generation)
    }
}
