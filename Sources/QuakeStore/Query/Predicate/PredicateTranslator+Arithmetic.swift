import Foundation
import QuakeFormat

/// Arithmetic in a `#Predicate` over `Double` properties (`$0.mag! - $0.depth! > 5`,
/// `($0.mag ?? 0) * 2 >= ($0.depth ?? 0)`, `$0.mag! > $0.depth!`): compiled to an
/// ``ArithmeticComparison`` that runs as a column kernel, with Swift's semantics. `/` is
/// `Double` division (by zero, ±infinity or NaN), a NaN fails `<`, `<=`, `>`, `>=` and `==`, and
/// `!=` and `!` are the complement. Arithmetic over integer properties (`nst`) stays on the exact
/// row-by-row path: Swift's integer division truncates and its overflow traps.
extension PredicateTranslator {
    /// An operand as arithmetic: a decimal field (with its `??` default), a number, or arithmetic.
    func numeric(_ operand: Operand?) -> NumericExpression? {
        switch operand {
        case .column(let column, let coalesce)?:
            guard column.kind == .decimal else { return nil }
            guard let coalesce else { return .field(column, default: nil) }
            guard let fallback = Leaf.number(coalesce) else { return nil }
            return .field(column, default: fallback)
        case .constant(let value)?:
            return Leaf.number(value).map { .constant($0) }
        case .expression(let expression)?:
            return expression
        default:
            return nil
        }
    }

    /// `left op right` when both are arithmetic and one reads a field.
    func arithmetic(_ left: Operand?, _ op: ArithmeticComparison.Operator, _ right: Operand?) -> Filter? {
        guard let leftExpression = numeric(left), let rightExpression = numeric(right) else { return nil }
        if leftExpression.columns.isEmpty && rightExpression.columns.isEmpty { return nil }
        return .arithmetic(ArithmeticComparison(leftExpression, op, rightExpression))
    }

    /// `left op right` as an operand.
    func arithmeticOperand(_ op: NumericExpression.ArithmeticOperator, _ left: Operand?,
                           _ right: Operand?) -> Operand? {
        guard let leftExpression = numeric(left), let rightExpression = numeric(right) else { return nil }
        let expression = NumericExpression.binary(op, leftExpression, rightExpression)
        if let constant = expression.constantValue { return .constant(constant) }
        return .expression(expression)
    }
}

extension PredicateExpressions.Arithmetic: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard LHS.Output.self == Double.self else { return nil }
        let arithmeticOperator: NumericExpression.ArithmeticOperator
        switch op {
        case .add: arithmeticOperator = .add
        case .subtract: arithmeticOperator = .subtract
        case .multiply: arithmeticOperator = .multiply
        @unknown default: return nil
        }
        return t.arithmeticOperand(arithmeticOperator, t.operand(lhs), t.operand(rhs))
    }
}

extension PredicateExpressions.FloatDivision: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard LHS.Output.self == Double.self else { return nil }
        return t.arithmeticOperand(.floatDivide, t.operand(lhs), t.operand(rhs))
    }
}
