import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

extension FmdCommand {
    /// `--format svg`: the distribution as a figure (``FrequencyMagnitudeChart``).
    func figure(_ distribution: FrequencyMagnitude, mc: MagnitudeOfCompleteness) -> String {
        var chart = FrequencyMagnitudeChart(distribution)
        chart.mcMethod = Self.method(mc)
        chart.filterText = Self.legendFilter(filters.args.words)
        return chart.svg()
    }

    /// `--format svg --by`: b per group against the group's time, with a ±σ band; a group
    /// without b leaves a gap.
    func figure(_ groups: [FrequencyMagnitudeGroup], mc: MagnitudeOfCompleteness) -> String {
        let points = groups.compactMap { group -> TimeSeriesChart.Point? in
            guard let span = Self.keySpan(group.key) else { return nil }
            return TimeSeriesChart.Point(start: span.lowerBound, end: span.upperBound, value: group.distribution.b,
                                         spread: group.distribution.bUncertainty, label: group.key)
        }
        var chart = TimeSeriesChart(points, style: .line, title: "b-value against time", valueTitle: "b-value")
        let unit = by.map { Int($0) == nil ? "per \($0)" : "per window of \($0) events" } ?? ""
        let missing = groups.filter { $0.distribution.b == nil }.count
        chart.subtitle = "\(groups.count) group\(groups.count == 1 ? "" : "s") \(unit), each at its key's time; "
            + "Mc: \(Self.method(mc))"
        chart.legend = [
            .init(.line(ChartMarks.blue, dashed: false), "b (Aki–Utsu) \(unit)"),
            .init(.swatch(ChartMarks.blue, opacity: 0.22), "± σ (Shi & Bolt)"),
        ]
        if missing > 0 {
            chart.legend.append(.init(.none, "\(missing) without b (fewer than "
                + "\(FrequencyMagnitude.minimumEvents) events ≥ Mc): gaps"))
        }
        chart.legend.append(.init(.none, Self.legendFilter(filters.args.words)))
        return chart.svg()
    }

    /// How Mc was found, in words.
    static func method(_ mc: MagnitudeOfCompleteness) -> String {
        switch mc {
        case .maximumCurvature(let correction): return "maximum curvature + " + FmdWriter.number(correction)
        case .fixed(let value): return "fixed at " + FmdWriter.number(value)
        }
    }

    /// The legend's filter line.
    static func legendFilter(_ words: String) -> String {
        words == "all events" ? "all events (no filter)" : "filter: " + words
    }

    /// A group key's instant: a year (`2024`) or month (`2024-06`) at its first millisecond, a
    /// window's ISO 8601 time as it is; nil for anything else.
    /// The times a group's key covers: a calendar year or month (so that a year or month without
    /// events breaks the line), or the instant of a window's first event.
    static func keySpan(_ key: String) -> Range<Int64>? {
        guard let start = keyTime(key) else { return nil }
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 1, key.count == 4, let year = Int(key) {
            return start..<(Int64(Timestamp.days(year: year + 1, month: 1, day: 1)) * 86_400_000)
        }
        if parts.count == 2, key.count == 7, let year = Int(parts[0]), let month = Int(parts[1]), (1...12) ~= month {
            let next = month == 12 ? Timestamp.days(year: year + 1, month: 1, day: 1)
                : Timestamp.days(year: year, month: month + 1, day: 1)
            return start..<(Int64(next) * 86_400_000)
        }
        return start..<start
    }

    static func keyTime(_ key: String) -> Int64? {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 1, key.count == 4, let year = Int(key) {
            return Int64(Timestamp.days(year: year, month: 1, day: 1)) * 86_400_000
        }
        if parts.count == 2, key.count == 7, let year = Int(parts[0]), let month = Int(parts[1]), (1...12) ~= month {
            return Int64(Timestamp.days(year: year, month: month, day: 1)) * 86_400_000
        }
        return Timestamp.parse(key)
    }
}
