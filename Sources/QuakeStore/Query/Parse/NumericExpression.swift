import Foundation
import QuakeFormat

/// Arithmetic over an event's numeric fields: `mag - depth`, `(updated - time) / 3600000`,
/// `-depth * 2`. A decimal field is its value; a time field (`time`, `updated`) is epoch
/// milliseconds.
///
/// As in SQL, an empty field makes the whole expression empty (unknown), and so does a division
/// by zero: a comparison with an empty value matches no event, and neither does its negation.
/// A field with a default (`q.mag ?? 0` in a `#Predicate`) takes the default when empty.
package indirect enum NumericExpression: Sendable, Equatable, CustomStringConvertible {
    case field(Column, default: Double?)
    case constant(Double)
    case negated(NumericExpression)
    case binary(ArithmeticOperator, NumericExpression, NumericExpression)

    /// The four operators, with SQL's and Swift's precedence (`*` and `/` bind tighter).
    package enum ArithmeticOperator: Sendable, Equatable {
        case add
        case subtract
        case multiply
        /// SQL's division: by zero it is empty (NaN), as SQL's NULL (`--where`).
        case divide
        /// Swift's `Double` division: by zero it is ±infinity or NaN (a `#Predicate`).
        case floatDivide

        /// `left op right`.
        @inline(__always)
        package func apply(_ left: Double, _ right: Double) -> Double {
            switch self {
            case .add: return left + right
            case .subtract: return left - right
            case .multiply: return left * right
            case .divide: return right == 0 ? .nan : left / right
            case .floatDivide: return left / right
            }
        }

        package var symbol: String {
            switch self {
            case .add: return "+"
            case .subtract: return "-"
            case .multiply: return "*"
            case .divide, .floatDivide: return "/"
            }
        }

        var binds: Int { self == .add || self == .subtract ? 1 : 2 }
    }

    /// The fields the expression reads.
    package var columns: ColumnSet {
        switch self {
        case .field(let column, _): return [column]
        case .constant: return []
        case .negated(let inner): return inner.columns
        case .binary(_, let left, let right): return left.columns.union(right.columns)
        }
    }

    /// The value when the expression reads no field: `2 * 1.5` is 3.
    package var constantValue: Double? {
        switch self {
        case .field: return nil
        case .constant(let value): return value
        case .negated(let inner): return inner.constantValue.map { -$0 }
        case .binary(let op, let left, let right):
            guard let leftValue = left.constantValue, let rightValue = right.constantValue else { return nil }
            return op.apply(leftValue, rightValue)
        }
    }

    /// The value for one event, given each field's value (NaN when empty).
    package func value(_ fieldValue: (Column) -> Double) -> Double {
        switch self {
        case .field(let column, let fallback):
            let value = fieldValue(column)
            return value.isNaN ? fallback ?? .nan : value
        case .constant(let value): return value
        case .negated(let inner): return -inner.value(fieldValue)
        case .binary(let op, let left, let right): return op.apply(left.value(fieldValue), right.value(fieldValue))
        }
    }

    package var description: String { text(parentBinds: 0) }

    private func text(parentBinds: Int) -> String {
        switch self {
        case .field(let column, nil): return column.name
        case .field(let column, let fallback?): return "(\(column.name) ?? \(NumericExpression.number(fallback)))"
        case .constant(let value): return NumericExpression.number(value)
        case .negated(let inner): return "-" + inner.text(parentBinds: 3)
        case .binary(let op, let left, let right):
            // the right operand of - and / keeps its parentheses at equal precedence
            let body = left.text(parentBinds: op.binds) + " \(op.symbol) " + right.text(parentBinds: op.binds + 1)
            return op.binds < parentBinds ? "(" + body + ")" : body
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// `left op right` between two numeric expressions, at least one reading a field: the filter
/// `--where 'mag - depth > 5'` and `#Predicate { $0.mag! > $0.depth! / 10 }` compile to.
/// An empty side fails every operator, `!=` included.
package struct ArithmeticComparison: Sendable, Equatable, CustomStringConvertible {
    package enum Operator: String, Sendable, Equatable {
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="

        /// The operator for `!(a op b)` when neither side is empty.
        var complement: Operator {
            switch self {
            case .less: return .greaterOrEqual
            case .lessOrEqual: return .greater
            case .greater: return .lessOrEqual
            case .greaterOrEqual: return .less
            case .equal: return .notEqual
            case .notEqual: return .equal
            }
        }

        /// Whether `left op right` holds; false when either is NaN (empty).
        @inline(__always)
        package func holds(_ left: Double, _ right: Double) -> Bool {
            switch self {
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            case .greaterOrEqual: return left >= right
            case .equal: return left == right
            case .notEqual: return left != right && !left.isNaN && !right.isNaN
            }
        }
    }

    package var left: NumericExpression
    package var op: Operator
    package var right: NumericExpression

    package init(_ left: NumericExpression, _ op: Operator, _ right: NumericExpression) {
        self.left = left
        self.op = op
        self.right = right
    }

    /// SQL's `NOT`: the complementary operator, so that an empty side still fails.
    package var negation: ArithmeticComparison { ArithmeticComparison(left, op.complement, right) }

    package var columns: ColumnSet { left.columns.union(right.columns) }

    /// Whether an event with these field values passes.
    package func holds(_ fieldValue: (Column) -> Double) -> Bool {
        op.holds(left.value(fieldValue), right.value(fieldValue))
    }

    package var description: String { "\(left) \(op.rawValue) \(right)" }
}
