import Foundation
import QuakeFormat

/// One axis of a chart: the span of values it shows, how values map onto it (linear, base-10
/// logarithmic, or UTC time in epoch milliseconds), its title, and its ticks
/// (``ChartAxis/ticks()``: 1-2-5 steps, decades with minor ticks, or whole hours, days,
/// months or years).
package struct ChartAxis: Sendable, Equatable {
    /// How values map onto the axis.
    package enum Scale: Sendable, Equatable {
        /// Evenly spaced values; ticks at 1, 2 or 5 times a power of ten.
        case linear
        /// The base-10 logarithm of values above 0; a labelled tick per decade, minor ticks at 2–9.
        case logarithmic
        /// UTC instants in epoch milliseconds; ticks at whole hours, days, months or years.
        case time
    }

    /// A tick: the value it stands at, its label (empty for a minor tick), and whether it is major.
    package struct Tick: Sendable, Equatable {
        /// The value the tick marks.
        package var value: Double
        /// The label printed beside it; empty for a minor tick.
        package var label: String
        /// Whether the tick is major (longer, labelled).
        package var isMajor: Bool

        /// A tick at `value`.
        package init(value: Double, label: String, isMajor: Bool = true) {
            self.value = value
            self.label = label
            self.isMajor = isMajor
        }
    }

    /// How values map onto the axis.
    package var scale: Scale
    /// The value at the axis's start (left or bottom).
    package private(set) var lower: Double
    /// The value at the axis's end (right or top).
    package private(set) var upper: Double
    /// The axis title, printed along it.
    package var title: String
    /// Ticks to draw instead of the scale's own (a category axis's names); nil for the scale's.
    package var fixedTicks: [Tick]?

    /// An axis from `lower` to `upper` as given; a span that is empty, reversed, not finite or
    /// (on a log axis) not above 0 is replaced by one that is.
    package init(scale: Scale, lower: Double, upper: Double, title: String = "") {
        self.scale = scale
        self.title = title
        let span = ChartAxis.validSpan(scale, lower, upper)
        self.lower = span.lower
        self.upper = span.upper
    }

    /// `lower...upper` made drawable on `scale`.
    private static func validSpan(_ scale: Scale, _ lower: Double, _ upper: Double) -> (lower: Double, upper: Double) {
        switch scale {
        case .logarithmic:
            let low = lower.isFinite && lower > 0 ? min(max(lower, 1e-300), 1e300) : 1
            let high = upper.isFinite && upper > low ? min(upper, 1e301) : low * 10
            return (low, high)
        case .time:
            let earliest = Double(Timestamp.storable.lowerBound)
            let latest = Double(Timestamp.storable.upperBound - 1)
            let low = lower.isFinite ? min(max(lower, earliest), latest - 86_400_000) : 0
            let high = upper.isFinite && upper > low ? min(upper, latest) : low + 86_400_000
            return (low, high)
        case .linear:
            let low = lower.isFinite ? min(max(lower, -1e300), 1e300) : 0
            let high = upper.isFinite && upper > low ? min(upper, 1e301) : low + 1
            return (low, high)
        }
    }

    /// Where `value` falls along the axis: 0 at ``lower``, 1 at ``upper``; nil for a value the
    /// scale cannot place (not finite, or not above 0 on a log axis).
    package func fraction(_ value: Double) -> Double? {
        guard value.isFinite else { return nil }
        switch scale {
        case .linear, .time:
            return (value - lower) / (upper - lower)
        case .logarithmic:
            guard value > 0 else { return nil }
            return (log10(value) - log10(lower)) / (log10(upper) - log10(lower))
        }
    }

    /// The value at `fraction` of the way from ``lower`` to ``upper``; the inverse of ``fraction(_:)``.
    package func value(atFraction fraction: Double) -> Double {
        switch scale {
        case .linear, .time: return lower + fraction * (upper - lower)
        case .logarithmic: return pow(10, log10(lower) + fraction * (log10(upper) - log10(lower)))
        }
    }

    /// The ticks to draw: ``fixedTicks`` when set, else the scale's own.
    package func ticks() -> [Tick] {
        if let fixedTicks { return fixedTicks }
        switch scale {
        case .linear: return ChartAxis.linearTicks(lower, upper)
        case .logarithmic: return ChartAxis.decadeTicks(lower, upper)
        case .time: return ChartAxis.timeTicks(lower, upper)
        }
    }

    /// A linear axis over `low...high` widened to whole multiples of its tick step, so that its
    /// ends are labelled ticks. A single value is widened by one step on either side.
    package static func linear(covering low: Double, _ high: Double, title: String = "") -> ChartAxis {
        guard low.isFinite, high.isFinite else { return ChartAxis(scale: .linear, lower: 0, upper: 1, title: title) }
        var bottom = min(low, high)
        var top = max(low, high)
        if top - bottom < max(abs(top), 1) * 1e-9 {
            let pad = max(abs(top) * 0.1, 0.5)
            bottom -= pad
            top += pad
        }
        let step = niceStep(top - bottom, target: 6)
        return ChartAxis(scale: .linear, lower: (bottom / step).rounded(.down) * step,
                         upper: (top / step).rounded(.up) * step, title: title)
    }

    /// A log axis from the decade at or below `low` to the decade at or above `high` (at least one
    /// decade); values at or below 0 are left out by the caller.
    package static func logarithmic(covering low: Double, _ high: Double, title: String = "") -> ChartAxis {
        let bottom = low.isFinite && low > 0 ? pow(10, log10(low).rounded(.down)) : 1
        let topValue = high.isFinite && high > bottom ? high : bottom
        var top = pow(10, log10(topValue).rounded(.up))
        if top <= bottom { top = bottom * 10 }
        return ChartAxis(scale: .logarithmic, lower: bottom, upper: top, title: title)
    }

    /// A time axis over `low...high` (epoch milliseconds) with `padding` of the span added on
    /// either side; an instant alone is widened to a day on either side.
    package static func time(covering low: Double, _ high: Double, padding: Double = 0.02,
                             title: String = "") -> ChartAxis {
        guard low.isFinite, high.isFinite else {
            return ChartAxis(scale: .time, lower: 0, upper: 86_400_000, title: title)
        }
        let bottom = min(low, high)
        let top = max(low, high)
        let pad = top > bottom ? (top - bottom) * padding : 86_400_000
        return ChartAxis(scale: .time, lower: bottom - pad, upper: top + pad, title: title)
    }

    /// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `target` pieces.
    package static func niceStep(_ span: Double, target: Int) -> Double {
        guard span.isFinite, span > 0 else { return 1 }
        let raw = span / Double(max(1, target))
        let decade = pow(10, log10(raw).rounded(.down))
        let residual = raw / decade
        let factor: Double = residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10
        return factor * decade
    }
}
