import QuakeFormat

/// The arithmetic kernel: both sides of an ``ArithmeticComparison`` evaluated a column at a
/// time over the window's decoded doubles (an empty field is NaN, which every operator
/// propagates and every comparison fails), then compared on the rows still selected.
extension BlockData {
    /// The rows of `sel` for which `comparison` holds.
    /// - Complexity: O(window × operators) to evaluate, O(selected) to compare.
    func arithmetic(_ comparison: ArithmeticComparison, _ sel: Selection) throws -> Selection {
        let left = try values(comparison.left)
        let right = try values(comparison.right)
        let op = comparison.op
        switch (left, right) {
        case (.column(let leftValues), .column(let rightValues)):
            // SAFETY: both arrays hold one value a row of the window (values() checks), and every
            // selected row lies below `rows`; the pointers stay in the closures.
            return leftValues.withUnsafeBufferPointer { leftPointer in
                rightValues.withUnsafeBufferPointer { rightPointer in
                    sel.filter { op.holds(leftPointer[$0], rightPointer[$0]) }
                }
            }
        case (.column(let leftValues), .constant(let constant)):
            // SAFETY: as above, for the left side alone.
            return leftValues.withUnsafeBufferPointer { pointer in sel.filter { op.holds(pointer[$0], constant) } }
        case (.constant(let constant), .column(let rightValues)):
            // SAFETY: as above, for the right side alone.
            return rightValues.withUnsafeBufferPointer { pointer in sel.filter { op.holds(constant, pointer[$0]) } }
        case (.constant(let leftConstant), .constant(let rightConstant)):
            return op.holds(leftConstant, rightConstant) ? sel : .none
        }
    }

    /// An expression's value for every row of the window, or once when it reads no field.
    private enum Values {
        case column([Double])
        case constant(Double)
    }

    private func values(_ expression: NumericExpression) throws -> Values {
        if let constant = expression.constantValue { return .constant(constant) }
        switch expression {
        case .field(let column, let fallback):
            let decoded = try doubles(column)
            guard decoded.count == rows else {
                throw QuakeError.corrupt(reader.path,
                                         "column \(column) block \(block) decodes to \(decoded.count) rows")
            }
            guard let fallback else { return .column(decoded) }
            return .column(decoded.map { $0.isNaN ? fallback : $0 })
        case .constant(let constant):
            return .constant(constant)
        case .negated(let inner):
            switch try values(inner) {
            case .column(let innerValues): return .column(innerValues.map { -$0 })
            case .constant(let constant): return .constant(-constant)
            }
        case .binary(let op, let left, let right):
            switch (try values(left), try values(right)) {
            case (.column(let leftValues), .column(let rightValues)):
                var out = [Double](repeating: 0, count: rows)
                for row in 0..<rows { out[row] = op.apply(leftValues[row], rightValues[row]) }
                return .column(out)
            case (.column(let leftValues), .constant(let constant)):
                return .column(leftValues.map { op.apply($0, constant) })
            case (.constant(let constant), .column(let rightValues)):
                return .column(rightValues.map { op.apply(constant, $0) })
            case (.constant(let leftConstant), .constant(let rightConstant)):
                return .constant(op.apply(leftConstant, rightConstant))
            }
        }
    }
}
