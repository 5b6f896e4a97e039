import QuakeSupport
import Foundation
import QuakeStore

/// The frequency–magnitude distribution as a figure: per-bin counts (open squares) and
/// cumulative counts (filled circles) on a log10 axis against magnitude, the fitted
/// Gutenberg–Richter line `log10 N = a − b·M` from Mc up (when there is a b-value), Mc as a
/// dashed vertical line, and a legend with b ± σ, a, the events at or above Mc, Mc and the filter.
package struct FrequencyMagnitudeChart: Sendable {
    /// The distribution drawn.
    package var distribution: FrequencyMagnitude
    /// The title.
    package var title = "Frequency–magnitude distribution"
    /// How Mc was found, for the legend (`maximum curvature + 0.2`, `fixed`); empty for nothing.
    package var mcMethod = ""
    /// The filter in words, for the legend's last line (`M ≥ 2, from 2024-01-01`); empty for none.
    package var filterText = ""

    /// The figure of `distribution`.
    package init(_ distribution: FrequencyMagnitude) {
        self.distribution = distribution
    }

    /// The bins whose magnitude is finite, as drawn.
    private var bins: [FrequencyMagnitude.Bin] { distribution.bins.filter { $0.magnitude.isFinite } }

    /// The frame: magnitude (a half bin past the outer bins, and Mc) against the number of
    /// events on a log axis from 1 to the decade above the largest cumulative count.
    package func frame() -> SVGChart {
        let half = distribution.bin.isFinite && distribution.bin > 0 ? distribution.bin / 2 : 0.05
        var magnitudes = bins.map(\.magnitude)
        if let mc = distribution.mc, mc.isFinite { magnitudes.append(mc) }
        let lowest = (magnitudes.min() ?? 0) - half
        let highest = (magnitudes.max() ?? 5) + half
        let most = Double(bins.map(\.cumulative).max() ?? 1)
        var chart = SVGChart(xAxis: .linear(covering: lowest, highest, title: "Magnitude M"),
                             yAxis: .logarithmic(covering: 1, most * 1.5, title: "Number of events N"),
                             title: title)
        let drawn = distribution.count - distribution.withoutMagnitude
        chart.subtitle = "\(drawn.grouped) event\(drawn == 1 ? "" : "s") with a magnitude"
            + (distribution.withoutMagnitude > 0
                ? "; \(distribution.withoutMagnitude.grouped) without one left out" : "")
        return chart
    }

    /// The SVG document.
    package func svg() -> String {
        let chart = frame()
        var marks = "<g id=\"bins\">\n"
        for bin in bins where bin.count > 0 {
            guard let column = chart.x(bin.magnitude), let row = chart.y(Double(bin.count)) else { continue }
            marks += ChartMarks.openSquare(x: column, y: row)
        }
        marks += "</g>\n<g id=\"cumulative\">\n"
        for bin in bins where bin.cumulative > 0 {
            guard let column = chart.x(bin.magnitude), let row = chart.y(Double(bin.cumulative)) else { continue }
            marks += ChartMarks.filledCircle(x: column, y: row, radius: 3, color: ChartMarks.black)
        }
        marks += "</g>\n" + fittedLine(chart) + mcMarker(chart)
        return chart.document(marks, legend: legend(), note: bins.isEmpty ? SVGChart.noEventsNote : nil)
    }

    /// `log10 N = a − b·M` from Mc to where N falls to the axis's bottom or M leaves the axis.
    private func fittedLine(_ chart: SVGChart) -> String {
        guard let endpoints = fittedEndpoints(chart),
              let startColumn = chart.x(endpoints.start), let endColumn = chart.x(endpoints.end),
              let startRow = chart.y(pow(10, endpoints.startLog)), let endRow = chart.y(pow(10, endpoints.endLog))
        else { return "" }
        return ChartMarks.line(from: (startColumn, startRow), to: (endColumn, endRow), color: ChartMarks.black,
                               width: 1.3, id: "gr-line")
    }

    /// The magnitudes where the fitted line starts (Mc) and ends, and log10 N at each; nil without b.
    package func fittedEndpoints(_ chart: SVGChart) -> (start: Double, startLog: Double, end: Double, endLog: Double)? {
        guard let bValue = distribution.b, let aValue = distribution.a, let mc = distribution.mc,
              bValue.isFinite, aValue.isFinite, mc.isFinite, bValue > 0 else { return nil }
        let bottom = (aValue - log10(chart.yAxis.lower)) / bValue
        let end = min(chart.xAxis.upper, bottom)
        guard end > mc else { return nil }
        return (mc, aValue - bValue * mc, end, aValue - bValue * end)
    }

    /// Mc as a dashed vertical line across the plot, labelled at its top.
    private func mcMarker(_ chart: SVGChart) -> String {
        guard let mc = distribution.mc, let column = chart.x(mc) else { return "" }
        var out = ChartMarks.line(from: (column, chart.plotTop), to: (column, chart.plotBottom), color: ChartMarks.red,
                                  dashed: true, width: 1.2, id: "mc-line")
        out += "<text id=\"mc-label\" x=\"\(chart.number(column + 4))\" y=\"\(chart.number(chart.plotBottom - 8))\" "
            + "fill=\"\(ChartMarks.red)\" font-size=\"11\">Mc = \(Self.magnitude(mc))</text>\n"
        return out
    }

    /// The legend: the marks, then b ± σ, a, n, Mc and the filter (or why there is no b).
    package func legend() -> ChartLegend {
        var entries = [
            ChartLegend.Entry(.openSquare, "events per bin (ΔM = \(Self.magnitude(distribution.bin)))"),
            ChartLegend.Entry(.filledCircle(ChartMarks.black), "cumulative: events ≥ M"),
        ]
        let above = distribution.eventsAboveMc.grouped
        if let bValue = distribution.b, let sigma = distribution.bUncertainty, let aValue = distribution.a,
           bValue.isFinite, sigma.isFinite, aValue.isFinite {
            entries.append(.init(.line(ChartMarks.black, dashed: false), "log₁₀ N = a − b·M, M ≥ Mc"))
            entries.append(.init(.none, "b = " + Self.fixed(bValue) + " ± " + Self.fixed(sigma)
                + " (Aki–Utsu; Shi & Bolt)"))
            entries.append(.init(.none, "a = " + Self.fixed(aValue)))
            entries.append(.init(.none, "n = \(above) events ≥ Mc"))
        } else {
            entries.append(.init(.none, "no b-value: \(above) events ≥ Mc, fewer than "
                + "\(FrequencyMagnitude.minimumEvents)"))
        }
        if let mc = distribution.mc, mc.isFinite {
            let method = mcMethod.isEmpty ? "" : " (\(mcMethod))"
            entries.append(.init(.line(ChartMarks.red, dashed: true), "Mc = \(Self.magnitude(mc))" + method))
        }
        if !filterText.isEmpty { entries.append(.init(.none, filterText)) }
        return ChartLegend(entries)
    }

    /// `value` with two decimals (b, σ and a).
    package static func fixed(_ value: Double) -> String { ChartAxis.decimal(value, decimals: 2) }

    /// A magnitude as short as it reads back (`1.7`, `0.05`), at most four decimals.
    package static func magnitude(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        var text = ChartAxis.decimal(value, decimals: 4)
        while text.hasSuffix("0") && text.contains(".") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
