import Foundation

/// The marks charts draw, as SVG elements with presentation attributes: markers, lines,
/// polylines and rectangles, their coordinates written by ``SVGChart/number(_:)``.
package enum ChartMarks {
    /// The colour of bars, lines and bands.
    package static let blue = "#3b6ea5"
    /// The colour of cumulative counts and fitted lines.
    package static let black = "#000000"
    /// The colour of the Mc marker.
    package static let red = "#b2182b"

    /// An open square `size` pixels wide centred on (`x`, `y`).
    package static func openSquare(x: Double, y: Double, size: Double = 7) -> String {
        "<rect x=\"\(SVGChart.number(x - size / 2))\" y=\"\(SVGChart.number(y - size / 2))\" "
            + "width=\"\(SVGChart.number(size))\" height=\"\(SVGChart.number(size))\" fill=\"#ffffff\" "
            + "stroke=\"\(blue)\" stroke-width=\"1.2\"/>\n"
    }

    /// A filled circle of `radius` centred on (`x`, `y`).
    package static func filledCircle(x: Double, y: Double, radius: Double, color: String,
                                     opacity: Double = 1) -> String {
        "<circle cx=\"\(SVGChart.number(x))\" cy=\"\(SVGChart.number(y))\" r=\"\(SVGChart.number(radius))\" "
            + "fill=\"\(color)\"" + (opacity < 1 ? " fill-opacity=\"\(SVGChart.number(opacity))\"" : "") + "/>\n"
    }

    /// A straight line, dashed or solid, with an optional `id`.
    package static func line(from start: (Double, Double), to end: (Double, Double), color: String,
                             dashed: Bool = false, width: Double = 1.5, id: String? = nil) -> String {
        "<line" + (id.map { " id=\"\($0)\"" } ?? "")
            + " x1=\"\(SVGChart.number(start.0))\" y1=\"\(SVGChart.number(start.1))\" "
            + "x2=\"\(SVGChart.number(end.0))\" y2=\"\(SVGChart.number(end.1))\" stroke=\"\(color)\" "
            + "stroke-width=\"\(SVGChart.number(width))\"" + (dashed ? " stroke-dasharray=\"5 4\"" : "") + "/>\n"
    }

    /// A polyline through `points`; empty for fewer than two.
    package static func polyline(_ points: [(Double, Double)], color: String, width: Double = 1.5) -> String {
        guard points.count >= 2 else { return "" }
        let coordinates = points.map { SVGChart.number($0.0) + "," + SVGChart.number($0.1) }.joined(separator: " ")
        return "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" "
            + "stroke-width=\"\(SVGChart.number(width))\" stroke-linejoin=\"round\"/>\n"
    }

    /// A filled polygon through `points` (a band), with no outline.
    package static func polygon(_ points: [(Double, Double)], color: String, opacity: Double) -> String {
        guard points.count >= 3 else { return "" }
        let coordinates = points.map { SVGChart.number($0.0) + "," + SVGChart.number($0.1) }.joined(separator: " ")
        return "<polygon points=\"\(coordinates)\" fill=\"\(color)\" fill-opacity=\"\(SVGChart.number(opacity))\" "
            + "stroke=\"none\"/>\n"
    }

    /// A filled rectangle between the columns `left`, `right` and the rows `top`, `bottom`, in
    /// either order, with an optional `<title>` browsers show on hover.
    package static func bar(left: Double, right: Double, top: Double, bottom: Double, color: String,
                            title: String? = nil) -> String {
        let element = "<rect x=\"\(SVGChart.number(min(left, right)))\" y=\"\(SVGChart.number(min(top, bottom)))\" "
            + "width=\"\(SVGChart.number(abs(right - left)))\" height=\"\(SVGChart.number(abs(bottom - top)))\" "
            + "fill=\"\(color)\""
        guard let title else { return element + "/>\n" }
        return element + "><title>\(SVGChart.escaped(title))</title></rect>\n"
    }
}
