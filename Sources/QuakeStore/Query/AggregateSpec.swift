import Foundation
import QuakeFormat

/// A grouping dimension for aggregates and sections.
///
/// ```swift
/// let byMonth: GroupBy = .time(.month)      // keys 2024-01, 2024-02, ...
/// let byNet: GroupBy = .value(.net)         // keys us, ci, ak, ...
/// let byHalfMag: GroupBy = .bin(.mag, width: 0.5)  // keys 4, 4.5, 5, ... (bin starts)
/// ```
///
/// Used by ``Store/aggregate(_:by:metrics:)`` (up to three at once) and
/// ``Store/fetchSections(_:by:limitPerSection:)``.
public enum GroupBy: Sendable, Equatable, CustomStringConvertible {
    /// A UTC calendar bucket of ``Quake/time``: `hour`, `day`, `week` (starting on Monday),
    /// `month` or `year`. Its raw value is the name the CLI's `--by` takes and the key's name.
    public enum TimeBucket: String, Sendable, CaseIterable {
        /// The UTC hour.
        case hour
        /// The UTC day.
        case day
        /// The week, Monday to Sunday, UTC.
        case week
        /// The calendar month, UTC.
        case month
        /// The calendar year, UTC.
        case year
    }
    /// UTC time buckets (weeks start on Monday).
    case time(TimeBucket)
    /// The values of a string column (net, magType, type, status, ...).
    case value(Column)
    /// Fixed-width bins of a numeric column: `mag:0.5`, `depth:10`.
    case bin(Column, width: Double)

    /// Parses the CLI's `--by` text: `hour|day|week|month|year`, a string column's USGS name
    /// (`net`, `magType`, `type`, `status`, ...), or a numeric column and a bin width
    /// (`mag:0.5`, `depth:10`). Nil for anything else.
    public init?(parsing s: String) {
        if let t = TimeBucket(rawValue: s) { self = .time(t); return }
        let parts = s.split(separator: ":").map(String.init)
        guard let c = Column(name: parts[0]) else { return nil }
        if parts.count == 2 {
            guard let w = Double(parts[1]), w > 0, c.kind == .decimal else { return nil }
            self = .bin(c, width: w)
        } else if parts.count == 1, c.kind == .category || c.kind == .text || c.kind == .place {
            self = .value(c)
        } else {
            return nil
        }
    }

    /// The grouping's name, as ``init(parsing:)`` reads it (`month`, `net`), which also names
    /// its key in an ``AggregateRow``.
    public var description: String { spelled(\.name) }

    /// The key's name after the ``Quake`` property: `day`, `net`, `magnitude:0.5`.
    public var key: String { spelled(\.propertyName) }

    /// The name, with each column spelled by `name`.
    private func spelled(_ name: (Column) -> String) -> String {
        switch self {
        case .time(let t): return t.rawValue
        case .value(let c): return name(c)
        case .bin(let c, let w): return "\(name(c)):\(ScaledDecimal.trimmed(w))"
        }
    }

    /// Throws ``QuakeError/Kind/invalidArgument`` for a grouping the column cannot take: values
    /// of a numeric column, bins of a text column, or a bin width that is not finite and positive.
    package func validate() throws(QuakeError) {
        switch self {
        case .time: return
        case .value(let c):
            guard c.kind == .category || c.kind == .text || c.kind == .place else {
                throw .argument("GroupBy.value(\(c.propertyName))", "a text property (net, magType, place, ...); "
                    + "bin a number with .bin(_:width:)")
            }
        case .bin(let c, let w):
            guard c.kind == .decimal else {
                throw .argument("GroupBy.bin(\(c.propertyName))", "a numeric property (magnitude, depth, ...)")
            }
            guard w.isFinite && w > 0 && w <= 1e12 else {
                throw .argument("the bin width", "finite and greater than 0, not \(w)")
            }
        }
    }
}

/// An aggregate metric: a value computed over each group's events.
///
/// Every metric but `count` reads a numeric column (a number or a time) and skips its nil
/// values; a group with none has a nil value.
public enum Metric: Sendable, Equatable, CustomStringConvertible {
    /// The number of events in the group.
    case count
    /// The minimum, maximum, average (arithmetic mean) or sum of a numeric column's non-null
    /// values in the group.
    case min(Column), max(Column), avg(Column), sum(Column)
    /// Exact percentile (nearest-rank, 0...100) of the non-null values.
    case percentile(Double, Column)

