import Foundation
import QuakeFormat
import QuakeStore

extension Naive {
    /// The group key of `q` under `group`, computed from its fields as the documentation defines
    /// it: calendar arithmetic through Foundation's UTC calendar, the region by splitting the text.
    package static func groupKey(_ q: Quake, _ group: GroupBy) -> SortValue {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        switch group {
        case .time(let bucket): return .number(Double(Aggregator.bucket(q.timeMilliseconds, bucket)))
        case .interval(let length):
            let origin = GroupBy.intervalOrigin
            let index = (Double(q.timeMilliseconds - origin) / Double(length)).rounded(.down)
            return .number(Double(origin) + index * Double(length))
        case .part(let part):
            let date = Date(timeIntervalSince1970: Double(q.timeMilliseconds) / 1000)
            switch part {
            case .hourOfDay: return .number(Double(calendar.component(.hour, from: date)))
            case .dayOfWeek: return .number(Double(calendar.component(.weekday, from: date) - 1))
            case .quarter: return .number(Double((calendar.component(.month, from: date) - 1) / 3 + 1))
            }
        case .region: return q.place.map { .text(region($0)) } ?? .null
        case .value(let column): return value(q, column)
        case .bin(let column, let width):
            // in decimal: the numbers are decimals, and 0.3 lies in the bin of 0.1 that starts at 0.3
            guard case .number(let number) = value(q, column), let numerator = Decimal(string: String(number)),
                  let denominator = Decimal(string: String(width)) else { return .null }
            let quotient = Double(truncating: NSDecimalNumber(decimal: numerator / denominator))
            return .number(Aggregator.binStart(Int64(saturating: quotient.rounded(.down)), width))
        }
    }

    /// The part of `place` after "N km DIR of " (N: 0, or 1 to 6 digits without a leading zero;
    /// DIR: one of the 16 compass points), or the whole place.
    package static func region(_ place: String) -> String {
        guard let of = place.range(of: " of ") else { return place }
        let head = place[..<of.lowerBound]
        let rest = place[of.upperBound...]
        let words = head.split(separator: " ", omittingEmptySubsequences: false)
        guard !rest.isEmpty, words.count == 2 || words.count == 3 else { return place }
        let direction = String(words[words.count - 1])
        let distance = words.count == 3 ? String(words[0]) : String(words[0].dropLast(2))
        guard words.count == 2 ? words[0].hasSuffix("km") : words[1] == "km" else { return place }
        let compass = [
            "N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW",
        ]
        guard compass.contains(direction), !distance.isEmpty, distance.count <= 6,
              distance.allSatisfy({ $0.isASCII && $0.isNumber }), distance == "0" || !distance.hasPrefix("0")
        else { return place }
        return String(rest)
    }

    /// `metric` over a group's events, as the documentation defines it, with sorts and sets.
    package static func metric(_ quakes: [Quake], _ metric: Metric) -> Double? {
        guard let column = metric.column else { return Double(quakes.count) }
        let values = quakes.map { value($0, column) }.filter { $0 != .null }
        let numbers = values.compactMap { value -> Double? in
            if case .number(let number) = value { return number }
            return nil
        }
        switch metric {
        case .countValues: return Double(values.count)
        case .countDistinct: return Double(Set(values).count)
        default: break
        }
        guard !numbers.isEmpty else { return nil }
        let sorted = numbers.sorted()
        let mean = numbers.reduce(0, +) / Double(numbers.count)
        switch metric {
        case .min: return sorted.first
        case .max: return sorted.last
        case .sum: return numbers.reduce(0, +)
        case .avg: return mean
        case .stddev:
            guard numbers.count > 1 else { return nil }
            return (numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count - 1)).squareRoot()
        case .median:
            let position = Double(sorted.count - 1) / 2
            let low = sorted[Int(position.rounded(.down))]
            let high = sorted[Int(position.rounded(.up))]
            return low + (high - low) * (position - position.rounded(.down))
        case .percentile(let percent, _):
            let rank = max(1, Int((percent / 100 * Double(sorted.count)).rounded(.up)))
            return sorted[min(sorted.count, rank) - 1]
        default: return nil
        }
    }
}
