import Foundation
import QuakeFormat

/// Compiles a Foundation `Predicate<Quake>` into the ``Filter`` IR by walking its
/// `PredicateExpressions` tree. Recognised shapes (comparisons, ==/!=, &&, ||, !,
/// `contains`, optional chaining with `??`, `!` and `if let`, captured values) become column
/// kernels; any other subtree becomes a `.predicate` node that evaluates it exactly, row by row.
///
/// A force-unwrap (`x!`) of a property runs as the column itself, and is recorded as an
/// ``UnwrapTrap``: the rows under which Foundation's left-to-right, short-circuit evaluation
/// reaches it. A stored event that the trap's filter matches and whose property is nil is one for
/// which `evaluate` throws, so the fetch throws too (see `Store.checkUnwraps`).
package struct PredicateTranslator {
    package let root: PredicateExpressions.Variable<Quake>
    package var bound: [PredicateExpressions.VariableID: Column] = [:]
    /// The rows for which evaluation reaches the node being translated.
    package var reach: Filter = .all
    /// The force-unwraps met so far, shared by the copies made for subtrees.
    package let traps = UnwrapTraps()

    /// The filter for `p`.
    package static func filter(_ p: Predicate<Quake>) -> Filter { translate(p).filter }

    /// The filter for `p`, and its force-unwraps with the rows that reach them.
    package static func translate(_ p: Predicate<Quake>) -> (filter: Filter, traps: [UnwrapTrap]) {
        let translator = PredicateTranslator(root: p.variable)
        if let filter = translator.recognised(p.expression) { return (filter, translator.traps.all) }
        let label = PredicateTranslator.label(p.expression)
        return (.predicate(RowPredicate(label: label) { q in try p.evaluate(q) }), [])
    }

    /// This translator for a subtree reached only when `f` holds as well.
    package func reaching(_ f: Filter) -> PredicateTranslator {
        var translator = self
        translator.reach = .conjunction([reach, f])
        return translator
    }

    /// A row-by-row filter for an untranslated subtree.
    package func slow<E: StandardPredicateExpression<Bool>>(_ e: E) -> Filter {
        let root = self.root
        return .predicate(RowPredicate(label: PredicateTranslator.label(e)) { q in
            try e.evaluate(PredicateBindings((root, q)))
        })
    }

    package func filter<E: StandardPredicateExpression<Bool>>(_ e: E) -> Filter {
        recognised(e) ?? slow(e)
    }

    /// The filter for a Boolean node, when recognised: a kernel shape, or a constant.
    package func recognised(_ e: Any) -> Filter? {
        guard let node = e as? any QuakeExpression else { return nil }
        if let filter = node.filter(self) { return filter }
        if case .constant(let value)? = node.operand(self), let flag = value as? Bool {
            return flag ? .all : Filter.none
        }
        return nil
    }

    package func operand(_ e: Any) -> Operand? { (e as? any QuakeExpression)?.operand(self) }

    package static func label(_ e: Any) -> String {
        let name = String(describing: type(of: e))
        return name.count > 120 ? String(name.prefix(117)) + "..." : name
    }
}

/// A value position in a predicate: a stored column (with a `??` default), a constant, or
/// the predicate's own variable.
package enum Operand {
    case column(Column, coalesce: Any?)
    case constant(Any)
    case root
    /// Arithmetic over `Double` fields (`$0.mag! - ($0.depth ?? 0)`).
    case expression(NumericExpression)
}

/// Predicate expression nodes the translator understands.
package protocol QuakeExpression {
    /// The node as a filter, when it is Boolean and recognised.
    func filter(_ t: PredicateTranslator) -> Filter?
    /// The node as a value operand, when recognised.
    func operand(_ t: PredicateTranslator) -> Operand?
}

extension QuakeExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? { nil }
    package func operand(_ t: PredicateTranslator) -> Operand? { nil }
}

extension PredicateExpressions.Variable: QuakeExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        if key == t.root.key { return .root }
        if let column = t.bound[key] { return .column(column, coalesce: nil) }
        return nil
    }
}

