import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct AggCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agg", _superCommandName: "quakes",
        abstract: "Aggregate matching events by time bucket, category or numeric bin."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @Option(help: "hour|day|week|month|year|net|magType|type|status|FIELD:WIDTH (e.g. mag:0.5); repeatable, up to 3.") var by: [String] = []
    @Option(help: "Comma-separated: count,min(X),max(X),avg(X),sum(X),pNN(X),median(X).") var metrics: String = "count"
    @Option(help: "Sort groups by a key or metric name, e.g. count:desc.") var sort: String?
    @Option(help: "At most this many groups.") var limit: Int?
    @Option(name: .customLong("format"), help: "Output format.") var output: AggFormat = .table
    @Flag(help: "Leave out the header line (table and csv).") var noHeader = false
    @OptionGroup var live: WatchOptions

    var format: ResultWriter.Format { output.format }

    func validate() throws {
        _ = try groups()
        _ = try metricList()
        if by.count > 3 { throw ValidationError("--by: at most three keys") }
        if let sort { _ = try sortSpec(sort) }
    }

    func groups() throws -> [GroupBy] {
        try by.map { s in
            guard let g = GroupBy(parsing: s) else { throw ValidationError("--by: unknown grouping '\(s)' (hour, day, week, month, year, net, magType, type, status, mag:0.5, depth:10)") }
            return g
        }
    }

    func metricList() throws -> [Metric] {
        try AggCommand.splitMetrics(metrics).map { s in
            guard let m = Metric(parsing: s) else { throw ValidationError("--metrics: unknown metric '\(s)' (count, min(X), max(X), avg(X), sum(X), p50(X), median(X))") }
            return m
        }
    }

    /// The metrics' column names: each metric's own (`p50(mag)`), but `median(mag)` as asked.
    func metricLabels() throws -> [String] {
        let m = try metricList()
        return zip(AggCommand.splitMetrics(metrics), m).map { text, metric in
            guard text.lowercased().hasPrefix("median("), let c = metric.column else { return metric.description }
            return "median(\(c))"
        }
    }

    /// Splits on commas outside parentheses.
    static func splitMetrics(_ s: String) -> [String] {
        var out: [String] = [], cur = "", depth = 0
        for ch in s {
            if ch == "(" { depth += 1 } else if ch == ")" { depth -= 1 }
            if ch == "," && depth == 0 { out.append(cur); cur = "" } else { cur.append(ch) }
        }
        if !cur.isEmpty { out.append(cur) }
        return out.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func sortSpec(_ s: String) throws -> (name: String, ascending: Bool) {
        let parts = s.split(separator: ":").map(String.init)
        let names = by + (try metricLabels())
        guard names.contains(parts[0]), parts.count <= 2, parts.count == 1 || ["asc", "desc"].contains(parts[1]) else {
            throw ValidationError("--sort: expected one of \(names.joined(separator: ", ")) with :asc or :desc")
        }
        return (parts[0], parts.count == 1 || parts[1] == "asc")
    }

    func run() throws {
        let s = try store.open()
        guard live.watch else { try emit(s, generation: nil); return }
        try WatchLoop.run(s, filter: try filters.flagFilter()) { g in
            try emit(s, generation: format == .ndjson && !WatchLoop.isTerminal ? g : nil)
        }
    }

    /// Prints the groups once; with `generation`, ndjson is one line holding them all.
    private func emit(_ s: Store, generation: Int?) throws {
        let g = try groups(), m = try metricList()
        var (rows, _) = try s.aggregate(try filters.filter(in: s), by: g, metrics: m)
        if let sort {
            let (name, asc) = try sortSpec(sort)
            if let k = by.firstIndex(of: name) {
                rows.sort { SortValue.compare($0.keyValues[k], $1.keyValues[k], ascending: asc) < 0 }
            } else if let k = try metricLabels().firstIndex(of: name) {
                rows.sort { a, b in
                    SortValue.compare(a.values[k].map { .number($0) } ?? .null, b.values[k].map { .number($0) } ?? .null, ascending: asc) < 0
                }
            }
        }
        if let limit { rows = Array(rows.prefix(limit)) }
        AggCommand.print(rows, keys: g.map(\.description), metrics: try metricLabels(), format: format,
                        header: !noHeader, generation: generation)
    }

    static func number(_ v: Double?) -> String {
        guard let v else { return "" }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        var s = String(format: "%.4f", v)
        while s.last == "0" { s.removeLast() }   // trailing zeros of the four decimals (not a regex: start-up)
        if s.last == "." { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// Prints groups; a null key or metric is an empty csv cell and `NULL` in a table.
    static func print(_ rows: [AggregateRow], keys: [String], metrics: [String], format: ResultWriter.Format,
                      header showHeader: Bool = true, generation: Int? = nil) {
        let header = keys + metrics
        let null = format == .csv ? "" : "NULL"
        let cells = rows.map { r in r.keys.map { $0 ?? null } + r.values.map { $0 == nil ? null : number($0) } }
        switch format {
        case .csv:
            if showHeader { writeLine(header.joined(separator: ",")) }
            for c in cells { writeLine(c.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }.joined(separator: ",")) }
        case .json, .ndjson:
            let objs = rows.map { r -> [String: Any] in
                var o: [String: Any] = [:]
                for (k, name) in keys.enumerated() { o[name] = r.keys[k] ?? NSNull() }
                for (k, name) in metrics.enumerated() { o[name] = r.values[k] ?? NSNull() }
                return o
            }
            if format == .ndjson, let generation {
                let line: [String: Any] = ["generation": generation, "groups": objs]
                if let d = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) {
                    writeLine(String(decoding: d, as: UTF8.self))
                }
            } else if format == .ndjson {
                for o in objs {
                    guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]) else { continue }
                    writeLine(String(decoding: d, as: UTF8.self))
                }
            } else if let d = try? JSONSerialization.data(withJSONObject: ["groups": objs], options: [.sortedKeys]) {
                writeLine(String(decoding: d, as: UTF8.self))
            }
        default:
            var w = header.map(\.count)
            for c in cells { for (k, s) in c.enumerated() { w[k] = max(w[k], s.count) } }
            func line(_ v: [String]) -> String {
                v.enumerated().map { k, s in k < keys.count ? s.padding(toLength: w[k], withPad: " ", startingAt: 0) : s.leftPad(w[k]) }.joined(separator: "  ")
            }
            if showHeader { writeLine(line(header)) }
            if showHeader { writeLine(w.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
            for c in cells { writeLine(line(c)) }
            writeLine("(\(rows.count) group\(rows.count == 1 ? "" : "s"))")
        }
    }
}
