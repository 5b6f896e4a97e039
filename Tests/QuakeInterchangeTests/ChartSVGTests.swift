import Foundation
import Testing
@testable import QuakeInterchange
import QuakeStore
import QuakeFormat

/// Each chart's SVG read back with `XMLParser`: a standalone document of a stated size, the
/// marks one per value, the fitted line and the Mc line where the axes put a and b and Mc, the
/// legend stating b ± σ; empty and non-finite input drawn without a trap or a NaN.
@Suite struct ChartSVGTests {
    /// A distribution with bins from 1.0 to 4.0 and the given fit.
    static func distribution(b: Double?, sigma: Double?, a: Double?, mc: Double? = 1.5) -> FrequencyMagnitude {
        let magnitudes = (10...40).map { Double($0) / 10 }
        let counts = magnitudes.map { magnitude in max(0, Int(pow(10, 4.5 - magnitude).rounded()) - 3) }
        var bins: [FrequencyMagnitude.Bin] = []
        var above = counts.reduce(0, +)
        for (magnitude, count) in zip(magnitudes, counts) {
            bins.append(.init(magnitude: magnitude, count: count, cumulative: above))
            above -= count
        }
        let total = counts.reduce(0, +)
        return FrequencyMagnitude(count: total + 7, withoutMagnitude: 7, bin: 0.1, mc: mc, eventsAboveMc: 1234,
                                  b: b, bUncertainty: sigma, a: a, bins: bins)
    }

    /// Checks what every chart shares: well-formed, sized, sans-serif, no NaN or infinity.
    static func checkDocument(_ svg: String) throws -> SVGDocument {
        let document = SVGDocument(svg)
        #expect(document.parsed, "not well-formed: \(svg.prefix(300))")
        let root = try #require(document.root)
        #expect(root.name == "svg" && root.attributes["version"] == "1.1")
        let width = try #require(root.number("width"))
        let height = try #require(root.number("height"))
        #expect(root.attributes["viewBox"] == "0 0 \(SVGChart.number(width)) \(SVGChart.number(height))")
        #expect(root.attributes["font-family"]?.hasSuffix("sans-serif") == true)
        let lowered = svg.lowercased()
        #expect(!lowered.contains("nan") && !lowered.contains("inf"), "a value that is not finite reached the SVG")
        return document
    }