    /// Parses `count`, `min(mag)`, `avg(depth)`, `p90(mag)`, `median(mag)` (which is `p50`), ...
    public init?(parsing s: String) {
        let t = s.trimmingCharacters(in: .whitespaces)
        if t == "count" || t == "count(*)" { self = .count; return }
        guard let open = t.firstIndex(of: "("), t.hasSuffix(")") else { return nil }
        let fn = String(t[..<open]).lowercased()
        let arg = String(t[t.index(after: open)..<t.index(before: t.endIndex)])
        guard let c = Column(name: arg), c.kind == .decimal || c.kind == .timestamp else { return nil }
        switch fn {
        case "min": self = .min(c)
        case "max": self = .max(c)
        case "avg": self = .avg(c)
        case "sum": self = .sum(c)
        case "median": self = .percentile(50, c)
        default:
            guard fn.hasPrefix("p"), let p = Double(fn.dropFirst()), (0...100).contains(p) else { return nil }
            self = .percentile(p, c)
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
        case .min(let c): return "min(\(name(c)))"
        case .max(let c): return "max(\(name(c)))"
        case .avg(let c): return "avg(\(name(c)))"
        case .sum(let c): return "sum(\(name(c)))"
        case .percentile(let p, let c): return "p\(ScaledDecimal.trimmed(p))(\(name(c)))"
        }
    }

    /// Throws ``QuakeError/Kind/invalidArgument`` for a metric of a text column or a percentile
    /// outside 0...100.
    package func validate() throws(QuakeError) {
        if case .percentile(let p, _) = self, !(p >= 0 && p <= 100) {
            throw .argument("the percentile", "within 0...100, not \(p)")
        }
        if let c = column, c.kind != .decimal && c.kind != .timestamp {
            throw .argument("\(key)", "of a numeric or time property (magnitude, depth, time, ...), not text")
        }
    }

    /// The column the metric reads (nil for count).
    package var column: Column? {
        switch self {
        case .count: return nil
        case .min(let c), .max(let c), .avg(let c), .sum(let c), .percentile(_, let c): return c
        }
    }
}

/// One group of an aggregate result: the group's keys, and one value per metric.
///
/// Read the keys by name with ``subscript(_:)`` and the values with ``value(_:)``, or by
/// position in ``keys`` and ``values``, which follow ``groups`` and ``metrics``.
public struct AggregateRow: Sendable, Identifiable {
    /// The group's keys, joined: unique within one result.
    public var id: String { keys.map { $0 ?? "\u{2205}" }.joined(separator: "\u{1F}") }
    /// Display values of the group keys (nil for the null group).
    public var keys: [String?]
    /// Sortable values of the group keys.
    package var keyValues: [SortValue]
    /// One value per metric (nil when no non-null input).
    public var values: [Double?]
    /// The groupings the keys follow, in order.
    public var groups: [GroupBy] = []
    /// The metrics the values follow, in order.
    public var metrics: [Metric] = []

    /// The display value of the group key named `name` (`row["net"]`, `row["month"]`,
    /// `row["magnitude:0.5"]`; the CLI's `mag:0.5` too), nil for the null group or a name that is not a key.
    public subscript(name: String) -> String? {
        guard let k = groups.firstIndex(where: { $0.key == name || $0.description == name }) else { return nil }
        return keys[k]
    }

    /// The display value of `group`'s key, nil for the null group or a group not in the row.
    public subscript(group: GroupBy) -> String? {
        guard let k = groups.firstIndex(of: group) else { return nil }
        return keys[k]
    }

    /// The value of `metric`, nil when it had no input or is not one of the row's metrics.
    public func value(_ metric: Metric) -> Double? {
        guard let k = metrics.firstIndex(of: metric) else { return nil }
        return values[k]
    }

    /// The value of the metric named `name` (`row.value("avg(magnitude)")`, `row.value("count")`;
    /// the CLI's `avg(mag)` too),
    /// nil when it had no input or is not one of the row's metrics.
    public func value(_ name: String) -> Double? {
        if let k = metrics.firstIndex(where: { $0.key == name }) { return values[k] }
        guard let m = Metric(parsing: name), let k = metrics.firstIndex(of: m) else { return nil }
        return values[k]
    }
}

extension ScaledDecimal {
    /// A double as short text (`0.5`, `10`).
    package static func trimmed(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
