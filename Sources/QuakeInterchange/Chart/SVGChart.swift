import Foundation

/// The frame every chart draws in: a standalone SVG 1.1 document of a fixed size with a title,
/// a subtitle, a plot area with an x and a y axis (ticks, tick labels, axis titles), a legend
/// box and a note. Charts (``FrequencyMagnitudeChart``, ``TimeSeriesChart``,
/// ``CategoryBarChart``, ``MagnitudeTimeChart``) map their values through ``x(_:)`` and
/// ``y(_:)`` and hand their marks to ``document(_:legend:note:)``.
///
/// Everything is drawn with presentation attributes (no CSS), in `sans-serif`, so rsvg-convert
/// and browsers draw it alike; text is escaped with ``XMLText``; a value that is not finite never
/// reaches the document (``number(_:)``).
package struct SVGChart: Sendable {
    /// The document's width in pixels.
    package var width = 720.0
    /// The document's height in pixels.
    package var height = 460.0
    /// Space left of the plot area (tick labels and the y axis title).
    package var marginLeft = 76.0
    /// Space right of the plot area.
    package var marginRight = 24.0
    /// Space above the plot area (title and subtitle).
    package var marginTop = 62.0
    /// Space below the plot area (tick labels and the x axis title).
    package var marginBottom = 54.0
    /// The horizontal axis.
    package var xAxis: ChartAxis
    /// The vertical axis.
    package var yAxis: ChartAxis
    /// The title, in bold above the plot.
    package var title: String
    /// A line below the title (what was counted, how many).
    package var subtitle = ""

    /// A chart of `xAxis` against `yAxis` titled `title`.
    package init(xAxis: ChartAxis, yAxis: ChartAxis, title: String) {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.title = title
    }

    /// The plot area's left edge in pixels.
    package var plotLeft: Double { marginLeft }
    /// The plot area's right edge in pixels.
    package var plotRight: Double { max(marginLeft + 1, width - marginRight) }
    /// The plot area's top edge in pixels.
    package var plotTop: Double { marginTop }
    /// The plot area's bottom edge in pixels.
    package var plotBottom: Double { max(marginTop + 1, height - marginBottom) }

    /// The pixel column of `value` on the x axis; nil when the axis cannot place it.
    package func x(_ value: Double) -> Double? {
        guard let fraction = xAxis.fraction(value) else { return nil }
        let pixel = plotLeft + fraction * (plotRight - plotLeft)
        return pixel.isFinite ? pixel : nil
    }

    /// The pixel row of `value` on the y axis (larger values higher); nil when the axis cannot place it.
    package func y(_ value: Double) -> Double? {
        guard let fraction = yAxis.fraction(value) else { return nil }
        let pixel = plotBottom - fraction * (plotBottom - plotTop)
        return pixel.isFinite ? pixel : nil
    }

    /// The x axis value at pixel column `pixel`; the inverse of ``x(_:)``.
    package func xValue(atPixel pixel: Double) -> Double {
        xAxis.value(atFraction: (pixel - plotLeft) / (plotRight - plotLeft))
    }

    /// The y axis value at pixel row `pixel`; the inverse of ``y(_:)``.
    package func yValue(atPixel pixel: Double) -> Double {
        yAxis.value(atFraction: (plotBottom - pixel) / (plotBottom - plotTop))
    }

    /// The whole document: heading, `marks` clipped to the plot area, the axes over them, the
    /// legend inside the plot's top right corner (or top left), and `note` centred in the plot
    /// (``noEventsNote`` for an empty chart).
    package func document(_ marks: String, legend: ChartLegend? = nil, note: String? = nil) -> String {
        var out = heading()
        out += "<clipPath id=\"plot-clip\"><rect x=\"\(number(plotLeft))\" y=\"\(number(plotTop))\" "
            + "width=\"\(number(plotRight - plotLeft))\" height=\"\(number(plotBottom - plotTop))\"/></clipPath>\n"
        out += "<g id=\"marks\" clip-path=\"url(#plot-clip)\">\n" + marks + "</g>\n"
        out += axes()
        if let note {
            out += "<text id=\"note\" x=\"\(number((plotLeft + plotRight) / 2))\" "
                + "y=\"\(number((plotTop + plotBottom) / 2))\" text-anchor=\"middle\" font-size=\"14\" "
                + "fill=\"#555555\">\(SVGChart.escaped(note))</text>\n"
        }
        if let legend, !legend.entries.isEmpty { out += legend.svg(in: self) }
        return out + "</svg>\n"
    }

    /// The note an empty chart shows.
    package static let noEventsNote = "no events"

    /// The `<svg>` element's opening, a white background, the title and the subtitle.
    private func heading() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(number(width))\" "
            + "height=\"\(number(height))\" viewBox=\"0 0 \(number(width)) \(number(height))\" "
            + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n"
        out += "<rect width=\"\(number(width))\" height=\"\(number(height))\" fill=\"#ffffff\"/>\n"
        out += "<text id=\"title\" x=\"\(number(plotLeft))\" y=\"22\" font-size=\"15\" font-weight=\"bold\" "
            + "fill=\"#000000\">\(SVGChart.escaped(title))</text>\n"
        if !subtitle.isEmpty {
            out += "<text id=\"subtitle\" x=\"\(number(plotLeft))\" y=\"40\" font-size=\"11\" fill=\"#444444\">"
                + "\(SVGChart.escaped(subtitle))</text>\n"
        }
        return out
    }

    /// A coordinate or length as the document writes it: two decimals, and 0 for a value that is
    /// not finite (which the charts never pass on purpose).
    package func number(_ value: Double) -> String { SVGChart.number(value) }

    /// A coordinate or length as the document writes it: two decimals, and 0 for a value that is
    /// not finite.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let text = String(format: "%.2f", value)
        return text == "-0.00" ? "0.00" : text
    }

    /// `text` escaped as XML character data or an attribute value (``XMLText``).
    package static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        XMLText.escaped(text.utf8, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
