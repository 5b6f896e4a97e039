import Foundation
import QuakeFormat

extension ChartAxis {
    /// A step between time ticks: whole hours, days, months or years.
    package enum TimeStep: Sendable, Equatable {
        /// Every N hours, on multiples of N hours since midnight UTC.
        case hours(Int)
        /// Every N days, on days a multiple of N after a Monday (1970-01-05).
        case days(Int)
        /// Every N months, on months whose number since year 0 is a multiple of N.
        case months(Int)
        /// Every N years, on years that are multiples of N.
        case years(Int)

        /// The step's length in milliseconds, a month as 30.44 days and a year as 365.25.
        var milliseconds: Double {
            switch self {
            case .hours(let count): return Double(count) * 3_600_000
            case .days(let count): return Double(count) * 86_400_000
            case .months(let count): return Double(count) * 30.44 * 86_400_000
            case .years(let count): return Double(count) * 365.25 * 86_400_000
            }
        }
    }

    /// The steps a time axis chooses from, shortest first.
    static let timeSteps: [TimeStep] = [
        .hours(1), .hours(3), .hours(6), .hours(12), .days(1), .days(2), .days(7), .days(14),
        .months(1), .months(2), .months(3), .months(6), .years(1), .years(2), .years(5), .years(10),
        .years(20), .years(50), .years(100), .years(200), .years(500), .years(1000),
    ]

    /// The shortest step that puts at most `target` ticks on `lower...upper` (milliseconds).
    package static func timeStep(_ lower: Double, _ upper: Double, target: Int = 7) -> TimeStep {
        let span = upper - lower
        return timeSteps.first { span / $0.milliseconds <= Double(target) } ?? .years(1000)
    }

    /// Ticks at the whole hours, days, months or years of ``timeStep(_:_:target:)`` within
    /// `lower...upper` (epoch milliseconds, UTC), labelled `2024`, `2024-06`, `2024-06-15` or
    /// `06-15 12:00` as the step needs.
    static func timeTicks(_ lower: Double, _ upper: Double) -> [Tick] {
        let storable = Timestamp.storable
        guard lower.isFinite, upper.isFinite, upper > lower,
              lower >= Double(storable.lowerBound), upper < Double(storable.upperBound) else { return [] }
        let low = Int64(lower.rounded(.up))
        let high = Int64(upper.rounded(.down))
        var instants: [Int64] = []
        switch timeStep(lower, upper) {
        case .hours(let count): instants = multiples(of: Int64(count) * 3_600_000, from: low, through: high)
        case .days(let count):
            let monday: Int64 = 4 * 86_400_000
            instants = multiples(of: Int64(count) * 86_400_000, from: low - monday, through: high - monday)
                .map { $0 + monday }
        case .months(let count): instants = monthStarts(every: count, from: low, through: high)
        case .years(let count): instants = monthStarts(every: 12 * count, from: low, through: high)
        }
        let step = timeStep(lower, upper)
        return instants.map { Tick(value: Double($0), label: timeLabel($0, step: step)) }
    }

    /// The multiples of `step` within `low...high`.
    private static func multiples(of step: Int64, from low: Int64, through high: Int64) -> [Int64] {
        var first = low / step * step
        if first < low { first += step }
        var instants: [Int64] = []
        var instant = first
        while instant <= high && instants.count < tickLimit {
            instants.append(instant)
            instant += step
        }
        return instants
    }

    /// The first instants of the months within `low...high` whose month number (12·year + month − 1)
    /// is a multiple of `every`.
    private static func monthStarts(every: Int, from low: Int64, through high: Int64) -> [Int64] {
        let start = civil(low)
        var month = start.year * 12 + start.month - 1
        if month % every != 0 || start.startsMonth == false {
            month = (month / every + 1) * every
        }
        var instants: [Int64] = []
        while instants.count < tickLimit {
            let days = Timestamp.days(year: month / 12, month: month % 12 + 1, day: 1)
            let instant = Int64(days) * 86_400_000
            if instant > high { break }
            if instant >= low { instants.append(instant) }
            month += every
        }
        return instants
    }

    /// The date of `instant`, and whether it is a month's first millisecond.
    private static func civil(_ instant: Int64) -> (year: Int, month: Int, day: Int, startsMonth: Bool) {
        let day = instant >= 0 ? instant / 86_400_000 : (instant - 86_399_999) / 86_400_000
        let date = Timestamp.civil(days: Int(day))
        return (date.year, date.month, date.day, date.day == 1 && instant == day * 86_400_000)
    }

    /// The label of a tick at `instant` for ticks `step` apart.
    package static func timeLabel(_ instant: Int64, step: TimeStep) -> String {
        let iso = Timestamp.string(instant)
        switch step {
        case .years: return String(iso.prefix(4))
        case .months: return String(iso.prefix(7))
        case .days: return String(iso.prefix(10))
        case .hours: return String(iso.dropFirst(5).prefix(11)).replacingOccurrences(of: "T", with: " ")
        }
    }
}
