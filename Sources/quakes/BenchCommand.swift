import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", _superCommandName: "quakes",
        abstract: "Time load, fetch, sort, count, aggregate, search and paging on a store or a generated one.",
        discussion: """
        With --rows, generates that many events into a temporary directory, loads them (timed) and runs the suite on the
        result. With --queries FILE, runs one query per line instead, written as for 'quakes query', 'quakes count' or
        'quakes agg' (e.g. "count --min-mag 4.5"), in-process; 'open --day D' times opening the store and planning.
        """
    )

    @Option(help: "Store to benchmark (default: $QUAKES_STORE, else ./quakes.store).") var store: String?
    @Option(help: "Generate and load this many events first (e.g. 1M, 10M).") var rows: String?
    @Option(help: "Timed runs per query (after one warm-up).") var runs: Int = 5
    @Option(help: "A file of queries, one per line.") var queries: String?
    @Flag(help: "Report each column's codecs, size and decode/encode speed instead.") var codecs = false
    @Option(help: "Day for the day queries (default: a day in the middle of the data).") var day: String?
    @Option(help: "Year for the year queries (default: the year of --day).") var year: Int?
    @Option(help: "Locality for the day map search.") var locality: String = "Alaska"
    @Option(help: "Country for the place search.") var country: String = "Chile"
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        if let rows, GenerateCommand.count(rows) == nil { throw ValidationError("--rows: expected a count like 1M") }
        if runs < 1 { throw ValidationError("--runs must be >= 1") }
        if let day, DateParsing.parse(day) == nil { throw ValidationError("--day: expected YYYY-MM-DD") }
    }

    func run() throws {
        if codecs {
            let report = try Store(path: Store.defaultPath(explicit: store)).codecReport()
            if json {
                let e = JSONEncoder()
                e.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try e.encode(report), as: UTF8.self))
                return
            }
            print("column".padding(toLength: 16, withPad: " ", startingAt: 0) + "codecs".padding(toLength: 26, withPad: " ", startingAt: 0)
                  + "bytes/row".leftPad(10) + "decode Mrows/s".leftPad(16) + "encode Mrows/s".leftPad(16))
            for r in report {
                let rows = Double(max(1, r.rows))
                print(r.column.padding(toLength: 16, withPad: " ", startingAt: 0)
                      + r.codecs.joined(separator: ",").padding(toLength: 26, withPad: " ", startingAt: 0)
                      + String(format: "%10.2f%16.1f%16.1f", Double(r.bytes) / rows, rows / 1e3 / max(r.decodeMs, 1e-6),
                               rows / 1e3 / max(r.encodeMs, 1e-6)))
            }
            return
        }
        var results: [BenchResult] = []
        let s: Store
        if let rows {
            let n = GenerateCommand.count(rows)!
            let dir = NSTemporaryDirectory() + "quakes-bench-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var o = GeneratorOptions(rows: n)
            o.overlap = 0
            let files = try FeedGenerator.generate(o, into: dir + "/feed")
            let bytes = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
            s = try Store.openOrCreate(path: dir + "/store")
            let t0 = Date()
            let summary = try s.load([dir + "/feed"])
            let secs = Date().timeIntervalSince(t0)
            results.append(BenchResult(name: "load \(n) rows (CSV \(bytes / 1_000_000) MB)", runs: 1, medianMs: secs * 1000, minMs: secs * 1000,
                                       maxMs: secs * 1000, rowsOut: summary.new, rowsPerSecond: Double(summary.rowsRead) / secs,
                                       megabytesPerSecond: Double(bytes) / 1e6 / secs))
            results.append(BenchResult(name: "store size: \(try s.info().diskBytes) bytes", runs: 0, medianMs: 0, minMs: 0, maxMs: 0, rowsOut: 0,
                                       rowsPerSecond: 0, megabytesPerSecond: 0))
            try runSuite(s, into: &results)
        } else {
            s = try Store(path: Store.defaultPath(explicit: store))
            try runSuite(s, into: &results)
        }
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(results), as: UTF8.self))
            return
        }
        let w = max(20, results.map(\.name.count).max() ?? 0)
        let head: String = "case".padding(toLength: w, withPad: " ", startingAt: 0) + "median ms".leftPad(11)
            + "min ms".leftPad(10) + "max ms".leftPad(10)
        print(head + "rows out".leftPad(10) + "rows/s".leftPad(14) + "MB/s".leftPad(9))
        for r in results {
            let times: String = String(format: "%11.2f%10.2f%10.2f", r.medianMs, r.minMs, r.maxMs)
            let rates: String = String(format: "%14.0f%9.1f", r.rowsPerSecond, r.megabytesPerSecond)
            print(r.name.padding(toLength: w, withPad: " ", startingAt: 0) + times + "\(r.rowsOut)".leftPad(10) + rates)
        }
    }

    private func runSuite(_ s: Store, into results: inout [BenchResult]) throws {
        let cases: [BenchCase]
        if let queries {
            cases = try BenchCommand.cases(fromFile: queries, store: s)
        } else {
            let mid = s.manifest.partitions.isEmpty ? 0 : s.manifest.partitions[s.manifest.partitions.count / 2].minTime + 14 * 86_400_000
            let d = day ?? String(Timestamp.string(mid).prefix(10))
            let y = year ?? Int(d.prefix(4)) ?? 2024
            cases = s.standardBenchSuite(day: d, year: y, locality: locality, country: country)
        }
        for c in cases { results.append(try BenchRunner.measure(c, runs: runs)) }
    }

    /// One benchmark case per line of `path`: `query …`, `count …` or `agg …`.
    static func cases(fromFile path: String, store s: Store) throws -> [BenchCase] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [BenchCase] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = try shellWords(line)
            let rest = Array(words.dropFirst())
            do {
                switch words[0] {
                case "query":
                    let c = try QueryCommand.parse(rest)
                    let spec = try c.page.spec(filter: try c.filters.filter(in: s))
                    let cols = try c.columns() ?? ResultWriter.tableColumns
                    out.append(BenchCase(name: line, run: { try s.query(spec, columns: cols).count },
                                         workload: {
                                             s.workload(spec.filter, columns: ColumnSet(cols).union(spec.filter.columns))
                                         }))
                case "count":
                    let f = try CountCommand.parse(rest).filters.filter(in: s)
                    out.append(BenchCase(name: line, run: { try s.count(f) }, workload: { s.workload(f, columns: f.columns) }))
                case "open":
                    // open --day D (or any filter): open the store anew and plan, no scan
                    let f = try CountCommand.parse(rest).filters.filter(in: s)
                    out.append(Store.openAndPlanCase(path: s.path, filter: f, name: line))
                case "agg":
                    let c = try AggCommand.parse(rest)
                    let f = try c.filters.filter(in: s), g = try c.groups(), m = try c.metricList(), o = try c.order()
                    out.append(BenchCase(name: line, run: { try s.aggregate(f, by: g, metrics: m, order: o).0.count },
                                         workload: { s.workload(f, columns: f.columns.union(m.compactMap(\.column))) }))
                default:
                    throw ValidationError("\(path):\(n + 1): expected query, count, agg or open, found '\(words[0])'")
                }
            } catch let e as ValidationError {
                throw e
            } catch {
                throw ValidationError("\(path):\(n + 1): \(Quakes.message(for: error))")
            }
        }
        return out
    }

    /// Splits a line into words, honouring single and double quotes.
    static func shellWords(_ line: String) throws -> [String] {
        var words: [String] = [], cur = "", quote: Character?, any = false
        for ch in line {
            if let q = quote {
                if ch == q { quote = nil } else { cur.append(ch) }
            } else if ch == "'" || ch == "\"" {
                quote = ch; any = true
            } else if ch == " " || ch == "\t" {
                if any || !cur.isEmpty { words.append(cur); cur = ""; any = false }
            } else {
                cur.append(ch)
            }
        }
        if quote != nil { throw ValidationError("unterminated quote in: \(line)") }
        if any || !cur.isEmpty { words.append(cur) }
        return words
    }
}
