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
        guard let position = groups.firstIndex(where: { $0.key == name || $0.description == name }) else { return nil }
        return keys[position]
    }

    /// The display value of `group`'s key, nil for the null group or a group not in the row.
    public subscript(group: GroupBy) -> String? {
        guard let position = groups.firstIndex(of: group) else { return nil }
        return keys[position]
    }

    /// The value of `metric`, nil when it had no input or is not one of the row's metrics.
    public func value(_ metric: Metric) -> Double? {
        guard let position = metrics.firstIndex(of: metric) else { return nil }
        return values[position]
    }

    /// The value of the metric named `name` (`row.value("avg(magnitude)")`, `row.value("count")`;
    /// the CLI's `avg(mag)` too),
    /// nil when it had no input or is not one of the row's metrics.
    public func value(_ name: String) -> Double? {
        if let position = metrics.firstIndex(where: { $0.key == name }) { return values[position] }
        guard let metric = Metric(parsing: name), let position = metrics.firstIndex(of: metric) else { return nil }
        return values[position]
    }
}
