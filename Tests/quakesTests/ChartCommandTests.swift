import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The figures of `fmd`, `agg` and `query --plot magtime` end to end: each written with
/// `--format svg` (to `--out` or standard output), read back with `XMLParser`, and rendered
/// to a PNG of the stated size by rsvg-convert (skipped, not passed, without it); and the
/// usage errors of `--plot` and `--cumulative`, exit 2 with one line.
@Suite struct ChartCommandTests {
    static let store = Result { try CLI.generatedStore(rows: "3000", seed: 72, tag: "charts") }

    /// The figure's marks in group `group`, counted from the SVG text.
    static func marks(_ svg: String, _ name: String, in group: String) -> Int {
        guard let start = svg.range(of: "<g id=\"\(group)\""),
              let end = svg.range(of: "</g>", range: start.upperBound..<svg.endIndex) else { return 0 }
        return svg[start.upperBound..<end.lowerBound].components(separatedBy: "<\(name) ").count - 1
    }

    /// Writes `arguments`' figure to a file, checks it parses and renders at its stated size,
    /// and returns its text.
    static func figure(_ arguments: [String], name: String) throws -> String {
        let out = CLI.tempDir("charts") + "/" + name + ".svg"
        let result = try CLI.run(arguments + ["--out", out])
        try #require(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(name): not well-formed XML")
        let (width, height) = try #require(MapPictureTests.size(svg))
        let png = try MapPictureTests.render(out)
        #expect(png.width == width && png.height == height, "\(name): \(png) against \(width)×\(height)")
        let bytes = (try? FileManager.default.attributesOfItem(atPath: out + ".png")[.size] as? Int) ?? 0
        #expect(bytes > 1000, "\(name): a PNG of \(bytes) bytes")
        return svg
    }