    @Test func theFrequencyMagnitudeFigurePutsTheFitWhereTheAxesSay() throws {
        let distribution = Self.distribution(b: 1.0234, sigma: 0.0312, a: 4.8)
        var chart = FrequencyMagnitudeChart(distribution)
        chart.mcMethod = "maximum curvature + 0.2"
        chart.filterText = "filter: M ≥ 1 & <deep>"
        let document = try Self.checkDocument(chart.svg())
        let frame = chart.frame()
        #expect(document.elements("rect", in: "bins").count == distribution.bins.filter { $0.count > 0 }.count)
        #expect(document.elements("circle", in: "cumulative").count
                == distribution.bins.filter { $0.cumulative > 0 }.count)
        let line = try #require(document.element(id: "gr-line"))
        for (column, row) in [("x1", "y1"), ("x2", "y2")] {
            let magnitude = frame.xValue(atPixel: try #require(line.number(column)))
            let count = frame.yValue(atPixel: try #require(line.number(row)))
            #expect(abs(log10(count) - (4.8 - 1.0234 * magnitude)) < 0.01, "\(column): M \(magnitude), N \(count)")
        }
        #expect(abs(frame.xValue(atPixel: try #require(line.number("x1"))) - 1.5) < 0.005, "the line starts at Mc")
        let mcLine = try #require(document.element(id: "mc-line"))
        let mcColumn = try #require(frame.x(1.5))
        #expect(abs((mcLine.number("x1") ?? 0) - mcColumn) < 0.01 && mcLine.number("x2") == mcLine.number("x1"))
        #expect(mcLine.attributes["stroke-dasharray"] != nil)
        let legend = document.legendTexts
        #expect(legend.contains("b = 1.02 ± 0.03 (Aki–Utsu; Shi & Bolt)"), "\(legend)")
        #expect(legend.contains("a = 4.80") && legend.contains("n = 1,234 events ≥ Mc"), "\(legend)")
        #expect(legend.contains("Mc = 1.5 (maximum curvature + 0.2)") && legend.contains("filter: M ≥ 1 & <deep>"))
        #expect(document.element(id: "subtitle")?.text.contains("7 without one left out") == true)
    }

    @Test func withoutBTheFigureSaysSoAndDrawsNoLine() throws {
        let chart = FrequencyMagnitudeChart(Self.distribution(b: nil, sigma: nil, a: nil))
        let document = try Self.checkDocument(chart.svg())
        #expect(document.element(id: "gr-line") == nil && document.element(id: "mc-line") != nil)
        #expect(document.legendTexts.contains { $0.hasPrefix("no b-value: 1,234 events ≥ Mc, fewer than 50") })
        #expect(!document.legendTexts.contains { $0.hasPrefix("b = ") })
    }

    @Test func emptyAndNonFiniteInputDrawAxesAndANote() throws {
        let empty = FrequencyMagnitude(count: 0, withoutMagnitude: 0, bin: 0.1, mc: nil, eventsAboveMc: 0, b: nil,
                                       bUncertainty: nil, a: nil, bins: [])
        let strange = FrequencyMagnitude(count: 3, withoutMagnitude: 0, bin: .nan, mc: .infinity, eventsAboveMc: 3,
                                         b: .nan, bUncertainty: .infinity, a: .nan,
                                         bins: [.init(magnitude: .nan, count: 3, cumulative: 3)])
        let series = TimeSeriesChart([.init(start: 0, end: 86_400_000, value: .nan)], style: .bars, title: "t",
                                     valueTitle: "count")
        let svgs = [FrequencyMagnitudeChart(empty).svg(), FrequencyMagnitudeChart(strange).svg(),
                    TimeSeriesChart([], style: .cumulative, title: "t", valueTitle: "n").svg(), series.svg(),
                    TimeSeriesChart([], style: .line, title: "t", valueTitle: "b").svg(),
                    CategoryBarChart([], title: "c", valueTitle: "count").svg(),
                    MagnitudeTimeChart([.init(time: 0, magnitude: .nan)], title: "m").svg()]
        for svg in svgs {
            let document = try Self.checkDocument(svg)
            #expect(document.element(id: "note")?.text == "no events")
            #expect(document.element(id: "frame") != nil && !document.elements("text", in: "tick-labels").isEmpty)
        }
    }

    @Test func countsAreOneBarPerBucketAndOtherValuesALineWithGaps() throws {
        let months = (1...12).map { month in
            TimeSeriesChart.Point(start: Int64(Timestamp.days(year: 2024, month: month, day: 1)) * 86_400_000,
                                  end: Int64(Timestamp.days(year: 2024 + month / 12, month: month % 12 + 1, day: 1))
                                      * 86_400_000,
                                  value: Double(month * 10), label: "2024-\(month)")
        }
        let bars = TimeSeriesChart(months, style: .bars, title: "t", valueTitle: "count")
        let barDocument = try Self.checkDocument(bars.svg())
        let rects = barDocument.elements("rect", in: "bars")
        #expect(rects.count == 12)
        let frame = bars.frame()
        let zero = try #require(frame.y(0))
        let tallest = try #require(rects.last)
        #expect(abs((tallest.number("y") ?? 0) - (frame.y(120) ?? -1)) < 0.01)
        #expect(abs((tallest.number("y") ?? 0) + (tallest.number("height") ?? 0) - zero) < 0.02)
        var gapped = months.prefix(4).map { $0 }
        gapped[1].value = nil
        for index in gapped.indices { gapped[index].spread = 2 }
        let line = try Self.checkDocument(TimeSeriesChart(gapped, style: .line, title: "b", valueTitle: "b").svg())
        #expect(line.elements("polyline", in: "line").count == 1, "a run of one point draws no line")
        #expect(line.elements("circle", in: "points").count == 3)
        #expect(line.elements("polygon", in: "band").count == 1 && line.elements("line", in: "band").count == 1)
        // a month without a bucket (no events) breaks the line as a missing value does
        let withoutMarch = months.enumerated().filter { $0.offset != 2 }.map(\.element)
        let broken = TimeSeriesChart(withoutMarch, style: .line, title: "b", valueTitle: "b")
        #expect(broken.runs().map(\.count) == [2, 9])
        #expect(try Self.checkDocument(broken.svg()).elements("polyline", in: "line").count == 2)
        // points in time (windows of N events) are never split by the time between them
        let instants = months.map { TimeSeriesChart.Point(start: $0.start, end: $0.start, value: $0.value) }
        #expect(TimeSeriesChart(instants, style: .line, title: "b", valueTitle: "b").runs().map(\.count) == [12])
        let steps = TimeSeriesChart(months, style: .cumulative, title: "c", valueTitle: "n")
        let stepDocument = try Self.checkDocument(steps.svg())
        let polyline = try #require(stepDocument.element(id: "cumulative"))
        let vertices = (polyline.attributes["points"] ?? "").split(separator: " ")
        #expect(vertices.count == 1 + 2 * 12)
        let lastRow = Double(vertices.last?.split(separator: ",").last ?? "") ?? -1
        #expect(abs(lastRow - (steps.frame().y(780) ?? 0)) < 0.01, "ends at the total, 10 + 20 + ... + 120")
    }

    @Test func categoriesAreOneBarEachAtMostSixty() throws {
        let five = (1...5).map { CategoryBarChart.Bar(label: "net\($0)", value: Double($0)) }
        let chart = CategoryBarChart(five + [.init(label: "none", value: nil)], title: "c", valueTitle: "count")
        let document = try Self.checkDocument(chart.svg())
        #expect(document.elements("rect", in: "bars").count == 5)
        #expect(document.elements("text", in: "tick-labels").map(\.text).suffix(6) == ["net1", "net2", "net3", "net4",
                                                                                        "net5", "none"])
        let many = (1...70).map { CategoryBarChart.Bar(label: "region \($0) <&>", value: Double($0)) }
        let capped = try Self.checkDocument(CategoryBarChart(many, title: "c", valueTitle: "count").svg())
        #expect(capped.elements("rect", in: "bars").count == CategoryBarChart.maximumBars)
        #expect(capped.element(id: "cap-note")?.text.hasPrefix("the first 60 of 70 groups") == true)
    }

    @Test func magnitudeAgainstTimeIsADotPerEventWithAMagnitude() throws {
        var events = (0..<10).map { MagnitudeTimeChart.Event(time: Int64($0) * 3_600_000, magnitude: Double($0) / 2) }
        events[3].magnitude = .nan
        var chart = MagnitudeTimeChart(events, title: "quakes query --day 1970-01-01")
        chart.withoutMagnitude += 1
        let document = try Self.checkDocument(chart.svg())
        let dots = document.elements("circle", in: "events")
        #expect(dots.count == 9)
        let frame = chart.frame()
        #expect(abs((dots.last?.number("cy") ?? 0) - (frame.y(4.5) ?? -1)) < 0.01)
        #expect(document.element(id: "subtitle")?.text == "9 events drawn; 2 without a magnitude left out")
    }
}
