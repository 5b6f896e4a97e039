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
        let t = PredicateTranslator(root: p.variable)
        if let f = t.recognised(p.expression) { return (f, t.traps.all) }
        return (.predicate(RowPredicate(label: PredicateTranslator.label(p.expression)) { q in try p.evaluate(q) }), [])
    }

    /// This translator for a subtree reached only when `f` holds as well.
    package func reaching(_ f: Filter) -> PredicateTranslator {
        var t = self
        t.reach = .conjunction([reach, f])
        return t
    }

    /// A row-by-row filter for an untranslated subtree.
    package func slow<E: StandardPredicateExpression<Bool>>(_ e: E) -> Filter {
        let root = self.root
        return .predicate(RowPredicate(label: PredicateTranslator.label(e)) { q in try e.evaluate(PredicateBindings((root, q))) })
    }

    package func filter<E: StandardPredicateExpression<Bool>>(_ e: E) -> Filter {
        recognised(e) ?? slow(e)
    }

    /// The filter for a Boolean node, when recognised: a kernel shape, or a constant.
    package func recognised(_ e: Any) -> Filter? {
        guard let node = e as? any QuakeExpression else { return nil }
        if let f = node.filter(self) { return f }
        if case .constant(let v)? = node.operand(self), let b = v as? Bool { return b ? .all : Filter.none }
        return nil
    }

    package func operand(_ e: Any) -> Operand? { (e as? any QuakeExpression)?.operand(self) }

    package static func label(_ e: Any) -> String {
        let s = String(describing: type(of: e))
        return s.count > 120 ? String(s.prefix(117)) + "..." : s
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
        if let c = t.bound[key] { return .column(c, coalesce: nil) }
        return nil
    }
}

extension PredicateExpressions.Value: QuakeExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? { .constant(value) }
}

extension PredicateExpressions.UnaryMinus: QuakeExpression where Wrapped: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard case .constant(let v)? = t.operand(wrapped) else {
            guard Wrapped.Output.self == Double.self, let inner = t.numeric(t.operand(wrapped)) else { return nil }
            return .expression(.negated(inner))
        }
        switch v {
        case let d as Double: return .constant(-d)
        case let i as Int: return .constant(-i)
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
        case .constant(let v)?:
            guard let base = v as? Root.Output else { return nil }
            return .constant(base[keyPath: keyPath])
        default:
            return nil
        }
    }
}

extension PredicateExpressions.NilCoalesce: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        guard case .column(let c, nil)? = t.operand(lhs), case .constant(let d)? = t.operand(rhs) else { return nil }
        return .column(c, coalesce: d)
    }

    package func filter(_ t: PredicateTranslator) -> Filter? {
        // `if let x = q.field { body } else { default }` and `q.field.map { body } ?? default`
        guard let body = lhs as? any OptionalBody, case .constant(let d)? = t.operand(rhs), let dflt = d as? Bool,
              let (f, c) = body.bodyFilter(t) else { return nil }
        return dflt ? .or([f, .isNull(c)]) : f
    }
}

extension PredicateExpressions.ForcedUnwrap: QuakeExpression where Inner: StandardPredicateExpression {
    package func operand(_ t: PredicateTranslator) -> Operand? {
        if case .column(let c, nil)? = t.operand(inner) {
            t.traps.add(UnwrapTrap(reach: t.reach, column: c))
            return .column(c, coalesce: nil)
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

extension PredicateExpressions.OptionalFlatMap: QuakeExpression, OptionalBody where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func bodyFilter(_ t: PredicateTranslator) -> (Filter, Column)? {
        guard case .column(let c, nil)? = t.operand(wrapped) else { return nil }
        var inner = t.reaching(.not(.isNull(c)))
        inner.bound[variable.key] = c
        guard let f = inner.recognised(transform) else { return nil }
        return (f, c)
    }
}

extension PredicateExpressions.Conjunction: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let l = t.filter(lhs)
        return .conjunction([l, t.reaching(l).filter(rhs)])
    }
}

extension PredicateExpressions.Disjunction: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let l = t.filter(lhs)
        if case .all = l { return .all }
        let r = t.reaching(.not(l)).filter(rhs)
        if case .all = r { return .all }
        if case .none = l { return r }
        if case .none = r { return l }
        return .or([l, r])
    }
}

extension PredicateExpressions.Negation: QuakeExpression where Wrapped: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        switch t.filter(wrapped) {
        case .all: return Filter.none
        case .none: return .all
        case let f: return .not(f)
        }
    }
}

extension PredicateExpressions.Comparison: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        let l = t.operand(lhs), r = t.operand(rhs)
        let o: String
        switch op {
        case .lessThan: o = "<"
        case .lessThanOrEqual: o = "<="
        case .greaterThan: o = ">"
        case .greaterThanOrEqual: o = ">="
        @unknown default: return nil
        }
        if case .column(let c, let d)? = l, case .constant(let v)? = r { return Leaf.compare(c, d, o, v) }
        if case .column(let c, let d)? = r, case .constant(let v)? = l { return Leaf.compare(c, d, Leaf.flipped(o), v) }
        guard LHS.Output.self == Double.self,
              let comparisonOperator = ArithmeticComparison.Operator(rawValue: o) else { return nil }
        return t.arithmetic(l, comparisonOperator, r)
    }
}

extension PredicateExpressions.Equal: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? { Leaf.equality(t, lhs, rhs, equal: true) }
}