    @Test(.enabled(if: ProgressTerminalTests.hasRsvgConvert, "needs rsvg-convert (make test installs librsvg2-bin)"))
    func fmdFiguresRender() throws {
        let path = try Self.store.get()
        let single = try Self.figure(["fmd", "--store", path, "--format", "svg", "--min-mag", "0.5"], name: "fmd")
        let json = try CLI.run(["fmd", "--store", path, "--format", "json", "--min-mag", "0.5"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let bins = try #require(object["bins"] as? [[String: Any]])
        #expect(Self.marks(single, "rect", in: "bins") == bins.filter { ($0["count"] as? Int ?? 0) > 0 }.count)
        let sigma = try #require(object["b_uncertainty"] as? Double)
        let bValue = try #require(object["b"] as? Double)
        #expect(single.contains(String(format: "b = %.2f ± %.2f", bValue, sigma)), "\(single.suffix(1500))")
        #expect(single.contains("id=\"gr-line\"") && single.contains("id=\"mc-line\""))
        #expect(single.contains("filter: M ≥ 0.5"))
        let yearly = try Self.figure(["fmd", "--store", path, "--format", "svg", "--by", "year"], name: "fmd-year")
        let groups = try CLI.run(["fmd", "--store", path, "--format", "csv", "--by", "year"])
        let withB = groups.stdout.split(separator: "\n").dropFirst().filter { $0.split(separator: ",",
            omittingEmptySubsequences: false)[6] != "" }
        #expect(Self.marks(yearly, "circle", in: "points") == withB.count && !withB.isEmpty)
        #expect(yearly.contains("b-value against time"))
        let piped = try CLI.run(["fmd", "--store", path, "--format", "svg"])
        #expect(piped.status == 0 && piped.stdout.hasPrefix("<?xml") && piped.stdout.hasSuffix("</svg>\n"))
    }

    @Test(.enabled(if: ProgressTerminalTests.hasRsvgConvert, "needs rsvg-convert (make test installs librsvg2-bin)"))
    func aggFiguresRender() throws {
        let path = try Self.store.get()
        let csv = try CLI.run(["agg", "--store", path, "--by", "month", "--format", "csv", "--no-header"])
        let months = csv.stdout.split(separator: "\n")
        let monthly = try Self.figure(["agg", "--store", path, "--by", "month", "--format", "svg"], name: "agg-month")
        #expect(Self.marks(monthly, "rect", in: "bars") == months.count && months.count > 1)
        let lines = try Self.figure(["agg", "--store", path, "--by", "month", "--metrics", "avg(mag),count",
                                     "--format", "svg"], name: "agg-avg")
        #expect(Self.marks(lines, "circle", in: "points") == months.count)
        let cumulative = try Self.figure(["agg", "--store", path, "--by", "month", "--cumulative", "--format", "svg"],
                                         name: "agg-cumulative")
        #expect(cumulative.contains("id=\"cumulative\"") && cumulative.contains("cumulative number of events"))
        let nets = try CLI.run(["agg", "--store", path, "--by", "net", "--format", "csv", "--no-header"])
        let byNet = try Self.figure(["agg", "--store", path, "--by", "net", "--format", "svg"], name: "agg-net")
        let netCount = nets.stdout.split(separator: "\n").count
        #expect(Self.marks(byNet, "rect", in: "bars") == netCount && netCount > 1)
    }

    @Test(.enabled(if: ProgressTerminalTests.hasRsvgConvert, "needs rsvg-convert (make test installs librsvg2-bin)"))
    func magnitudeTimeRenders() throws {
        let path = try Self.store.get()
        let svg = try Self.figure(["query", "--store", path, "--format", "svg", "--plot", "magtime", "--min-mag", "2"],
                                  name: "magtime")
        let counted = try CLI.run(["count", "--store", path, "--min-mag", "2"])
        let total = Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(Self.marks(svg, "circle", in: "events") == total && total > 0)
        let capped = try CLI.run(["query", "--store", path, "--format", "svg", "--plot", "magtime", "--limit", "10"])
        #expect(capped.status == 0 && Self.marks(capped.stdout, "circle", in: "events") == 10)
        #expect(capped.stdout.contains("more not read (raise --limit)"))
        let map = try CLI.run(["query", "--store", path, "--format", "svg", "--plot", "map", "--limit", "10"])
        #expect(map.status == 0 && MapPictureTests.circles(map.stdout).count == 10)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ProgressTerminalTests.hasRsvgConvert, "needs rsvg-convert (make test installs librsvg2-bin)"))
    func aRealWeekHasAnFmdFigure() throws {
        let feed = CLI.usgs + "/csv_2016-04-24_2016-05-01_1386.csv"
        try #require(FileManager.default.fileExists(atPath: feed), "a real feed is missing from \(CLI.usgs)")
        let path = CLI.tempDir() + "/s"
        #expect(try CLI.run(["load", "--store", path, feed]).status == 0)
        let svg = try Self.figure(["fmd", "--store", path, "--format", "svg"], name: "fmd-real")
        #expect(svg.contains("b = ") && svg.contains("id=\"gr-line\""))
        _ = try Self.figure(["query", "--store", path, "--format", "svg", "--plot", "magtime"], name: "magtime-real")
        _ = try Self.figure(["agg", "--store", path, "--by", "day", "--cumulative", "--format", "svg"],
                            name: "cumulative-real")
    }

    @Test(arguments: [
        ["query", "--plot", "magtime"], ["query", "--format", "csv", "--plot", "map"],
        ["query", "--format", "svg", "--plot", "histogram"], ["agg", "--by", "month", "--cumulative"],
        ["agg", "--by", "net", "--cumulative", "--format", "svg"],
        ["agg", "--by", "month", "--metrics", "avg(mag)", "--cumulative", "--format", "svg"],
        ["agg", "--by", "month", "--by", "net", "--format", "svg"], ["agg", "--format", "svg"],
        ["agg", "--by", "month", "--metrics", "max(time)", "--format", "svg"],
    ])
    func usageErrorsExitTwoWithOneLine(_ arguments: [String]) throws {
        let path = try Self.store.get()
        let result = try CLI.run([arguments[0], "--store", path] + arguments.dropFirst())
        #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: direct reference") }
        #expect(result.stdout.isEmpty)
        #expect(lines.count == 1 && lines.first?.hasPrefix("quakes: ") == true, "\(arguments): \(result.stderr)")
    }
}
