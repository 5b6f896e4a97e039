import Foundation

/// A value per span of time as a figure: counts as bars from zero over each bucket, other
/// values as a line through the buckets (with an optional ±spread band, as b(t) ± σ), or the
/// cumulative sum of the values as a step line that rises at each bucket's end.
package struct TimeSeriesChart: Sendable {
    /// One bucket: its span of time, its value (nil leaves a gap in a line) and an optional spread.
    package struct Point: Sendable, Equatable {
        /// The bucket's first instant, epoch milliseconds.
        package var start: Int64
        /// The instant after the bucket, epoch milliseconds; `start` for a point in time.
        package var end: Int64
        /// The bucket's value; nil for none.
        package var value: Double?
        /// Half the band's height around the value (σ); nil for no band.
        package var spread: Double?
        /// The bucket's key, for the mark's hover title.
        package var label: String

        /// A bucket from `start` to `end` holding `value`.
        package init(start: Int64, end: Int64, value: Double?, spread: Double? = nil, label: String = "") {
            self.start = start
            self.end = max(start, end)
            self.value = value.flatMap { $0.isFinite ? $0 : nil }
            self.spread = spread.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            self.label = label
        }

        /// Where a line places the bucket: the middle of its span.
        var middle: Double { Double(start) / 2 + Double(end) / 2 }
    }

    /// How the values are drawn.
    package enum Style: Sendable, Equatable {
        /// A bar from zero over each bucket's span.
        case bars
        /// A line through each bucket's middle, with a dot per bucket, broken where a value is nil.
        case line
        /// The running sum of the values as a step line, rising at the end of each bucket.
        case cumulative
    }

    /// The buckets, in time order.
    package var points: [Point]
    /// How the values are drawn.
    package var style: Style
    /// The title.
    package var title: String
    /// A line below the title.
    package var subtitle = ""
    /// The y axis title.
    package var valueTitle: String
    /// The x axis title.
    package var timeTitle = "Time (UTC)"
    /// The legend's lines; none draws no legend.
    package var legend: [ChartLegend.Entry] = []
    /// Whether the legend sits top left (a rising cumulative line leaves that corner empty).
    package var legendAtLeft = false

    /// A chart of `points` (sorted here by start) drawn in `style`.
    package init(_ points: [Point], style: Style, title: String, valueTitle: String) {
        self.points = points.sorted { $0.start < $1.start }
        self.style = style
        self.title = title
        self.valueTitle = valueTitle
    }

    /// The running sums of the values, nil counted as 0, one per point.
    package var runningTotals: [Double] {
        var total = 0.0
        return points.map { point in
            total += point.value ?? 0
            return total
        }
    }

    /// The frame: the buckets' time span against the values (from zero for bars and sums; the
    /// band included for a line).
    package func frame() -> SVGChart {
        let earliest = points.first.map { Double($0.start) } ?? 0
        let latest = points.map { Double($0.end) }.max() ?? 0
        let timeAxis = ChartAxis.time(covering: earliest, latest, padding: style == .line ? 0.04 : 0.01,
                                      title: timeTitle)
        let values = points.compactMap(\.value)
        let valueAxis: ChartAxis
        switch style {
        case .bars:
            valueAxis = .linear(covering: min(0, values.min() ?? 0), max(0, values.max() ?? 1), title: valueTitle)
        case .cumulative:
            valueAxis = .linear(covering: 0, max(1, runningTotals.last ?? 1), title: valueTitle)
        case .line:
            let lows = points.compactMap { point in point.value.map { $0 - (point.spread ?? 0) } }
            let highs = points.compactMap { point in point.value.map { $0 + (point.spread ?? 0) } }
            valueAxis = .linear(covering: lows.min() ?? 0, highs.max() ?? 1, title: valueTitle)
        }
        var chart = SVGChart(xAxis: timeAxis, yAxis: valueAxis, title: title)
        chart.subtitle = subtitle
        return chart
    }

    /// The SVG document.
    package func svg() -> String {
        let chart = frame()
        let marks: String
        switch style {
        case .bars: marks = bars(chart)
        case .line: marks = line(chart)
        case .cumulative: marks = steps(chart)
        }
        let empty = points.allSatisfy { $0.value == nil }
        return chart.document(marks, legend: ChartLegend(legend, atLeft: legendAtLeft),
                              note: empty ? SVGChart.noEventsNote : nil)
    }

    /// `<g id="bars">`: a rectangle from zero to each value over its bucket, a pixel apart when wide.
    private func bars(_ chart: SVGChart) -> String {
        var out = "<g id=\"bars\">\n"
        let zero = chart.y(0) ?? chart.plotBottom
        for point in points {
            guard let value = point.value, let left = chart.x(Double(point.start)),
                  let right = chart.x(Double(point.end)), let top = chart.y(value) else { continue }
            let gap = right - left > 4 ? 0.5 : 0
            out += ChartMarks.bar(left: left + gap, right: max(left + gap + 0.5, right - gap), top: top, bottom: zero,
                                  color: ChartMarks.blue, title: point.label + ": " + Self.text(value))
        }
        return out + "</g>\n"
    }

    /// `<g id="band">`, `<g id="line">` and `<g id="points">`: for each run of buckets with a
    /// value, the ±spread band, the line through them, and a dot per bucket.
    private func line(_ chart: SVGChart) -> String {
        var band = "<g id=\"band\">\n"
        var lines = "<g id=\"line\">\n"
        var dots = "<g id=\"points\">\n"
        for run in runs() {
            let placed = run.compactMap { point -> (column: Double, point: Point)? in
                chart.x(point.middle).map { ($0, point) }
            }
            let upper = placed.compactMap { item in
                chart.y((item.point.value ?? 0) + (item.point.spread ?? 0)).map { (item.column, $0) }
            }
            let lower = placed.compactMap { item in
                chart.y((item.point.value ?? 0) - (item.point.spread ?? 0)).map { (item.column, $0) }
            }
            if placed.contains(where: { $0.point.spread != nil }) {
                band += upper.count == 1 && lower.count == 1
                    ? ChartMarks.line(from: upper[0], to: lower[0], color: ChartMarks.blue, width: 2)
                    : ChartMarks.polygon(upper + lower.reversed(), color: ChartMarks.blue, opacity: 0.22)
            }
            let centre = placed.compactMap { item in item.point.value.flatMap(chart.y).map { (item.column, $0) } }
            lines += ChartMarks.polyline(centre, color: ChartMarks.blue)
            for (column, row) in centre {
                dots += ChartMarks.filledCircle(x: column, y: row, radius: 2.5, color: ChartMarks.blue)
            }
        }
        return band + "</g>\n" + lines + "</g>\n" + dots + "</g>\n"
    }

    /// The points split where a value is missing, and where buckets with a span leave time
    /// between them (a period without events has no bucket, and a line must not bridge it): each
    /// run holds consecutive points with values.
    package func runs() -> [[Point]] {
        var runs: [[Point]] = []
        var current: [Point] = []
        for point in points {
            if let last = current.last, last.end > last.start, point.start > last.end {
                runs.append(current)
                current = []
            }
            if point.value == nil {
                if !current.isEmpty { runs.append(current) }
                current = []
            } else {
                current.append(point)
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// `<polyline id="cumulative">`: from zero at the first bucket's start, level through each
    /// bucket and up to the running total at its end.
    private func steps(_ chart: SVGChart) -> String {
        guard let first = points.first, let startColumn = chart.x(Double(first.start)),
              let zero = chart.y(0) else { return "" }
        var vertices = [(startColumn, zero)]
        var level = zero
        for (point, total) in zip(points, runningTotals) {
            guard let column = chart.x(Double(point.end)), let row = chart.y(total) else { continue }
            vertices.append((column, level))
            vertices.append((column, row))
            level = row
        }
        let line = ChartMarks.polyline(vertices, color: ChartMarks.black)
        return line.replacingOccurrences(of: "<polyline ", with: "<polyline id=\"cumulative\" ")
    }

    /// A value as a hover title shows it: whole numbers without a fraction, else four decimals.
    static func text(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return ChartAxis.decimal(value, decimals: 4)
    }
}