extension PredicateExpressions.Value: QuakeExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? { .constant(value) }
}

extension PredicateExpressions.UnaryMinus: QuakeExpression where Wrapped: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard case .constant(let value)? = t.operand(wrapped) else {
            guard Wrapped.Output.self == Double.self, let inner = t.numeric(t.operand(wrapped)) else { return nil }
            return .expression(.negated(inner))
        }
        switch value {
        case let number as Double: return .constant(-number)
        case let integer as Int: return .constant(-integer)
        default: return nil
        }
    }
}

extension PredicateExpressions.NilLiteral: QuakeExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? { .constant(Leaf.NilValue()) }
}

extension PredicateExpressions.KeyPath: QuakeExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        switch t.operand(root) {
        case .root?:
            return Quake.column(for: keyPath).map { .column($0, coalesce: nil) }
        case .constant(let value)?:
            guard let base = value as? Root.Output else { return nil }
            return .constant(base[keyPath: keyPath])
        default:
            return nil
        }
    }
}

extension PredicateExpressions.NilCoalesce: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard case .column(let column, nil)? = t.operand(lhs), case .constant(let fallback)? = t.operand(rhs) else {
            return nil
        }
        return .column(column, coalesce: fallback)
    }

    package func filter(_ t: PredicateTranslator) -> Filter? {
        // `if let x = q.field { body } else { default }` and `q.field.map { body } ?? default`
        guard let body = lhs as? any OptionalBody, case .constant(let fallback)? = t.operand(rhs),
              let dflt = fallback as? Bool,
              let (filter, column) = body.bodyFilter(t) else { return nil }
        return dflt ? .or([filter, .isNull(column)]) : filter
    }
}

extension PredicateExpressions.ForcedUnwrap: QuakeExpression where Inner: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        if case .column(let column, nil)? = t.operand(inner) {
            t.traps.add(UnwrapTrap(reach: t.reach, column: column))
            return .column(column, coalesce: nil)
        }
        return nil
    }
}

/// A force-unwrap of `column` that evaluation reaches on the rows `reach` matches.
package struct UnwrapTrap: Sendable {
    package var reach: Filter
    package var column: Column
}

/// The force-unwraps a translation met.
package final class UnwrapTraps {
    package private(set) var all: [UnwrapTrap] = []
    package func add(_ t: UnwrapTrap) { all.append(t) }
}

/// An optional-chaining body whose result is a Boolean about the unwrapped column value.
package protocol OptionalBody {
    func bodyFilter(_ t: PredicateTranslator) -> (Filter, Column)?
}

extension PredicateExpressions.OptionalFlatMap: QuakeExpression, OptionalBody
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func bodyFilter(_ t: PredicateTranslator) -> (Filter, Column)? {
        guard case .column(let column, nil)? = t.operand(wrapped) else { return nil }
        var inner = t.reaching(.not(.isNull(column)))
        inner.bound[variable.key] = column
        guard let filter = inner.recognised(transform) else { return nil }
        return (filter, column)
    }
}

extension PredicateExpressions.Conjunction: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let left = t.filter(lhs)
        return .conjunction([left, t.reaching(left).filter(rhs)])
    }
}

extension PredicateExpressions.Disjunction: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let left = t.filter(lhs)
        if case .all = left { return .all }
        let right = t.reaching(.not(left)).filter(rhs)
        if case .all = right { return .all }
        if case .none = left { return right }
        if case .none = right { return left }
        return .or([left, right])
    }
}

extension PredicateExpressions.Negation: QuakeExpression where Wrapped: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        switch t.filter(wrapped) {
        case .all: return Filter.none
        case .none: return .all
        case let filter: return .not(filter)
        }
    }
}

