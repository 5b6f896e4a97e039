import QuakeFormat

/// Arithmetic comparisons decided from zone maps (`depth * 2 > 20`, `mag - depth / 10 > 1.5`):
/// each side's least and greatest value over the rows, by interval arithmetic on the fields'
/// min and max, so the granules no row of which can match are skipped, as a plain range on
/// the column skips them. The rows read are still tested exactly by the kernel.
extension ZoneMap {
    /// The least and greatest value an expression takes over rows within their statistics.
    struct Bounds {
        var lower: Double
        var upper: Double

        /// The largest magnitude of a bound: the scale of the rounding each operation adds.
        var magnitude: Double { Swift.max(Swift.abs(lower), Swift.abs(upper)) }
    }

    /// `.none` when no row's values can satisfy `comparison`, `.all` when every row's do, else
    /// `.some`. Only rows where every field has a value (or a default) are decided: an empty
    /// field matches neither the comparison nor its negation, so any such row gives `.some`.
    func verdict(_ comparison: ArithmeticComparison) throws -> ZoneVerdict {
        guard let left = try bounds(comparison.left), let right = try bounds(comparison.right),
              left.lower.isFinite, left.upper.isFinite, right.lower.isFinite, right.upper.isFinite else {
            return .some
        }
        // interval arithmetic in doubles rounds: a margin far above the rounding of a few operations
        let margin = 1e-9 * Swift.max(left.magnitude, right.magnitude, 1)
        let leftLow = left.lower - margin, leftHigh = left.upper + margin
        let rightLow = right.lower - margin, rightHigh = right.upper + margin
        switch comparison.op {
        case .greater:
            if leftHigh <= rightLow { return .none }
            if leftLow > rightHigh { return .all }
        case .greaterOrEqual:
            if leftHigh < rightLow { return .none }
            if leftLow >= rightHigh { return .all }
        case .less:
            if leftLow >= rightHigh { return .none }
            if leftHigh < rightLow { return .all }
        case .lessOrEqual:
            if leftLow > rightHigh { return .none }
            if leftHigh <= rightLow { return .all }
        case .equal:
            if leftHigh < rightLow || leftLow > rightHigh { return .none }
        case .notEqual:
            if leftHigh < rightLow || leftLow > rightHigh { return .all }
        }
        return .some
    }

    /// The bounds of `expression` over the rows; nil when unknown (a field some row lacks, with
    /// no default; a divisor whose bounds hold zero).
    func bounds(_ expression: NumericExpression) throws -> Bounds? {
        switch expression {
        case .constant(let value):
            return Bounds(lower: value, upper: value)
        case .field(let column, let fallback):
            return try fieldBounds(column, fallback)
        case .negated(let inner):
            guard let inner = try bounds(inner) else { return nil }
            return Bounds(lower: -inner.upper, upper: -inner.lower)
        case .binary(let op, let leftExpression, let rightExpression):
            guard let left = try bounds(leftExpression), let right = try bounds(rightExpression) else { return nil }
            return Self.combine(op, left, right)
        }
    }

    private func fieldBounds(_ column: Column, _ fallback: Double?) throws -> Bounds? {
        let stats = try stats(column)
        if stats.nulls > 0 && fallback == nil { return nil }
        var bounds: Bounds?
        if stats.nulls < stats.rows {
            switch column.kind {
            case .timestamp: bounds = Bounds(lower: Double(stats.min), upper: Double(stats.max))
            case .decimal: bounds = Bounds(lower: stats.minDouble, upper: stats.maxDouble)
            default: return nil
            }
        }
        if stats.nulls > 0, let fallback {
            bounds = Bounds(lower: Swift.min(bounds?.lower ?? fallback, fallback),
                            upper: Swift.max(bounds?.upper ?? fallback, fallback))
        }
        guard let bounds, !bounds.lower.isNaN, !bounds.upper.isNaN else { return nil }
        return bounds
    }

    private static func combine(_ op: NumericExpression.ArithmeticOperator, _ left: Bounds,
                                _ right: Bounds) -> Bounds? {
        switch op {
        case .add:
            return Bounds(lower: left.lower + right.lower, upper: left.upper + right.upper)
        case .subtract:
            return Bounds(lower: left.lower - right.upper, upper: left.upper - right.lower)
        case .multiply:
            return spread([left.lower * right.lower, left.lower * right.upper,
                           left.upper * right.lower, left.upper * right.upper])
        case .divide, .floatDivide:
            // a divisor that may be zero gives infinity or NaN (or SQL's empty): undecided
            guard right.lower > 0 || right.upper < 0 else { return nil }
            return spread([left.lower / right.lower, left.lower / right.upper,
                           left.upper / right.lower, left.upper / right.upper])
        }
    }

    private static func spread(_ values: [Double]) -> Bounds? {
        guard let lower = values.min(), let upper = values.max(), !lower.isNaN, !upper.isNaN else { return nil }
        return Bounds(lower: lower, upper: upper)
    }
}
