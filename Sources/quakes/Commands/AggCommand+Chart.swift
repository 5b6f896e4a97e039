import QuakeSupport
import ArgumentParser
import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

extension AggCommand {
    /// The checks of `--format svg` and `--cumulative`: one `--by` key, a first metric that is a
    /// number, and `--cumulative` only with a time key and `--metrics count`.
    func validateFigure() throws {
        if cumulative && output != .svg {
            throw ValidationError("--cumulative goes with --format svg (a time --by and --metrics count)")
        }
        guard output == .svg else { return }
        let keys = try groups()
        guard keys.count == 1 else {
            throw ValidationError("--format svg draws one --by key (a time bucket or a category), not \(keys.count); "
                + "use --format csv for more")
        }
        guard let metric = try metricList().first else { return }
        if metric.isTime {
            throw ValidationError("--format svg draws a number, and \(metric) is a time: "
                + "put a number first in --metrics")
        }
        if cumulative && (!Self.isTimeSeries(keys[0]) || metric != .count) {
            throw ValidationError("--cumulative draws the running count: it needs a time --by (day, week, month, "
                + "year, time:6h) and --metrics count")
        }
    }

    /// Whether `group` is a span of time (a calendar bucket or a fixed interval), drawn as a time series.
    static func isTimeSeries(_ group: GroupBy) -> Bool {
        switch group {
        case .time, .interval: return true
        default: return false
        }
    }

    /// `--format svg`: the first metric of each group as a figure, to `--out` or standard output.
    /// A time key draws a time series (a count as bars, another metric as a line, or with
    /// `--cumulative` the running count as a step line); any other key, horizontal bars.
    func writeFigure(_ rows: [AggregateRow], groups: [GroupBy]) throws {
        guard let group = groups.first, let metric = try metricList().first else { return }
        let title = "quakes agg " + QueryArgs.titleArguments(Array(CommandLine.arguments.dropFirst(2)))
        let subtitle = "\(rows.count.grouped) group\(rows.count == 1 ? "" : "s") by \(group); "
            + Self.legendFilter(filters.args.words)
        let svg: String
        if Self.isTimeSeries(group) {
            let points = rows.compactMap { row in Self.point(row, group: group) }
            let style: TimeSeriesChart.Style = cumulative ? .cumulative : metric.isCount ? .bars : .line
            var chart = TimeSeriesChart(points, style: style, title: title,
                                        valueTitle: cumulative ? "cumulative number of events" : "\(metric)")
            chart.subtitle = subtitle
            chart.legendAtLeft = cumulative
            svg = chart.svg()
        } else {
            let bars = rows.map { row in CategoryBarChart.Bar(label: row.keys.first.flatMap { $0 } ?? "NULL",
                                                              value: row.values.first.flatMap { $0 }) }
            var chart = CategoryBarChart(bars, title: title, valueTitle: "\(metric)")
            chart.subtitle = subtitle
            svg = chart.svg()
        }
        guard let out else {
            Console.out.write(svg)
            Console.out.flush()
            return
        }
        let file = try OutputSink(path: out)
        file.write(svg)
        try file.finish()
    }

    /// The filter line of a figure.
    static func legendFilter(_ words: String) -> String {
        words == "all events" ? "all events" : "filter: " + words
    }

    /// A time group's bucket as a point of a time series: its start (the key's sort value), its
    /// end, and the first metric.
    static func point(_ row: AggregateRow, group: GroupBy) -> TimeSeriesChart.Point? {
        guard case .number(let startValue)? = row.keyValues.first, startValue.isFinite,
              Double(Timestamp.storable.lowerBound) <= startValue,
              startValue < Double(Timestamp.storable.upperBound) else { return nil }
        let start = Int64(startValue)
        return TimeSeriesChart.Point(start: start, end: bucketEnd(start, group), value: row.values.first.flatMap { $0 },
                                     label: row.keys.first.flatMap { $0 } ?? "")
    }

    /// The instant after the bucket of `group` that starts at `start`.
    static func bucketEnd(_ start: Int64, _ group: GroupBy) -> Int64 {
        let day: Int64 = 86_400_000
        switch group {
        case .time(.hour): return start + 3_600_000
        case .time(.day): return start + day
        case .time(.week): return start + 7 * day
        case .time(.month), .time(.year):
            let dayNumber = start >= 0 ? start / day : (start - day + 1) / day
            let date = Timestamp.civil(days: Int(dayNumber))
            let months = group == .time(.year) ? 12 : 1
            let next = date.year * 12 + date.month - 1 + months
            return Int64(Timestamp.days(year: next / 12, month: next % 12 + 1, day: 1)) * day
        case .interval(let length): return start + max(1, length)
        default: return start + day
        }
    }
}