extension PredicateExpressions.Comparison: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let left = t.operand(lhs)
        let right = t.operand(rhs)
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default: return nil
        }
        if case .column(let column, let fallback)? = left, case .constant(let value)? = right {
            return Leaf.compare(column, fallback, symbol, value)
        }
        if case .column(let column, let fallback)? = right, case .constant(let value)? = left {
            return Leaf.compare(column, fallback, Leaf.flipped(symbol), value)
        }
        guard LHS.Output.self == Double.self,
              let comparisonOperator = ArithmeticComparison.Operator(rawValue: symbol) else { return nil }
        return t.arithmetic(left, comparisonOperator, right)
    }
}

extension PredicateExpressions.Equal: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? { Leaf.equality(t, lhs, rhs, equal: true) }
}

extension PredicateExpressions.NotEqual: QuakeExpression
    where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? { Leaf.equality(t, lhs, rhs, equal: false) }
}

extension PredicateExpressions.CollectionContainsCollection: QuakeExpression
    where Base: StandardPredicateExpression, Other: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        guard case .column(let column, let fallback)? = t.operand(base), case .constant(let value)? = t.operand(other),
              let needle = value as? String,
              column.kind == .place || column.kind == .category || column.kind == .text else { return nil }
        if let fallback { guard let text = fallback as? String, text.isEmpty else { return nil } }
        if needle.isEmpty { return fallback == nil ? .not(.isNull(column)) : .all }
        return .contains(column, CanonicalText.nfc(needle), insensitive: false)
    }
}

#if canImport(Darwin)
extension PredicateExpressions.StringLocalizedStandardContains: QuakeExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        guard case .column(let column, let fallback)? = t.operand(root), case .constant(let value)? = t.operand(other),
              let needle = value as? String else { return nil }
        if let fallback { guard let text = fallback as? String, text.isEmpty else { return nil } }
        return .contains(column, CanonicalText.nfc(needle), insensitive: true)
    }
}
#endif

