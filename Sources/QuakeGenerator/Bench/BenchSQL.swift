import Foundation
import QuakeFormat
import QuakeStore

/// The store's questions in DuckDB's SQL, over a table or view named `quakes` holding the
/// store's Parquet export (``Store/exportParquet(to:layout:filter:columns:rowGroupRows:)``):
/// times as timestamps, numbers as doubles, strings as text, USGS column names.
///
/// Aggregate keys, metrics and conditions are spelled as `Tests/quakesTests/Python/check_agg_duckdb.py`
/// spells them, whose answers are checked against DuckDB's. A filter part with no faithful
/// translation (a Foundation predicate, a cursor, an id set) is an error, never a guess.
package enum BenchSQL {
    /// The view's name.
    package static let table = "quakes"

    /// `quakes count`: the number of matching rows.
    package static func count(_ filter: Filter) throws(QuakeError) -> String {
        "SELECT count(*) FROM \(table)" + (try whereClause(filter))
    }

    /// `quakes query`: `columns` of the page `spec` describes (id breaks ties last).
    package static func query(_ spec: QuerySpec, columns: [Column]) throws(QuakeError) -> String {
        if spec.after != nil { throw .unsupported("a resume cursor (--after) has no SQL translation") }
        var text = "SELECT " + columns.map(quoted).joined(separator: ", ") + " FROM \(table)"
        text += try whereClause(spec.filter)
        text += " ORDER BY " + orderList(spec.sort)
        if let limit = spec.limit { text += " LIMIT \(limit)" }
        if spec.offset > 0 {
            if spec.limit == nil { text += " LIMIT \(QuerySpec.rowsBound)" }
            text += " OFFSET \(spec.offset)"
        }
        return text
    }

    /// `quakes sections`: each section's first `limitPerSection` rows (all without one), in
    /// `sort` order within the section.
    package static func sections(_ filter: Filter, by key: GroupBy, sort: [SortKey], limitPerSection: Int?,
                                 columns: [Column]) throws(QuakeError) -> String {
        let list = columns.map(quoted).joined(separator: ", ")
        let ranked = "SELECT *, row_number() OVER (PARTITION BY \(groupKey(key)) ORDER BY \(orderList(sort))) "
            + "AS bench_rank FROM \(table)" + (try whereClause(filter))
        let kept = limitPerSection.map { " WHERE bench_rank <= \($0)" } ?? ""
        return "SELECT \(list) FROM (\(ranked))\(kept)"
    }

    /// `quakes agg`: keys, then metrics, of the groups `order` keeps, in its order.
    package static func aggregate(_ filter: Filter, by groups: [GroupBy], metrics: [Metric],
                                  order: AggregateOrder) throws(QuakeError) -> String {
        let select = groups.map(groupKey) + metrics.map(metric)
        var text = "SELECT " + select.joined(separator: ", ") + " FROM \(table)" + (try whereClause(filter))
        if !groups.isEmpty {
            text += " GROUP BY " + (1...groups.count).map(String.init).joined(separator: ", ")
        }
        if let having = order.having { text += " HAVING " + condition(having) }
        var sortTerms = order.keys.map { entry in
            let position: Int
            switch entry.target {
            case .key(let index): position = index + 1
            case .metric(let index): position = groups.count + index + 1
            }
            return "\(position) \(entry.ascending ? "ASC" : "DESC") NULLS LAST"
        }
        if !groups.isEmpty { sortTerms += (1...groups.count).map { "\($0) ASC NULLS LAST" } }
        if !sortTerms.isEmpty { text += " ORDER BY " + sortTerms.joined(separator: ", ") }
        if let limit = order.limit { text += " LIMIT \(limit)" }
        return text
    }

    /// ` WHERE …`, or nothing for a filter that keeps every row.
    static func whereClause(_ filter: Filter) throws(QuakeError) -> String {
        if case .all = filter { return "" }
        return " WHERE " + (try condition(filter))
    }

    /// The filter as a condition that is never NULL: each leaf is `coalesce(…, false)`, so
    /// `NOT` keeps the rows whose value is null, as the store's `not` does.
    package static func condition(_ filter: Filter) throws(QuakeError) -> String {
        switch filter {
        case .all: return "true"
        case .none: return "false"
        case .timeWindows(let windows):
            let spans = windows.spans.map { "(\(quoted(.time)) >= \(instant($0.lowerBound)) AND "
                + "\(quoted(.time)) < \(instant($0.upperBound)))" }
            return leaf(spans.isEmpty ? "false" : "(" + spans.joined(separator: " OR ") + ")")
        case .timeRange(let column, let lower, let upper):
            let bounds = [lower.map { "\(quoted(column)) >= \(instant($0))" },
                          upper.map { "\(quoted(column)) < \(instant($0))" }].compactMap { $0 }
            return leaf(bounds.isEmpty ? "\(quoted(column)) IS NOT NULL" : bounds.joined(separator: " AND "))
        case .numberRange(let column, let lower, let upper):
            let low = lower.map { "\(quoted(column)) \($0.inclusive ? ">=" : ">") \(number($0.value))" }
            let high = upper.map { "\(quoted(column)) \($0.inclusive ? "<=" : "<") \(number($0.value))" }
            let bounds = [low, high].compactMap { $0 }
            return leaf(bounds.isEmpty ? "\(quoted(column)) IS NOT NULL" : bounds.joined(separator: " AND "))
        case .box(let minLatitude, let maxLatitude, let minLongitude, let maxLongitude):
            let latitude = "latitude BETWEEN \(number(minLatitude)) AND \(number(maxLatitude))"
            let longitude = minLongitude <= maxLongitude
                ? "longitude BETWEEN \(number(minLongitude)) AND \(number(maxLongitude))"
                : "(longitude >= \(number(minLongitude)) OR longitude <= \(number(maxLongitude)))"
            return leaf(latitude + " AND " + longitude)
        case .near(let latitude, let longitude, let radiusKm):
            return leaf(distance(latitude: latitude, longitude: longitude) + " <= \(number(radiusKm))")
        case .oneOf(let column, let values):
            if values.isEmpty { return "false" }
            return leaf("\(quoted(column)) IN (" + values.map(literal).joined(separator: ", ") + ")")
        case .contains(let column, let text, let insensitive):
            if insensitive {
                return leaf("contains(lower(strip_accents(\(quoted(column)))), lower(strip_accents(\(literal(text)))))")
            }
            return leaf("contains(\(quoted(column)), \(literal(text)))")
        case .isNull(let column):
            return "(\(quoted(column)) IS NULL)"
        case .arithmetic(let comparison):
            let op = comparison.op == .equal ? "=" : comparison.op.rawValue
            return leaf("(\(expression(comparison.left)) \(op) \(expression(comparison.right)))")
        case .and(let parts):
            return "(" + (try conditions(parts)).joined(separator: " AND ") + ")"
        case .or(let parts):
            return "(" + (try conditions(parts)).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + (try condition(inner)) + ")"
        case .ids:
            throw .unsupported("an id set (--id, --eventid, --changed-since) has no SQL translation here")
        case .after:
            throw .unsupported("a resume cursor (--after) has no SQL translation")
        case .predicate(let predicate):
            throw .unsupported("the row predicate \(predicate.label) (--where) has no SQL translation")
        }
    }

    /// Each part's condition.
    private static func conditions(_ parts: [Filter]) throws(QuakeError) -> [String] {
        var texts: [String] = []
        for part in parts { texts.append(try condition(part)) }
        return texts
    }

    /// A group key's SQL: its text as the store groups it.
    package static func groupKey(_ group: GroupBy) -> String {
        switch group {
        case .time(.year): return "year(time)"
        case .time(.month): return "strftime(time, '%Y-%m')"
        case .time(.day): return "strftime(time, '%Y-%m-%d')"
        case .time(.hour): return "date_trunc('hour', time)"
        case .time(.week): return "date_trunc('week', time)"
        case .interval(let milliseconds):
            return "strftime(time_bucket(INTERVAL '\(milliseconds) milliseconds', time), '%Y-%m-%dT%H:%MZ')"
        case .part(.hourOfDay): return "hour(time)"
        case .part(.dayOfWeek): return "dayofweek(time)"
        case .part(.quarter): return "quarter(time)"
        case .region: return region
        case .value(let column): return quoted(column)
        case .bin(let column, let width): return "floor(\(quoted(column)) / \(number(width))) * \(number(width))"
        }
    }

    /// A metric's SQL.
    package static func metric(_ metric: Metric) -> String {
        switch metric {
        case .count: return "count(*)"
        case .countValues(let column): return "count(\(quoted(column)))"
        case .countDistinct(let column): return "count(DISTINCT \(quoted(column)))"
        case .min(let column): return "min(\(quoted(column)))"
        case .max(let column): return "max(\(quoted(column)))"
        case .avg(let column): return "avg(\(quoted(column)))"
        case .sum(let column): return "sum(\(quoted(column)))"
        case .stddev(let column): return "stddev(\(quoted(column)))"
        case .median(let column): return "median(\(quoted(column)))"
        case .percentile(let percent, let column):
            return "quantile_disc(\(quoted(column)), \(number(percent / 100)))"
        }
    }

    /// A condition on groups (`HAVING`).
    package static func condition(_ condition: GroupCondition) -> String {
        switch condition {
        case .all(let parts): return "(" + parts.map { self.condition($0) }.joined(separator: " AND ") + ")"
        case .any(let parts): return "(" + parts.map { self.condition($0) }.joined(separator: " OR ") + ")"
        case .not(let inner): return "(NOT " + self.condition(inner) + ")"
        case .compare(let left, let comparison, let right):
            let operation = comparison == .notEqual ? "<>" : comparison.rawValue
            return "(\(expression(left)) \(operation) \(expression(right)))"
        }
    }

    private static func expression(_ expression: GroupCondition.Expression) -> String {
        switch expression {
        case .number(let value): return number(value)
        case .metric(let wanted): return metric(wanted)
        case .negate(let inner): return "(-\(self.expression(inner)))"
        case .arithmetic(let left, let operation, let right):
            return "(\(self.expression(left)) \(operation) \(self.expression(right)))"
        }
    }

    /// The part of place after "N km DIR of ", or the whole place, as the store's `region`.
    static let region = "CASE WHEN regexp_matches(place, '^(0|[1-9][0-9]{0,5}) ?km "
        + "(N|NNE|NE|ENE|E|ESE|SE|SSE|S|SSW|SW|WSW|W|WNW|NW|NNW) of .') "
        + "THEN regexp_extract(place, '^[0-9]+ ?km [NSEW]+ of (.*)$', 1) ELSE place END"

    /// `ORDER BY` terms: the keys, nulls last either way, then the event id.
    static func orderList(_ sort: [SortKey]) -> String {
        let terms = sort.map { "\(quoted($0.column)) \($0.ascending ? "ASC" : "DESC") NULLS LAST" }
        return (terms + ["id ASC"]).joined(separator: ", ")
    }

    /// Great-circle distance in km from a point, as the store's haversine.
    static func distance(latitude: Double, longitude: Double) -> String {
        let radians = "pi() / 180"
        let halfLatitude = "sin((latitude - \(number(latitude))) * \(radians) / 2)"
        let halfLongitude = "sin((longitude - \(number(longitude))) * \(radians) / 2)"
        let cosines = "cos(\(number(latitude)) * \(radians)) * cos(latitude * \(radians))"
        let chord = "\(halfLatitude) * \(halfLatitude) + \(cosines) * \(halfLongitude) * \(halfLongitude)"
        return "(2 * 6371.0088 * asin(least(1, sqrt(\(chord)))))"
    }

    /// Arithmetic as SQL over doubles: times as epoch milliseconds, and `--where`'s division by
    /// zero NULL (DuckDB's own is infinity).
    static func expression(_ expression: NumericExpression) -> String {
        switch expression {
        case .field(let column, let fallback):
            let value = column.kind == .timestamp ? "epoch_ms(\(quoted(column)))::DOUBLE" : "\(quoted(column))::DOUBLE"
            return fallback.map { "coalesce(\(value), \(number($0)))" } ?? value
        case .constant(let value):
            return "(\(number(value)))::DOUBLE"
        case .negated(let inner):
            return "(-\(self.expression(inner)))"
        case .binary(.divide, let left, let right):
            return "(\(self.expression(left)) / nullif(\(self.expression(right)), 0))"
        case .binary(let op, let left, let right):
            return "(\(self.expression(left)) \(op.symbol) \(self.expression(right)))"
        }
    }

    private static func leaf(_ text: String) -> String { "coalesce(\(text), false)" }

    /// An instant (epoch milliseconds) as a UTC timestamp literal.
    static func instant(_ milliseconds: Int64) -> String { "make_timestamp(\(milliseconds)::BIGINT * 1000)" }

    /// A double as SQL text that reads back the same.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A string literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A column name as an identifier.
    static func quoted(_ column: Column) -> String { "\"\(column.name)\"" }
}
