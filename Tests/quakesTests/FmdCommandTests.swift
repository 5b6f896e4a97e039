import Foundation
import Testing
import QuakeStore

/// `quakes fmd` end to end: its JSON is the library's distribution, its count is `count`'s
/// under the same filters, its CSV and table have the documented shape, `--out` writes the
/// same text, usage errors exit 2 with one line, and `--help` states the definitions.
@Suite struct FmdCommandTests {
    static let store = Result { try CLI.generatedStore(rows: "4000", seed: 71, tag: "fmd") }

    @Test func jsonIsTheLibrarysDistribution() throws {
        let path = try Self.store.get()
        let library = try Store.openOrCreate(path: path)
        let cases: [([String], Double, MagnitudeOfCompleteness)] = [
            ([], 0.1, .maximumCurvature(correction: 0.2)),
            (["--bin", "0.2", "--mc-correction", "0.4"], 0.2, .maximumCurvature(correction: 0.4)),
            (["--bin", "0.05", "--mc", "1.5"], 0.05, .fixed(1.5)),
            // numbers starting with '-' are values, as for the filters
            (["--mc", "-0.5"], 0.1, .fixed(-0.5)),
            (["--mc-correction", "-0.1"], 0.1, .maximumCurvature(correction: -0.1)),
        ]
        for (arguments, bin, mc) in cases {
            let result = try CLI.run(["fmd", "--store", path, "--format", "json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let decoded = try JSONDecoder().decode(FrequencyMagnitude.self, from: Data(result.stdout.utf8))
            #expect(decoded == (try library.frequencyMagnitude(FetchDescriptor<Quake>(), bin: bin, mc: mc)),
                    "\(arguments)")
            #expect(decoded.count == 4000 && decoded.b != nil)
            #expect(result.stdout.hasPrefix("{\"count\":4000,\"without_magnitude\":"), "\(result.stdout.prefix(80))")
        }
        let months = try CLI.run(["fmd", "--store", path, "--format", "json", "--by", "month"])
        struct Groups: Decodable { var groups: [FrequencyMagnitudeGroup] }
        let groups = try JSONDecoder().decode(Groups.self, from: Data(months.stdout.utf8)).groups
        #expect(groups == (try library.frequencyMagnitude(FetchDescriptor<Quake>(), by: .month)))
        #expect(!groups.isEmpty)
    }

    @Test func filtersAreCounts() throws {
        let path = try Self.store.get()
        for filter in [["--min-mag", "2"], ["--min-depth", "10", "--max-depth", "40"], ["--last", "100000d"]] {
            let counted = try CLI.run(["count", "--store", path] + filter)
            let fmd = try CLI.run(["fmd", "--store", path, "--format", "json"] + filter)
            #expect(fmd.status == 0 && counted.status == 0, "\(filter): \(fmd.stderr)\(counted.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(fmd.stdout.utf8)) as? [String: Any]
            #expect(object?["count"] as? Int == Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                    "\(filter)")
        }
    }

    @Test func csvTableAndOut() throws {
        let path = try Self.store.get()
        let csv = try CLI.run(["fmd", "--store", path, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "magnitude,count,cumulative")
        let json = try CLI.run(["fmd", "--store", path, "--format", "json"])
        let decoded = try JSONDecoder().decode(FrequencyMagnitude.self, from: Data(json.stdout.utf8))
        #expect(lines.count == decoded.bins.count + 1)
        #expect(lines.dropFirst().first == decoded.bins.first.map { "\($0.magnitude),\($0.count),\($0.cumulative)" })
        let windows = try CLI.run(["fmd", "--store", path, "--format", "csv", "--by", "500"])
        let rows = windows.stdout.split(separator: "\n")
        #expect(rows.first == "key,count,without_magnitude,bin,mc,events_above_mc,b,b_uncertainty,a")
        #expect(rows.count == 1 + (decoded.count - decoded.withoutMagnitude + 499) / 500)
        let table = try CLI.run(["fmd", "--store", path])
        #expect(table.status == 0 && table.stdout.contains("events >= Mc:") && table.stdout.contains("cumulative"))
        #expect(table.stdout.contains("b:") && table.stdout.contains("±"), "\(table.stdout.prefix(400))")
        let out = CLI.tempDir() + "/fmd.json"
        let written = try CLI.run(["fmd", "--store", path, "--format", "json", "--out", out])
        #expect(written.status == 0 && written.stdout.isEmpty)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == json.stdout)
    }

    @Test(arguments: [["--bin", "0"], ["--bin", "-1"], ["--mc", "lots"], ["--by", "week"], ["--by", "0"],
                      ["--mc", "2", "--mc-correction", "0.1"], ["--format", "png"], ["--bin", "0.0000000001"],
                      ["--bin", "200"], ["--mc", "1.0000000001"], ["--by", "-5"]])
    func usageErrorsExitTwoWithOneLine(_ arguments: [String]) throws {
        let path = try Self.store.get()
        let result = try CLI.run(["fmd", "--store", path] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
        // a debug binary's dynamic linker may add its own warnings; the rest is the hint
        let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: direct reference") }
        #expect(result.stdout.isEmpty)
        #expect(lines.count == 1 && lines.first?.hasPrefix("quakes: ") == true, "\(result.stderr)")
        #expect(result.stderr.contains(arguments[arguments.count - 2]), "\(result.stderr)")
    }

    @Test func helpStatesTheDefinitionsAndReferences() throws {
        let help = try CLI.run(["fmd", "--help"])
        #expect(help.status == 0)
        // the help is wrapped to the terminal: compare with single spaces
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["floor(M/D + 1/2)", "Aki", "1965", "Utsu", "1966", "Shi & Bolt", "1982", "Woessner & Wiemer",
                       "2005", "maximum-curvature", "fewer than 50"] {
            #expect(text.contains(phrase), "\(phrase)")
        }
    }
}
