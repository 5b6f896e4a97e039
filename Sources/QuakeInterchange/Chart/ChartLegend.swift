import Foundation

/// A chart's legend: a white box with a thin border inside a top corner of the plot, one line
/// per entry, each a small sample of a mark (or none) and its text.
package struct ChartLegend: Sendable {
    /// The sample drawn before an entry's text.
    package enum Symbol: Sendable, Equatable {
        /// No sample: a line of text (a fitted value, the filter).
        case none
        /// An open square, as per-bin counts are drawn.
        case openSquare
        /// A filled circle of the colour.
        case filledCircle(String)
        /// A line of the colour, dashed or solid.
        case line(String, dashed: Bool)
        /// A filled rectangle of the colour at the opacity, as bars and bands are drawn.
        case swatch(String, opacity: Double)
    }

    /// One line of the legend.
    package struct Entry: Sendable {
        /// The sample before the text.
        package var symbol: Symbol
        /// The text.
        package var text: String

        /// A line `text` after `symbol`.
        package init(_ symbol: Symbol, _ text: String) {
            self.symbol = symbol
            self.text = text
        }
    }

    /// The lines, top to bottom.
    package var entries: [Entry]
    /// Whether the box sits in the plot's top left corner rather than its top right.
    package var atLeft = false

    /// A legend of `entries`, top right unless `atLeft`.
    package init(_ entries: [Entry], atLeft: Bool = false) {
        self.entries = entries
        self.atLeft = atLeft
    }

    /// The height of one line in pixels.
    static let lineHeight = 16.0

    /// The box's width in pixels: the longest text at about 6.2 pixels a character, and the samples.
    var boxWidth: Double {
        let longest = entries.map { entry in Double(entry.text.count) * 6.2 + (entry.symbol == .none ? 0 : 24) }
        return min(420, (longest.max() ?? 0) + 16)
    }

    /// The `<g id="legend">` of the box and its lines, placed in `chart`'s plot.
    func svg(in chart: SVGChart) -> String {
        let width = boxWidth
        let height = Double(entries.count) * Self.lineHeight + 10
        let left = atLeft ? chart.plotLeft + 10 : chart.plotRight - 10 - width
        let top = chart.plotTop + 10
        var out = "<g id=\"legend\" font-size=\"11\">\n"
        out += "<rect x=\"\(chart.number(left))\" y=\"\(chart.number(top))\" width=\"\(chart.number(width))\" "
            + "height=\"\(chart.number(height))\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#999999\" "
            + "stroke-width=\"0.6\"/>\n"
        for (position, entry) in entries.enumerated() {
            let middle = top + 5 + (Double(position) + 0.5) * Self.lineHeight
            let textLeft = entry.symbol == .none ? left + 8 : left + 32
            out += sample(entry.symbol, left: left + 8, middle: middle, chart: chart)
            out += "<text x=\"\(chart.number(textLeft))\" y=\"\(chart.number(middle + 4))\" fill=\"#000000\">"
                + "\(SVGChart.escaped(entry.text))</text>\n"
        }
        return out + "</g>\n"
    }

    /// The sample of `symbol` in the 18-pixel slot from `left`, centred on row `middle`.
    private func sample(_ symbol: Symbol, left: Double, middle: Double, chart: SVGChart) -> String {
        let centre = left + 9
        switch symbol {
        case .none: return ""
        case .openSquare: return ChartMarks.openSquare(x: centre, y: middle)
        case .filledCircle(let color): return ChartMarks.filledCircle(x: centre, y: middle, radius: 3, color: color)
        case .line(let color, let dashed):
            return ChartMarks.line(from: (left, middle), to: (left + 18, middle), color: color, dashed: dashed)
        case .swatch(let color, let opacity):
            return "<rect x=\"\(chart.number(left))\" y=\"\(chart.number(middle - 5))\" width=\"18\" height=\"10\" "
                + "fill=\"\(color)\" fill-opacity=\"\(chart.number(opacity))\"/>\n"
        }
    }
}
