import Foundation
import QuakeFormat

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
