import Foundation
import QuakeFormat

/// An aggregate metric: a value computed over each group's events.
///
/// Every metric but `count` reads one column and skips its nil values; a group with none has
/// a nil value (but a count of 0). `count(X)` and `count(distinct X)` read any column; the
/// others a number or a time.
public enum Metric: Sendable, Equatable, CustomStringConvertible {
    /// The number of events in the group.
    case count
    /// The number of events in the group whose column has a value (`count(X)`).
    case countValues(Column)
    /// The number of distinct values of a column in the group, nulls not counted
    /// (`count(distinct X)`).
    case countDistinct(Column)
    /// The minimum, maximum, average (arithmetic mean) or sum of a numeric column's non-null
    /// values in the group.
    case min(Column), max(Column), avg(Column), sum(Column)
    /// The sample standard deviation (n − 1), as DuckDB's `stddev`; nil for fewer than two values.
    case stddev(Column)
    /// The median, interpolated between the two middle values of an even count, as DuckDB's
    /// `median`, numpy and pandas.
    case median(Column)
    /// A discrete percentile (0...100): nearest rank, always one of the values, as DuckDB's
    /// `quantile_disc`. `p50` is the discrete median.
    case percentile(Double, Column)

    /// Parses `count`, `count(mag)`, `count(distinct net)`, `min(mag)`, `avg(depth)`,
    /// `stddev(mag)`, `median(mag)`, `p90(mag)`, ...
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "count" || trimmed == "count(*)" {
            self = .count
            return
        }
        guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else { return nil }
        let function = String(trimmed[..<open]).lowercased()
        var argument = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            .trimmingCharacters(in: .whitespaces)
        var distinct = false
        if function == "count", argument.lowercased().hasPrefix("distinct ") {
            distinct = true
            argument = String(argument.dropFirst("distinct ".count)).trimmingCharacters(in: .whitespaces)
        }
        guard let column = Column(name: argument) else { return nil }
        if function == "count" {
            self = distinct ? .countDistinct(column) : .countValues(column)
            return
        }
        guard column.kind == .decimal || column.kind == .timestamp else { return nil }
        switch function {
        case "min": self = .min(column)
        case "max": self = .max(column)
        case "avg": self = .avg(column)
        case "sum": self = .sum(column)
        case "stddev": self = .stddev(column)
        case "median": self = .median(column)
        default:
            guard function.hasPrefix("p"), let percent = Double(function.dropFirst()),
                  (0...100).contains(percent) else {
                return nil
            }
            self = .percentile(percent, column)
        }
    }

    /// The metric's name (`count`, or a function of a column such as `p90(...)`), which also
    /// names its value in an ``AggregateRow``.
    public var description: String { spelled(\.name) }

    /// The metric's name after the ``Quake`` property: `avg(magnitude)`, `count`.
    public var key: String { spelled(\.propertyName) }

    /// The name, with the column spelled by `name`.
    private func spelled(_ name: (Column) -> String) -> String {
        switch self {
        case .count: return "count"
        case .countValues(let column): return "count(\(name(column)))"
        case .countDistinct(let column): return "count(distinct \(name(column)))"
        case .min(let column): return "min(\(name(column)))"
        case .max(let column): return "max(\(name(column)))"
        case .avg(let column): return "avg(\(name(column)))"
        case .sum(let column): return "sum(\(name(column)))"
        case .stddev(let column): return "stddev(\(name(column)))"
        case .median(let column): return "median(\(name(column)))"
        case .percentile(let percent, let column): return "p\(ScaledDecimal.trimmed(percent))(\(name(column)))"
        }
    }

    /// Throws ``QuakeError/Kind/invalidArgument`` for a metric of a text column where a number
    /// is needed, a sum or deviation of a time, or a percentile outside 0...100.
    package func validate() throws(QuakeError) {
        if case .percentile(let percent, _) = self, !(percent >= 0 && percent <= 100) {
            throw .argument("the percentile", "within 0...100, not \(percent)")
        }
        switch self {
        case .count, .countValues, .countDistinct: return
        case .sum(let column), .stddev(let column):
            guard column.kind == .decimal else {
                throw .argument("\(key)", "of a numeric property (magnitude, depth, ...): a sum or deviation of "
                    + "instants is not an instant (min, max, avg and median of a time are)")
            }
        default:
            if let column, column.kind != .decimal && column.kind != .timestamp {
                throw .argument("\(key)", "of a numeric or time property (magnitude, depth, time, ...), not text")
            }
        }
    }

    /// The column the metric reads (nil for count).
    public var column: Column? {
        switch self {
        case .count: return nil
        case .countValues(let column), .countDistinct(let column), .min(let column), .max(let column),
             .avg(let column), .sum(let column), .stddev(let column), .median(let column),
             .percentile(_, let column):
            return column
        }
    }

    /// Whether the value is an instant (the minimum, maximum, average, median or a percentile
    /// of a time column), printed as ISO 8601 text.
    public var isTime: Bool {
        switch self {
        case .min(let column), .max(let column), .avg(let column), .median(let column), .percentile(_, let column):
            return column.kind == .timestamp
        default:
            return false
        }
    }

    /// Whether the value is a whole count.
    public var isCount: Bool {
        switch self {
        case .count, .countValues, .countDistinct: return true
        default: return false
        }
    }
}
