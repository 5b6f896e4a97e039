import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

extension BenchCommand {
    /// The commands a line may run.
    static let caseKinds = ["query", "count", "agg", "sections", "open"]

    /// One case per line of the file at `path`: a `query`, `count`, `agg`, `sections` or
    /// `open` command line as the CLI takes it (a leading `quakes` allowed); blank lines and
    /// `#` comments are skipped. A line that cannot run is a usage error (``ValidationError``)
    /// or a data error (``QuakeError``), each naming `FILE:LINE`.
    static func cases(fromFile path: String, store: Store) throws -> [BenchCase] {
        let text: String
        do throws(QuakeError) {
            text = String(decoding: try FileIO.readFile(path), as: UTF8.self)
        } catch {
            throw ValidationError("--queries: cannot read \(path): \(ErrorMessage.line(error))")
        }
        var found: [BenchCase] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(path):\(index + 1)"
            do {
                var parsed = try benchCase(line: line, store: store)
                parsed.origin = (path, index + 1)
                found.append(parsed)
            } catch let error as ValidationError {
                throw ValidationError("\(place): \(error.description)")
            } catch let error as QuakeError {
                throw QuakeError(error.kind, path: path, position: .line(index + 1), detail: ErrorMessage.line(error))
            } catch {
                throw ValidationError("\(place): \(oneLine(QueryCommand.message(for: error)))")
            }
        }
        if found.isEmpty { throw ValidationError("--queries: \(path) holds no command line") }
        return found
    }

    /// The case a command line runs, named by the line.
    static func benchCase(line: String, store: Store) throws -> BenchCase {
        var words = try shellWords(line)
        if words.first == "quakes" { words.removeFirst() }
        guard let kind = words.first else { throw ValidationError("expected a command after 'quakes'") }
        let rest = Array(words.dropFirst())
        try checkOutputFlags(rest)
        let name = line
        switch kind {
        case "query": return try queryCase(name, QueryCommand.parse(rest).args, store: store)
        case "count": return try countCase(name, CountCommand.parse(rest), store: store)
        case "agg": return try aggregateCase(name, AggCommand.parse(rest), store: store)
        case "sections": return try sectionsCase(name, SectionsCommand.parse(rest), store: store)
        case "open":
            let filter = try CountCommand.parse(rest).filters.filter(in: store)
            return Store.openAndPlanCase(path: store.path, filter: filter, name: name)
        default:
            throw ValidationError("expected \(caseKinds.joined(separator: ", ")), found '\(kind)'")
        }
    }

    /// Throws for the flags a line may not carry: `--store` (bench's own names the store) and a
    /// `--format` other than csv (bench times and prints the CSV answer).
    static func checkOutputFlags(_ words: [String]) throws {
        for (index, word) in words.enumerated() {
            if word == "--store" || word.hasPrefix("--store=") {
                throw ValidationError("--store on a line is not used; give it to bench")
            }
            let format = word.hasPrefix("--format=") ? String(word.dropFirst("--format=".count))
                : word == "--format" && index + 1 < words.count ? words[index + 1] : nil
            if let format, format != "csv" {
                throw ValidationError("--format \(format): bench times and prints the CSV answer; drop --format")
            }
        }
    }

    /// `quakes query … --format csv`: its rows (every CSV column unless `--fields`), timed
    /// without printing.
    static func queryCase(_ name: String, _ args: QueryArgs, store: Store) throws -> BenchCase {
        if try args.page.distanceOrder() != nil { throw ValidationError("bench does not time --sort distance") }
        if args.fields?.split(separator: ",").contains(where: { $0.trimmingBlanks == DistanceField.name }) == true {
            throw ValidationError("bench does not time the \(DistanceField.name) field")
        }
        if args.live.watch { throw ValidationError("bench does not time --watch") }
        let spec = try args.page.spec(filter: try args.filters.filter(in: store, centerOnly: true))
        let shown = try args.columns() ?? Column.csvColumns
        let header = !args.noHeader
        let needed = ColumnSet(shown).union(spec.filter.columns).union(spec.sort.map(\.column)).union([.id, .time])
        return BenchCase(name: name, kind: "query",
                         sql: Result { () throws(QuakeError) in try BenchSQL.query(spec, columns: shown) },
                         run: {
                             let result = try store.query(spec, columns: shown)
                             return BenchOutcome(rowsReturned: result.count, stats: result.stats)
                         },
                         printed: { try queryCSV(store, spec, shown, header: header) },
                         scope: { stats in store.readScope(spec.filter, stats: stats, needed: needed) })
    }

    /// `quakes count`: the number, with what the engine did.
    static func countCase(_ name: String, _ command: CountCommand, store: Store) throws -> BenchCase {
        if command.live.watch { throw ValidationError("bench does not time --watch") }
        let filter = try command.filters.filter(in: store)
        return BenchCase(name: name, kind: "count",
                         sql: Result { () throws(QuakeError) in try BenchSQL.count(filter) },
                         run: {
                             let (count, stats) = try store.explainCount(filter)
                             return BenchOutcome(rowsReturned: count, stats: stats)
                         },
                         printed: { String(try store.count(filter)) + "\n" },
                         scope: { stats in store.readScope(filter, stats: stats, needed: filter.columns) })
    }

    /// `quakes agg`: the groups, as `--format csv` prints them.
    static func aggregateCase(_ name: String, _ command: AggCommand, store: Store) throws -> BenchCase {
        if command.live.watch { throw ValidationError("bench does not time --watch") }
        let filter = try command.filters.filter(in: store)
        let groups = try command.groups()
        let metrics = try command.metricList()
        let order = try command.order()
        let header = !command.noHeader
        let needed = filter.columns.union(metrics.compactMap(\.column)).union([.time, .place])
        return BenchCase(name: name, kind: "agg",
                         sql: Result { () throws(QuakeError) in
                             try BenchSQL.aggregate(filter, by: groups, metrics: metrics, order: order)
                         },
                         run: {
                             let (rows, stats) = try store.aggregate(filter, by: groups, metrics: metrics, order: order)
                             return BenchOutcome(rowsReturned: rows.count, stats: stats)
                         },
                         printed: {
                             let (rows, _) = try store.aggregate(filter, by: groups, metrics: metrics, order: order)
                             let writer = AggregateWriter(groups: groups, metrics: metrics, format: .csv,
                                                          header: header)
                             return aggregateCSV(writer, rows)
                         },
                         scope: { stats in store.readScope(filter, stats: stats, needed: needed) })
    }

    /// `quakes sections --format csv`: every section's rows (or the first `--limit-per-section`).
    static func sectionsCase(_ name: String, _ command: SectionsCommand, store: Store) throws -> BenchCase {
        let filter = try command.filters.filter(in: store)
        guard let key = GroupBy(parsing: command.by) else {
            throw ValidationError("--by: expected day, month, net or magType")
        }
        let sort = try command.keys()
        let shown = try command.columns()
        let limit = command.limitPerSection
        let header = !command.noHeader
        let keyName = command.by
        let needed = ColumnSet(shown).union(filter.columns).union(sort.map(\.column)).union([.id, .time])
        return BenchCase(name: name, kind: "sections",
                         sql: Result { () throws(QuakeError) in
                             try BenchSQL.sections(filter, by: key, sort: sort, limitPerSection: limit, columns: shown)
                         },
                         run: {
                             let sections = try store.sections(filter, by: key, sort: sort, limitPerSection: limit,
                                                               columns: shown)
                             var stats = sections.first?.rows.stats
                             for section in sections.dropFirst() { stats?.merge(section.rows.stats) }
                             return BenchOutcome(rowsReturned: sections.reduce(0) { $0 + $1.rows.count }, stats: stats)
                         },
                         printed: {
                             let sections = try store.sections(filter, by: key, sort: sort, limitPerSection: limit,
                                                               columns: shown)
                             var writer = ResultWriter(format: .csv, columns: shown)
                             writer.header = header
                             let sink = OutputSink(capturing: ())
                             writer.write(sections: sections, key: keyName, to: sink)
                             return String(decoding: sink.takeCaptured(), as: UTF8.self)
                         },
                         scope: { stats in store.readScope(filter, stats: stats, needed: needed) })
    }

    /// The query's rows as `quakes query --format csv` streams them.
    static func queryCSV(_ store: Store, _ spec: QuerySpec, _ shown: [Column], header: Bool) throws -> String {
        var writer = ResultWriter(format: .csv, columns: shown)
        writer.header = header
        writer.offset = spec.offset
        let sink = OutputSink(capturing: ())
        let stream = writer.stream(to: sink)
        _ = try store.query(spec, columns: shown, begin: { count, _ in stream.begin(count: count, cursor: nil) },
                            chunk: stream.rows)
        stream.end()
        return String(decoding: sink.takeCaptured(), as: UTF8.self)
    }

    /// The groups as `quakes agg --format csv` prints them.
    static func aggregateCSV(_ writer: AggregateWriter, _ rows: [AggregateRow]) -> String {
        func quoted(_ cell: String) -> String {
            guard cell.contains(",") || cell.contains("\"") || cell.contains("\n") else { return cell }
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var text = writer.header ? writer.names.map(quoted).joined(separator: ",") + "\n" : ""
        for row in rows {
            let keys = row.keys.map { $0 ?? "" }
            let values = zip(row.values, writer.metrics).map { value, metric in
                value.map { writer.text($0, metric, rounded: false) } ?? ""
            }
            text += (keys + values).map(quoted).joined(separator: ",") + "\n"
        }
        return text
    }

    /// Splits a line into words, honouring single and double quotes.
    static func shellWords(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var quotedWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                quotedWord = true
            } else if character == " " || character == "\t" {
                if quotedWord || !current.isEmpty { words.append(current) }
                current = ""
                quotedWord = false
            } else {
                current.append(character)
            }
        }
        if quote != nil { throw ValidationError("unterminated quote") }
        if quotedWord || !current.isEmpty { words.append(current) }
        return words
    }
}
