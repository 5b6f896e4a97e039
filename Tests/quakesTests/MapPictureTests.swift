import Foundation
import Testing

/// `quakes query --format svg`, checked as a person would: rendered to PNG by rsvg-convert,
/// and the circles read back from the SVG itself (count, draw order, placement); a fitted map
/// across the antimeridian.
@Suite struct MapPictureTests {
    struct Circle { var cx: Double; var cy: Double; var r: Double; var mag: Double? }

    /// The circles of the map's `quakes` group, in document (draw) order.
    static func circles(_ svg: String) -> [Circle] {
        guard let start = svg.range(of: "<g id=\"quakes\""), let end = svg.range(of: "</g>", range: start.upperBound..<svg.endIndex)
        else { return [] }
        func attr(_ s: Substring, _ name: String) -> String? {
            guard let a = s.range(of: " \(name)=\"") else { return nil }
            let rest = s[a.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        return svg[start.upperBound..<end.lowerBound].components(separatedBy: "<circle").dropFirst().map { c in
            let s = Substring(c)
            return Circle(cx: Double(attr(s, "cx") ?? "") ?? .nan, cy: Double(attr(s, "cy") ?? "") ?? .nan,
                          r: Double(attr(s, "r") ?? "") ?? .nan, mag: attr(s, "data-mag").flatMap(Double.init))
        }
    }

    /// Renders `svg` with rsvg-convert and returns the PNG's width and height.
    static func render(_ svgPath: String) throws -> (width: Int, height: Int) {
        let png = svgPath + ".png"
        let r = try CLI.exec("/usr/bin/env", ["rsvg-convert", svgPath, "-o", png])
        try #require(r.status == 0, "rsvg-convert failed (install librsvg2-bin): \(r.stderr)")
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        try #require(b.count > 24 && b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        func be32(_ o: Int) -> Int { b[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    static func size(_ svg: String) -> (Int, Int)? {
        guard let w = svg.range(of: "width=\""), let h = svg.range(of: "height=\"") else { return nil }
        func num(_ r: Range<String.Index>) -> Int? { Double(svg[r.upperBound...].prefix { $0 != "\"" }).map { Int($0.rounded()) } }
        guard let a = num(w), let b = num(h) else { return nil }
        return (a, b)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ProgressTerminalTests.hasRsvgConvert, "needs rsvg-convert (make test installs librsvg2-bin)"))
    func theMapDrawsTheQueryLargestFirstAndRenders() throws {
        let feed = CLI.usgs + "/csv_2019-06-19_2019-07-19_3121.csv"
        try #require(FileManager.default.fileExists(atPath: feed), "a real feed is missing from \(CLI.usgs)")
        let d = CLI.tempDir()
        let s = d + "/s"
        #expect(try CLI.run(["load", "--store", s, feed]).status == 0)
        for (args, cap) in [(["--day", "2019-07-06"], 300), (["--min-mag", "4.5"], 5000), (["--bbox", "30,40,-125,-110"], 800)] {
            for region in ["world", "fit"] {
                let out = d + "/map-\(cap)-\(region).svg"
                let r = try CLI.run(["query", "--store", s, "--format", "svg", "--out", out, "--region", region,
                                     "--limit", "\(cap)", "--color-by", cap == 800 ? "age" : "depth"] + args)
                #expect(r.status == 0, "\(r.stderr)")
                let svg = try String(contentsOfFile: out, encoding: .utf8)
                let total = Int(try CLI.run(["count", "--store", s] + args).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
                let cs = Self.circles(svg)
                #expect(cs.count == min(cap, total) && total > 0, "\(args): \(cs.count) circles, \(total) matched")
                // draw order: descending magnitude (and so non-increasing radius), exactly the query's
                let mags = cs.map { $0.mag ?? -.infinity }
                #expect(mags == mags.sorted(by: >), "\(args): circles not in descending magnitude")
                #expect(cs.map(\.r) == cs.map(\.r).sorted(by: >))
                let csv = try CLI.run(["query", "--store", s, "--orderby", "magnitude", "--limit", "\(cap)", "--fields", "mag",
                                       "--format", "csv", "--no-header"] + args).stdout
                #expect(csv.split(separator: "\n").map { Double($0) ?? -.infinity } == mags)
                // title and legend say what was drawn
                #expect(svg.contains(total > cap ? "\(Self.grouped(total)) events matched; the \(Self.grouped(cap)) largest drawn"
                                     : "\(Self.grouped(total)) event"))
                #expect(svg.contains(total > cap ? "Only the \(Self.grouped(cap)) largest are drawn" : "Larger circles are drawn first"))
                #expect(svg.contains("quakes query " + args.joined(separator: " ")) && svg.contains("id=\"graticule\""))
                // every circle inside the map frame
                let (w, h) = try #require(Self.size(svg))
                #expect(cs.allSatisfy { $0.cx >= 0 && $0.cx <= Double(w) && $0.cy >= 0 && $0.cy <= Double(h) })
                let png = try Self.render(out)
                #expect(png.width == w && png.height == h)
            }
        }
        // usage errors
        #expect(try CLI.run(["query", "--store", s, "--format", "svg", "--sort", "time"]).status == 2)
        #expect(try CLI.run(["query", "--store", s, "--format", "svg", "--region", "moon"]).status == 2)
        // to stdout, with a place holding XML's special characters escaped
        let piped = try CLI.run(["query", "--store", s, "--format", "svg", "--limit", "10"])
        #expect(piped.stdout.hasPrefix("<svg") && Self.circles(piped.stdout).count == 10)
    }

    static func grouped(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US")
        return f.string(from: NSNumber(value: n)) ?? "\(n)"
    }

    @Test func aMapAroundFijiIsFittedAcrossTheAntimeridian() throws {
        let d = CLI.tempDir()
        var lines = ["time,latitude,longitude,depth,mag,id,updated,place"]
        let points: [(Double, Double)] = [(-17.5, 177.2), (-18.1, 179.6), (-19.0, -179.4), (-20.3, -178.1), (-16.2, 178.8)]
        for (k, p) in points.enumerated() {
            lines.append("2024-03-0\(k + 1)T00:00:00Z,\(p.0),\(p.1),500,\(5 + Double(k) / 10),fj\(k),2024-03-10T00:00:00Z,Fiji")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: d + "/fiji.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/fiji.csv"]).status == 0)
        let r = try CLI.run(["query", "--store", d + "/s", "--format", "svg", "--region", "fit", "--out", d + "/m.svg"])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: d + "/m.svg", encoding: .utf8)
        func numbers(_ attr: String, in text: Substring) -> [Double] {
            text.components(separatedBy: attr + "=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        }
        let map = try #require(svg.split(separator: "\n").first { $0.contains("id=\"map\"") })
        let left = numbers("x", in: map)[0], width = numbers("width", in: map)[0]
        let circles = svg.split(separator: "\n").filter { $0.hasPrefix("<circle") && $0.contains("data-mag") }
        let xs = circles.flatMap { numbers("cx", in: $0) }
        #expect(xs.count == points.count)
        // all five events lie together in the middle of the map, not split onto both edges
        #expect(xs.allSatisfy { $0 > left + width * 0.05 && $0 < left + width * 0.95 }, "\(xs)")
        #expect((xs.max() ?? 0) - (xs.min() ?? 0) < width * 0.9)
        // drawn largest first: 178.8°E (M5.4) lies left of 179.4°W (M5.2)
        #expect(xs[0] < xs[2], "\(xs)")
        #expect(svg.contains(">180°E<") || svg.contains(">180°W<"))
        #expect(svg.contains("°S</text>"), "latitude labels")
    }
}