/// Leaf filters from (column, `??` default, operator, constant).
package enum Leaf {
    package static func flipped(_ o: String) -> String { ["<": ">", "<=": ">=", ">": "<", ">=": "<="][o] ?? o }

    /// Marks a `nil` literal.
    package struct NilValue {}

    /// The wrapped value of an optional held in `Any` (nil for `.none`), or the value itself.
    package static func unwrap(_ v: Any) -> Any? {
        if v is NilValue { return nil }
        let mirror = Mirror(reflecting: v)
        guard mirror.displayStyle == .optional else { return v }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }

    package static func number(_ any: Any) -> Double? {
        guard let value = unwrap(any) else { return nil }
        switch value {
        case let number as Double: return number
        case let integer as Int: return Double(integer)
        case let number as Float: return Double(number)
        case let integer as Int64: return Double(integer)
        case let integer as Int32: return Double(integer)
        default: return nil
        }
    }

    package static func holds(_ a: Double, _ o: String, _ b: Double) -> Bool {
        switch o {
        case "<": return a < b
        case "<=": return a <= b
        case ">": return a > b
        case ">=": return a >= b
        case "==": return a == b
        default: return a != b
        }
    }

    /// `column <op> constant`, with null rows taking the `??` default when there is one.
    package static func compare(_ c: Column, _ coalesce: Any?, _ o: String, _ v: Any) -> Filter? {
        let filter: Filter
        let nullsMatch: Bool
        if c.kind == .timestamp {
            guard let date = v as? Date else { return nil }
            let millis = date.timeIntervalSince1970 * 1000
            switch o {
            case "<": filter = .timeRange(c, lower: nil, upper: Int64(saturating: millis.rounded(.up)))
            case "<=": filter = .timeRange(c, lower: nil, upper: Int64(saturating: millis.rounded(.down)) + 1)
            case ">": filter = .timeRange(c, lower: Int64(saturating: millis.rounded(.down)) + 1, upper: nil)
            default: filter = .timeRange(c, lower: Int64(saturating: millis.rounded(.up)), upper: nil)
            }
            if let fallback = coalesce {
                guard let fallbackDate = fallback as? Date else { return nil }
                nullsMatch = holds(fallbackDate.timeIntervalSince1970, o, date.timeIntervalSince1970)
            } else {
                nullsMatch = false
            }
        } else if c.kind == .decimal {
            guard let threshold = number(v) else { return nil }
            switch o {
            case "<": filter = .numberRange(c, lower: nil, upper: .init(threshold, inclusive: false))
            case "<=": filter = .numberRange(c, lower: nil, upper: .init(threshold))
            case ">": filter = .numberRange(c, lower: .init(threshold, inclusive: false), upper: nil)
            default: filter = .numberRange(c, lower: .init(threshold), upper: nil)
            }
            if let fallback = coalesce {
                guard let fallbackNumber = number(fallback) else { return nil }
                nullsMatch = holds(fallbackNumber, o, threshold)
            } else {
                nullsMatch = false
            }
        } else {
            return nil
        }
        return nullsMatch ? .or([filter, .isNull(c)]) : filter
    }

    package static func equality<L: StandardPredicateExpression, R: StandardPredicateExpression>(
        _ t: PredicateTranslator, _ lhs: L, _ rhs: R, equal: Bool
    ) -> Filter? {
        // `q.place?.contains("x") == true`
        if let body = lhs as? any OptionalBody, case .constant(let value)? = t.operand(rhs),
           let optionalFlag = value as? Bool?, let flag = optionalFlag, let (filter, _) = body.bodyFilter(t) {
            return flag == equal ? filter : .not(filter)
        }
        var columnOperand: (Column, Any?)?
        var constant: Any?
        if case .column(let column, let fallback)? = t.operand(lhs), case .constant(let value)? = t.operand(rhs) {
            columnOperand = (column, fallback)
            constant = value
        } else if case .column(let column, let fallback)? = t.operand(rhs),
                  case .constant(let value)? = t.operand(lhs) {
            columnOperand = (column, fallback)
            constant = value
        }
        guard let (column, coalesce) = columnOperand, let constant else {
            // arithmetic, or two fields: Swift's `!=` holds where `==` fails, NaN included
            guard L.Output.self == Double.self,
                  let equality = t.arithmetic(t.operand(lhs), .equal, t.operand(rhs)) else { return nil }
            return equal ? equality : .not(equality)
        }
        guard let value = unwrap(constant) else {
            guard coalesce == nil else { return nil }
            let filter = Filter.isNull(column)
            return equal ? filter : .not(filter)
        }
        if column.kind == .timestamp, let date = value as? Date {
            // a time between milliseconds: no row holds it
            let millis = date.timeIntervalSince1970 * 1000
            guard millis == millis.rounded() else { return equal ? Filter.none : .all }
        }
        guard let (filter, nullsMatch) = equalityLeaf(column, coalesce, value) else { return nil }
        let equalFilter: Filter = nullsMatch ? .or([filter, .isNull(column)]) : filter
        return equal ? equalFilter : .not(equalFilter)
    }

    /// `column == value` (value not nil, a time on a millisecond) and whether null rows match
    /// through the `??` default; nil when the value does not fit the column.
    private static func equalityLeaf(_ column: Column, _ coalesce: Any?, _ value: Any) -> (Filter, Bool)? {
        var nullsMatch = false
        switch column.kind {
        case .timestamp:
            guard let date = value as? Date else { return nil }
            let millis = date.timeIntervalSince1970 * 1000
            if let fallback = coalesce as? Date { nullsMatch = fallback == date }
            return (.timeRange(column, lower: Int64(saturating: millis), upper: Int64(saturating: millis) + 1),
                    nullsMatch)
        case .decimal:
            guard let target = number(value) else { return nil }
            if let fallback = coalesce {
                guard let fallbackNumber = number(fallback) else { return nil }
                nullsMatch = fallbackNumber == target
            }
            return (.numberRange(column, lower: .init(target), upper: .init(target)), nullsMatch)
        default:
            guard let text = value as? String else { return nil }
            if let fallback = coalesce {
                guard let fallbackText = fallback as? String else { return nil }
                nullsMatch = fallbackText == text
            }
            return (.oneOf(column, [CanonicalText.nfc(text)]), nullsMatch)
        }
    }
}
