import QuakeFormat
import QuakeStore

extension AggregateTable {
    /// The groups of an aggregate as typed columns, named as `agg`'s CSV header names them:
    /// each key in its own type (``keyType(_:)``), then each metric (``metricType(_:)``).
    /// `metrics` are the first metrics of the rows (a sort may have computed more, which are
    /// left out).
    package init(rows: [AggregateRow], groups: [GroupBy], metrics: [Metric]) throws(QuakeError) {
        var fields: [Field] = []
        for (position, group) in groups.enumerated() {
            fields.append(Field(name: group.description, values: AggregateTable.keyValues(rows, position, group)))
        }
        for (position, metric) in metrics.enumerated() {
            fields.append(Field(name: metric.description, values: AggregateTable.metricValues(rows, position, metric)))
        }
        try self.init(fields: fields, rowCount: rows.count)
    }

    /// A key's type, as JSON types it (``GroupBy/isNumeric``): a year, an hour of the day, a day
    /// of the week or a quarter is an `int64`; a bin's start a `float64`; a calendar or
    /// fixed-length time bucket (`day`, `month`, `time:6h`) its start as a `timestamp`; a text
    /// field or a region `utf8`.
    package static func keyType(_ group: GroupBy) -> InterchangeType {
        switch group {
        case .time(.year), .part: return .int64
        case .time, .interval: return .timestamp
        case .bin: return .float64
        case .value, .region: return .utf8
        }
    }

    /// A metric's type: a count is an `int64`; a minimum, maximum, average, median or
    /// percentile of a time a `timestamp`; any other value a `float64`.
    package static func metricType(_ metric: Metric) -> InterchangeType {
        if metric.isCount { return .int64 }
        if metric.isTime { return .timestamp }
        return .float64
    }

    /// Key `position` of every row, in ``keyType(_:)``.
    static func keyValues(_ rows: [AggregateRow], _ position: Int, _ group: GroupBy) -> Values {
        // a time bucket's, date part's or bin's sort value is its number: a bucket's start in
        // milliseconds, a part's number, a bin's start
        func number(_ row: AggregateRow) -> Double? {
            guard position < row.keyValues.count, case .number(let value) = row.keyValues[position] else { return nil }
            return value
        }
        func text(_ row: AggregateRow) -> String? { position < row.keys.count ? row.keys[position] : nil }
        switch keyType(group) {
        case .int64:
            if case .time(.year) = group {
                return .int64(rows.map { row in number(row).map { year(of: Int64(saturating: $0)) } })
            }
            return .int64(rows.map { row in number(row).map { Int64(saturating: $0) } })
        case .timestamp: return .timestamp(rows.map { row in number(row).map { Int64(saturating: $0) } })
        case .float64: return .float64(rows.map(number))
        case .utf8: return .utf8(rows.map(text))
        }
    }

    /// Metric `position` of every row, in ``metricType(_:)``: counts and instants as `agg`'s
    /// CSV prints them (an instant rounded to the millisecond).
    static func metricValues(_ rows: [AggregateRow], _ position: Int, _ metric: Metric) -> Values {
        func value(_ row: AggregateRow) -> Double? { position < row.values.count ? row.values[position] : nil }
        switch metricType(metric) {
        case .int64: return .int64(rows.map { row in value(row).map { Int64(saturating: $0) } })
        case .timestamp: return .timestamp(rows.map { row in value(row).map { Int64(saturating: $0.rounded()) } })
        case .float64, .utf8: return .float64(rows.map(value))
        }
    }

    /// The UTC calendar year of an instant in epoch milliseconds.
    static func year(of milliseconds: Int64) -> Int64 {
        let millisecondsPerDay: Int64 = 86_400_000
        // days rounded down, so that the instants before 1970 fall in their own day
        let days = milliseconds >= 0 ? milliseconds / millisecondsPerDay
            : (milliseconds + 1) / millisecondsPerDay - 1
        return Int64(Timestamp.civil(days: Int(days)).year)
    }
}
