import Foundation
import Testing

/// What the CLI says when asked for help or given something wrong: the version, a typo's
/// nearest command, the values of every format option in help, and the choices in an error.
@Suite struct ErrorMessageTests {
    @Test func versionTyposAndHelp() throws {
        let v = try CLI.run(["--version"])
        #expect(v.status == 0 && v.stdout.hasPrefix("quakes "))
        let t = try CLI.run(["quer"])
        #expect(t.status == 2 && t.stderr == "quakes: unknown command 'quer'; did you mean 'query'? (see 'quakes --help')\n")
        let e = try CLI.run(["explain", "--help"])
        #expect(e.status == 0 && e.stdout.contains("Run a query, count, agg or sections command"))
        let eq = try CLI.run(["explain", "query", "--help"])
        #expect(eq.status == 0 && eq.stdout.contains("List matching events"))
        func flat(_ s: String) -> String { s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let ah = try CLI.run(["agg", "--help"])
        #expect(flat(ah.stdout).contains("(values: table, csv, json, ndjson, arrow, parquet, svg;"))
        let sh = try CLI.run(["sections", "--help"])
        #expect(flat(sh.stdout).contains("(values: table, json, ndjson;"))
        let qh = try CLI.run(["query", "--help"])
        #expect(flat(qh.stdout).contains("(values: table, csv, json, ndjson, geojson, text, parquet, arrow, svg, kml;"))
        let hh = try CLI.run(["history", "--help"])
        #expect(flat(hh.stdout).contains("(values: table, csv, json, ndjson;"))
        let xh = try CLI.run(["export", "--help"])
        #expect(flat(xh.stdout).contains("(values: csv, geojson, parquet, kml;"))
    }

    @Test func choicesAreListedInErrors() throws {
        let r = try CLI.run(["query", "--format", "xml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("table, csv, json, ndjson, geojson, text, parquet, arrow, svg"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }
}
