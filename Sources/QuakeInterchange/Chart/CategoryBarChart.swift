import QuakeSupport
import Foundation

/// A value per category as a figure: one horizontal bar per category from zero, the categories
/// down the left in the order given, at most ``maximumBars`` of them (a note says how many more).
package struct CategoryBarChart: Sendable {
    /// One category and its value (nil: no bar).
    package struct Bar: Sendable, Equatable {
        /// The category's name.
        package var label: String
        /// Its value; nil for none.
        package var value: Double?

        /// A bar `label` of `value`.
        package init(label: String, value: Double?) {
            self.label = label
            self.value = value.flatMap { $0.isFinite ? $0 : nil }
        }
    }

    /// The most bars drawn.
    package static let maximumBars = 60
    /// The longest category name shown, in characters; longer ones are cut with `…`.
    static let longestLabel = 32

    /// The categories, top to bottom.
    package var bars: [Bar]
    /// The title.
    package var title: String
    /// A line below the title.
    package var subtitle = ""
    /// The value axis title.
    package var valueTitle: String

    /// A chart of `bars` in the order given.
    package init(_ bars: [Bar], title: String, valueTitle: String) {
        self.bars = bars
        self.title = title
        self.valueTitle = valueTitle
    }

    /// The bars drawn: the first ``maximumBars``.
    package var drawn: [Bar] { Array(bars.prefix(Self.maximumBars)) }

    /// A category name as shown: cut with `…` past ``longestLabel`` characters.
    static func shown(_ label: String) -> String {
        label.count <= longestLabel ? label : String(label.prefix(longestLabel - 1)) + "…"
    }

    /// The frame: the values from zero along x, the categories down y (one 20-pixel row each).
    package func frame() -> SVGChart {
        let shownBars = drawn
        let values = shownBars.compactMap(\.value)
        let valueAxis = ChartAxis.linear(covering: min(0, values.min() ?? 0), max(0, values.max() ?? 1),
                                         title: valueTitle)
        let rows = Double(max(1, shownBars.count))
        var categoryAxis = ChartAxis(scale: .linear, lower: 0, upper: rows)
        categoryAxis.fixedTicks = shownBars.enumerated().map { position, bar in
            ChartAxis.Tick(value: rows - Double(position) - 0.5, label: Self.shown(bar.label))
        }
        var chart = SVGChart(xAxis: valueAxis, yAxis: categoryAxis, title: title)
        let longest = shownBars.map { Self.shown($0.label).count }.max() ?? 4
        chart.marginLeft = max(76, min(240, 20 + Double(longest) * 6.4))
        chart.marginBottom = bars.count > shownBars.count ? 72 : 54
        chart.height = chart.marginTop + chart.marginBottom + max(160, rows * 20)
        chart.subtitle = subtitle
        return chart
    }

    /// The SVG document.
    package func svg() -> String {
        let chart = frame()
        let rows = Double(max(1, drawn.count))
        var marks = "<g id=\"bars\">\n"
        let zero = chart.x(0) ?? chart.plotLeft
        for (position, bar) in drawn.enumerated() {
            guard let value = bar.value, let end = chart.x(value),
                  let top = chart.y(rows - Double(position) - 0.15),
                  let bottom = chart.y(rows - Double(position) - 0.85) else { continue }
            marks += ChartMarks.bar(left: zero, right: end, top: top, bottom: bottom, color: ChartMarks.blue,
                                    title: bar.label + ": " + TimeSeriesChart.text(value))
        }
        marks += "</g>\n"
        var document = chart.document(marks, note: bars.isEmpty ? SVGChart.noEventsNote : nil)
        if bars.count > drawn.count {
            let note = "the first \(drawn.count) of \(bars.count.grouped) groups are drawn; "
                + "--sort and --limit choose them"
            let text = "<text id=\"cap-note\" x=\"\(chart.number(chart.plotLeft))\" "
                + "y=\"\(chart.number(chart.height - 8))\" font-size=\"11\" fill=\"#444444\">"
                + SVGChart.escaped(note) + "</text>\n"
            document = document.replacingOccurrences(of: "</svg>\n", with: text + "</svg>\n")
        }
        return document
    }
}
