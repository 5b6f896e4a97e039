import Foundation

/// A condition on an aggregate's groups (SQL's `HAVING`), over their metrics:
/// `count > 1000 and avg(mag) >= 2`, `count(distinct net) >= 3 or not (max(mag) - min(mag) < 1)`.
///
/// The grammar is `--where`'s: `and`/`&&`, `or`/`||`, `not`/`!`, parentheses, comparisons
/// `= == != <> < <= > >=`, here between arithmetic (`+ - * /`) of metrics and numbers. A
/// comparison with a null metric (a group without values) is unknown, as in SQL, and an
/// unknown condition drops the group; division by zero is null.
package indirect enum GroupCondition: Sendable {
    case all([GroupCondition])
    case any([GroupCondition])
    case not(GroupCondition)
    case compare(Expression, Comparison, Expression)

    /// A number made of metrics.
    package indirect enum Expression: Sendable {
        case number(Double)
        case metric(Metric)
        case negate(Expression)
        case arithmetic(Expression, Character, Expression)

        /// The value, or nil when a metric it reads is null or it divides by zero.
        func value(_ metric: (Metric) -> Double?) -> Double? {
            switch self {
            case .number(let number): return number
            case .metric(let wanted): return metric(wanted)
            case .negate(let inner): return inner.value(metric).map { -$0 }
            case .arithmetic(let left, let operation, let right):
                guard let lhs = left.value(metric), let rhs = right.value(metric) else { return nil }
                switch operation {
                case "+": return lhs + rhs
                case "-": return lhs - rhs
                case "*": return lhs * rhs
                default: return rhs == 0 ? nil : lhs / rhs
                }
            }
        }

        var metrics: [Metric] {
            switch self {
            case .number: return []
            case .metric(let metric): return [metric]
            case .negate(let inner): return inner.metrics
            case .arithmetic(let left, _, let right): return left.metrics + right.metrics
            }
        }
    }

    package enum Comparison: String, Sendable {
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// Whether a group holds the condition: true, false, or nil (unknown) when a null took part.
    package func holds(_ metric: (Metric) -> Double?) -> Bool? {
        switch self {
        case .all(let parts):
            var result: Bool? = true
            for part in parts {
                switch part.holds(metric) {
                case false?: return false
                case nil: result = nil
                case true?: continue
                }
            }
            return result
        case .any(let parts):
            var result: Bool? = false
            for part in parts {
                switch part.holds(metric) {
                case true?: return true
                case nil: result = nil
                case false?: continue
                }
            }
            return result
        case .not(let inner): return inner.holds(metric).map { !$0 }
        case .compare(let left, let comparison, let right):
            guard let lhs = left.value(metric), let rhs = right.value(metric) else { return nil }
            switch comparison {
            case .equal: return lhs == rhs
            case .notEqual: return lhs != rhs
            case .less: return lhs < rhs
            case .lessOrEqual: return lhs <= rhs
            case .greater: return lhs > rhs
            case .greaterOrEqual: return lhs >= rhs
            }
        }
    }

    /// Every metric the condition reads, in order of appearance, each once.
    package var metrics: [Metric] {
        var seen: [Metric] = []
        func note(_ list: [Metric]) { for metric in list where !seen.contains(metric) { seen.append(metric) } }
        func walk(_ condition: GroupCondition) {
            switch condition {
            case .all(let parts), .any(let parts): parts.forEach(walk)
            case .not(let inner): walk(inner)
            case .compare(let left, _, let right):
                note(left.metrics)
                note(right.metrics)
            }
        }
        walk(self)
        return seen
    }

    /// Parses the text; the error names the 1-based column.
    package static func parse(_ text: String) throws -> GroupCondition {
        var parser = GroupConditionParser(text)
        try parser.tokenize()
        let condition = try parser.parseOr()
        guard parser.atEnd else { throw parser.error("unexpected \(parser.currentText)") }
        return condition
    }
}