extension PredicateExpressions.NotEqual: QuakeExpression where LHS: StandardPredicateExpression, RHS: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? { Leaf.equality(t, lhs, rhs, equal: false) }
}

extension PredicateExpressions.CollectionContainsCollection: QuakeExpression
    where Base: StandardPredicateExpression, Other: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        guard case .column(let c, let d)? = t.operand(base), case .constant(let v)? = t.operand(other), let needle = v as? String,
              c.kind == .place || c.kind == .category || c.kind == .text else { return nil }
        if let d { guard let s = d as? String, s.isEmpty else { return nil } }
        if needle.isEmpty { return d == nil ? .not(.isNull(c)) : .all }
        return .contains(c, CanonicalText.nfc(needle), insensitive: false)
    }
}

#if canImport(Darwin)
extension PredicateExpressions.StringLocalizedStandardContains: QuakeExpression where Root: StandardPredicateExpression, Other: StandardPredicateExpression {
    package func filter(_ t: PredicateTranslator) -> Filter? {
        guard case .column(let c, let d)? = t.operand(root), case .constant(let v)? = t.operand(other), let needle = v as? String else { return nil }
        if let d { guard let s = d as? String, s.isEmpty else { return nil } }
        return .contains(c, CanonicalText.nfc(needle), insensitive: true)
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
        let m = Mirror(reflecting: v)
        guard m.displayStyle == .optional else { return v }
        return m.children.first.map { unwrap($0.value) } ?? nil
    }

    package static func number(_ any: Any) -> Double? {
        guard let v = unwrap(any) else { return nil }
        switch v {
        case let d as Double: return d
        case let i as Int: return Double(i)
        case let f as Float: return Double(f)
        case let i as Int64: return Double(i)
        case let i as Int32: return Double(i)
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
        let f: Filter
        let nullsMatch: Bool
        if c.kind == .timestamp {
            guard let date = v as? Date else { return nil }
            let x = date.timeIntervalSince1970 * 1000
            switch o {
            case "<": f = .timeRange(c, lower: nil, upper: Int64(saturating: x.rounded(.up)))
            case "<=": f = .timeRange(c, lower: nil, upper: Int64(saturating: x.rounded(.down)) + 1)
            case ">": f = .timeRange(c, lower: Int64(saturating: x.rounded(.down)) + 1, upper: nil)
            default: f = .timeRange(c, lower: Int64(saturating: x.rounded(.up)), upper: nil)
            }
            if let d = coalesce { guard let dd = d as? Date else { return nil }; nullsMatch = holds(dd.timeIntervalSince1970, o, date.timeIntervalSince1970) } else { nullsMatch = false }
        } else if c.kind == .decimal {
            guard let x = number(v) else { return nil }
            switch o {
            case "<": f = .numberRange(c, lower: nil, upper: .init(x, inclusive: false))
            case "<=": f = .numberRange(c, lower: nil, upper: .init(x))
            case ">": f = .numberRange(c, lower: .init(x, inclusive: false), upper: nil)
            default: f = .numberRange(c, lower: .init(x), upper: nil)
            }
            if let d = coalesce { guard let dd = number(d) else { return nil }; nullsMatch = holds(dd, o, x) } else { nullsMatch = false }
        } else {
            return nil
        }
        return nullsMatch ? .or([f, .isNull(c)]) : f
    }

    package static func equality<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ t: PredicateTranslator, _ lhs: L, _ rhs: R, equal: Bool) -> Filter? {
        // `q.place?.contains("x") == true`
        if let body = lhs as? any OptionalBody, case .constant(let v)? = t.operand(rhs), let b = v as? Bool?, let flag = b, let (f, _) = body.bodyFilter(t) {
            return flag == equal ? f : .not(f)
        }
        var col: (Column, Any?)?, value: Any?
        if case .column(let c, let d)? = t.operand(lhs), case .constant(let v)? = t.operand(rhs) { col = (c, d); value = v }
        else if case .column(let c, let d)? = t.operand(rhs), case .constant(let v)? = t.operand(lhs) { col = (c, d); value = v }
        guard let (c, coalesce) = col, let v = value else {
            // arithmetic, or two fields: Swift's `!=` holds where `==` fails, NaN included
            guard L.Output.self == Double.self,
                  let equality = t.arithmetic(t.operand(lhs), .equal, t.operand(rhs)) else { return nil }
            return equal ? equality : .not(equality)
        }
        let f: Filter
        var nullsMatch = false
        guard let v = unwrap(v) else {
            guard coalesce == nil else { return nil }
            f = .isNull(c)
            return equal ? f : .not(f)
        }
        switch c.kind {
        case .timestamp:
            guard let date = v as? Date else { return nil }
            let x = date.timeIntervalSince1970 * 1000
            guard x == x.rounded() else { return equal ? Filter.none : .all }
            f = .timeRange(c, lower: Int64(saturating: x), upper: Int64(saturating: x) + 1)
            if let d = coalesce as? Date { nullsMatch = d == date }
        case .decimal:
            guard let x = number(v) else { return nil }
            f = .numberRange(c, lower: .init(x), upper: .init(x))
            if let d = coalesce { guard let dd = number(d) else { return nil }; nullsMatch = dd == x }
        default:
            guard let s = v as? String else { return nil }
            f = .oneOf(c, [CanonicalText.nfc(s)])
            if let d = coalesce { guard let dd = d as? String else { return nil }; nullsMatch = dd == s }
        }
        let eq: Filter = nullsMatch ? .or([f, .isNull(c)]) : f
        return equal ? eq : .not(eq)
    }

}
