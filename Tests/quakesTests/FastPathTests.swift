import Foundation
import Testing
import ArgumentParser
@testable import quakes
@testable import QuakeTestSupport
import QuakeGenerator

/// The one-shot fast path reads exactly what ArgumentParser reads, or steps aside: on random
/// command lines over every option name query and count declare, whatever it returns equals
/// ArgumentParser's values, and the binary prints the same with the fast path on and off.
@Suite struct FastPathTests {
    /// Every `--name` a command's help lists: the options and their aliases, from the start of
    /// each option's line (not the names its description mentions).
    static func names(_ help: String) -> [String] {
        let re = try! NSRegularExpression(pattern: "--[a-z][a-z-]*")
        var all = Set<String>()
        for line in help.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            guard text.hasPrefix("-") else { continue }
            let head = String(text.prefix { $0 != "<" }.split(separator: "  ").first ?? "")
            let ns = head as NSString
            for m in re.matches(in: head, range: NSRange(location: 0, length: ns.length)) { all.insert(ns.substring(with: m.range)) }
        }
        return Array(all.subtracting(["--help"])).sorted()
    }

    static let values = ["2024-06-15", "Alaska", "4.5", "-3", "0", "12", "nan", "1e3", "abc", "", "mag:desc", "time",
                         "32,42,-125,-114", "-30,-150", "csv", "json", "table", "fit", "age", "id,mag,place", "-", "--x",
                         "mag >= 4", "a b", " 7 ", "2", "inf", "-0.5", "world", "depth", "time:asc", "distance"]

    static func randomLine(_ names: [String], _ rng: inout SplitMix64) -> [String] {
        var line: [String] = []
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            let name = names[Int(rng.next() % UInt64(names.count))]
            let value = values[Int(rng.next() % UInt64(values.count))]
            switch rng.next() % 5 {
            case 0: line.append(name)
            case 1: line.append(name + "=" + value)
            default: line += [name, value]
            }
        }
        return line
    }

    static func check(_ command: String, _ arguments: [String]) {
        let fast = FastPath.parse([command] + arguments)
        let parsed: FastPath.Command?
        switch command {
        case "query": parsed = (try? QueryCommand.parseAsRoot(arguments) as? QueryCommand).map { .query($0.args) }
        default: parsed = (try? CountCommand.parseAsRoot(arguments) as? CountCommand).map { .count($0.args) }
        }
        // a line the fast path leaves to ArgumentParser has nothing to compare
        if let fast, (try? fast.validateAll()) != nil {
            // ArgumentParser parses and validates the line too, to the same values
            #expect(parsed == fast, "\(command) \(arguments)")
        } else if let fast, let parsed {
            // what ArgumentParser accepted, the fast path read the same
            #expect(parsed == fast, "\(command) \(arguments)")
        }
    }

    @Test func randomLinesReadAsArgumentParserReadsThem() {
        var rng = SplitMix64(seed: 77)
        let queryNames = Self.names(QueryCommand.helpMessage(columns: 400))
        let countNames = Self.names(CountCommand.helpMessage(columns: 400))
        #expect(queryNames.count > 40 && countNames.count > 30)
        var taken = 0
        for _ in 0..<3000 {
            let q = Self.randomLine(queryNames, &rng)
            Self.check("query", q)
            if FastPath.parse(["query"] + q) != nil { taken += 1 }
            Self.check("count", Self.randomLine(countNames, &rng))
        }
        #expect(taken > 300)
    }

    @Test func everyOptionNameIsReadAlone() {
        // each option with a value it accepts: the fast path takes it, and reads what ArgumentParser reads
        for (command, help) in [("query", QueryCommand.helpMessage(columns: 400)), ("count", CountCommand.helpMessage(columns: 400))] {
            for name in Self.names(help) where !["--version", "--experimental-dump-help"].contains(name) {
                var taken = false
                for value in ["2", "2024-06-15", "mag", "csv", "fit", "age", "id", "1,2,3,4", "10,20"] {
                    let flags = ["--no-header", "--cursor", "--watch", "--include-deleted"]
                    // --plot goes with --format svg alone
                    let line = flags.contains(name) ? [name] : name == "--plot" ? ["--format", "svg", name, "magtime"]
                        : [name, value]
                    Self.check(command, line)
                    if FastPath.parse([command] + line) != nil { taken = true }
                }
                #expect(taken, "\(command) \(name)")
            }
        }
    }

    @Test func commonLinesTakeTheFastPath() {
        for line in [["query", "--day", "2024-06-15", "--sort", "time:desc", "--page", "3", "--page-size", "50"],
                     ["query", "--place", "Chile", "--sort", "mag:desc", "--limit", "100", "--fields", "time,mag,place,id"],
                     ["count", "--min-mag", "4.5"], ["count", "--bbox", "32,42,-125,-114", "--min-mag", "2.0"],
                     ["query", "--minlatitude=-10", "--format", "csv", "--no-header"]] {
            #expect(FastPath.parse(line) != nil, "\(line)")
        }
        for line in [["query", "--help"], ["query", "-h"], ["query", "--day"], ["count", "--limit", "3"],
                     ["query", "--day", "2024-06-15", "--day", "2024-06-16"], ["query", "--place", "-x"],
                     ["query", "--format", "yaml"], ["query", "--limit", "ten"], ["query", "--", "--day"], ["agg"]] {
            #expect(FastPath.parse(line) == nil, "\(line)")
        }
    }

    @Test func blanksTrimAsFoundationTrims() {
        var rng = SplitMix64(seed: 5)
        let pieces = [" ", "\t", "\u{00A0}", "\u{3000}", "\u{2009}", "\n", "a", "é", "x y", "\u{200B}", ","]
        for _ in 0..<2000 {
            let s = (0..<Int(rng.next() % 7)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
            #expect(s.trimmingBlanks == s.trimmingCharacters(in: .whitespaces), "\(Array(s.unicodeScalars))")
        }
    }

    @Test func theBinaryPrintsTheSameEitherWay() throws {
        let s = QueryCommandTests.store
        let lines: [[String]] = [
            ["query", "--sort", "mag:desc", "--limit", "7"], ["query", "--day", "2024-03-01", "--format", "csv"],
            ["query", "--page", "2", "--page-size", "5", "--fields", "id, mag ,place"], ["count", "--min-mag", "2"],
            ["count", "--place-like", "alaska"], ["query", "--limit", "-1"], ["query", "--fields", "bogus"],
            ["count", "--bbox", "1,2,3"], ["query", "--near", "61,-150", "--radius-km=200", "--format", "json"],
            ["query", "--sort", "distance", "--near", "61,-150", "--limit", "3", "--fields", "id,distance_km"],
            ["query", "--where", "mag >= 4 && depth < 10", "--format", "ndjson", "--limit", "4"],
            ["query", "--orderby", "magnitude", "--limit", "3", "--no-header", "--format", "text"],
        ]
        for line in lines {
            let fast = try CLI.run(line + ["--store", s])
            let slow = try CLI.run(line + ["--store", s], env: ["QUAKES_ARGUMENT_PARSER": "1"])
            #expect(fast.status == slow.status, "\(line)")
            #expect(fast.stdout == slow.stdout, "\(line)")
            #expect(fast.stderr == slow.stderr, "\(line)")
        }
    }

    /// A load line against ArgumentParser's reading of it: when the fast path takes and validates
    /// it, ArgumentParser reads the same values; when both read it, the same.
    static func checkLoad(_ arguments: [String]) {
        let fast = FastPath.parse(["load"] + arguments)
        let parsed = (try? LoadCommand.parseAsRoot(arguments) as? LoadCommand).map { FastPath.Command.load($0.args) }
        if let fast, (try? fast.validateAll()) != nil {
            #expect(parsed == fast, "load \(arguments)")
        } else if let fast, let parsed {
            #expect(parsed == fast, "load \(arguments)")
        }
    }

    @Test func randomLoadLinesReadAsArgumentParserReadsThem() {
        var rng = SplitMix64(seed: 78)
        let names = Self.names(LoadCommand.helpMessage(columns: 400)) + ["-v"]
        #expect(names.contains("--store") && names.contains("--json") && names.contains("--wait"))
        let words = ["a.csv", "feeds/", "-", "--", "s.store", "x=y.csv", "%d-%m-%y", "month", "ms", "5s", ""]
        var taken = 0
        for _ in 0..<3000 {
            var line: [String] = []
            for _ in 0..<(1 + Int(rng.next() % 5)) {
                let word = words[Int(rng.next() % UInt64(words.count))]
                switch rng.next() % 4 {
                case 0: line.append(word)
                case 1: line.append(names[Int(rng.next() % UInt64(names.count))] + "=" + word)
                default: line += [names[Int(rng.next() % UInt64(names.count))], word]
                }
            }
            Self.checkLoad(line)
            if let fast = FastPath.parse(["load"] + line), (try? fast.validateAll()) != nil { taken += 1 }
        }
        #expect(taken > 200)
    }

    @Test func plainLoadLinesTakeTheFastPath() {
        for line in [["load", "--store", "s", "a.csv"], ["load", "a.csv", "b.csv.gz", "--json"],
                     ["load", "-v", "--store=s", "feeds/"], ["load", "--strict", "--fix-text", "a.csv"]] {
            let fast = FastPath.parse(line)
            #expect(fast != nil && (try? fast?.validateAll()) != nil, "\(line)")
            Self.checkLoad(Array(line.dropFirst()))
        }
        for line in [["load", "--help"], ["load", "-"], ["load", "--wait", "a.csv"], ["load", "--", "a.csv"],
                     ["load", "--store", "-x", "a.csv"], ["load", "--json", "--json", "a.csv"],
                     ["load", "--partition", "day", "a.csv"], ["load", "--json=1", "a.csv"]] {
            #expect(FastPath.parse(line) == nil, "\(line)")
        }
        // no path, or a URL: the fast path's values fail the command's checks, and ArgumentParser says why
        for line in [["load"], ["load", "--store", "s"], ["load", "http://127.0.0.1:9/q.csv"]] {
            #expect((try? FastPath.parse(line)?.validateAll()) == nil, "\(line)")
        }
    }

    @Test func theBinaryLoadsTheSameEitherWay() throws {
        let directory = TestSupport.tempDir("fastload")
        var options = GeneratorOptions(rows: 400)
        options.firstYear = 2020
        options.lastYear = 2020
        options.rowsPerFile = 200
        let files = try FeedGenerator.generate(options, into: directory + "/feed")
        let broken = directory + "/broken.csv"
        TestSupport.write("time,latitude,longitude,depth,mag,id\n2020-01-01T00:00:00Z,1,2,3,4,a1\nnot,a,row\n", to: broken)
        let lines: [[String]] = [[files[0]], [files[1], "--json"], ["-v", directory + "/feed"], [broken],
                                 ["--strict", broken], [directory + "/missing.csv"], ["--fix-text", files[0]]]
        for (index, line) in lines.enumerated() {
            let fast = try CLI.run(["load", "--store", directory + "/fast\(index)"] + line)
            let slow = try CLI.run(["load", "--store", directory + "/slow\(index)"] + line,
                                   env: ["QUAKES_ARGUMENT_PARSER": "1"])
            #expect(fast.status == slow.status, "\(line)")
            // the timings differ; every other line is the same
            func steady(_ text: String) -> [String] {
                text.split(separator: "\n").map(String.init).filter { !$0.contains("elapsed") && !$0.contains("Seconds") }
                    .map { $0.replacingOccurrences(of: "/fast\(index)", with: "/S").replacingOccurrences(of: "/slow\(index)", with: "/S") }
            }
            #expect(steady(fast.stderr) == steady(slow.stderr), "\(line)")
            if !line.contains("--json") { #expect(steady(fast.stdout) == steady(slow.stdout), "\(line)") }
            let counts = try CLI.run(["count", "--store", directory + "/fast\(index)"])
            let slowCounts = try CLI.run(["count", "--store", directory + "/slow\(index)"])
            #expect(counts.stdout == slowCounts.stdout, "\(line)")
        }
    }
}
