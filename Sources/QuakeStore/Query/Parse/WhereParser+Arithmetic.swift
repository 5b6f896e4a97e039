import QuakeFormat

/// Comparisons between values that may be arithmetic: `mag - depth > 5`, `depth / 10 < mag`,
/// `-(mag * 2) <= -3`, `mag > depth`, `updated - time > 86400000` (times are epoch
/// milliseconds there). `+ - * /` over numbers and numeric fields, with the usual precedence and
/// parentheses. A field compared with a constant (`mag > 2 * 2`) stays a range kernel; anything
/// else becomes an ``ArithmeticComparison``.
extension WhereParser {
    /// One side of a comparison: arithmetic, or a literal that only compares with a bare field.
    enum Side {
        case numeric(NumericExpression, column: Int)
        case literal(Token, column: Int)

        var column: Int {
            switch self {
            case .numeric(_, let column), .literal(_, let column): return column
            }
        }

        /// The field, when the side is a field and nothing else.
        var bareField: Column? {
            if case .numeric(.field(let field, nil), _) = self { return field }
            return nil
        }
    }

    /// Whether the tokens from `index` continue a field with a method or an SQL word
    /// (`place.contains(…)`, `place LIKE …`, `mag NOT BETWEEN …`, `depth IS NULL`).
    func hasFieldTail(at index: Int) -> Bool {
        func word(_ at: Int) -> String? {
            if case .ident(let text) = tokens[min(at, tokens.count - 1)].0 { return text.lowercased() }
            return nil
        }
        let sqlWords: Set = ["like", "ilike", "between", "in", "is"]
        if tokens[min(index, tokens.count - 1)].0 == .dot { return true }
        if let text = word(index), sqlWords.contains(text) { return true }
        if tokens[min(index, tokens.count - 1)].0 == .op("!"), let text = word(index + 1) {
            return sqlWords.contains(text) && text != "is"
        }
        return false
    }

    /// Whether `token` after a closing parenthesis goes on with a value: an arithmetic or a
    /// comparison operator.
    static func continuesValue(_ token: Token) -> Bool {
        guard case .op(let op) = token else { return false }
        return ["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="].contains(op)
    }

    /// `SIDE op SIDE`.
    mutating func parseValueComparison() throws -> Filter {
        let left = try parseSum()
        guard case .op(let op) = current, ["==", "!=", "<", "<=", ">", ">="].contains(op) else {
            let after = left.bareField.map { "'\($0)'" } ?? "the value"
            throw error("expected a comparison after \(after), found \(describe(current))")
        }
        pos += 1
        let right = try parseSum()
        if let field = left.bareField, let literal = literalToken(right) {
            return try WhereParser.comparison(field, op, literal, column: right.column)
        }
        if let field = right.bareField, let literal = literalToken(left) {
            return try WhereParser.comparison(field, Leaf.flipped(op), literal, column: left.column)
        }
        for (field, other) in [(left.bareField, right), (right.bareField, left)] {
            if let field, field.kind != .decimal && field.kind != .timestamp {
                throw SyntaxError(column: other.column, message: "\(field) compares with a string in quotes")
            }
        }
        let leftExpression = try numeric(left)
        let rightExpression = try numeric(right)
        for (side, expression) in [(left, leftExpression), (right, rightExpression)] {
            if let text = expression.columns.first(where: { $0.kind != .decimal && $0.kind != .timestamp }) {
                throw SyntaxError(column: side.column,
                                  message: "\(text) is not a number: it compares with a string in quotes")
            }
        }
        guard let comparisonOperator = ArithmeticComparison.Operator(rawValue: op) else {
            throw error("unknown operator '\(op)'")
        }
        let comparison = ArithmeticComparison(leftExpression, comparisonOperator, rightExpression)
        if let leftValue = leftExpression.constantValue, let rightValue = rightExpression.constantValue {
            return comparisonOperator.holds(leftValue, rightValue) ? .all : .none
        }
        return .arithmetic(comparison)
    }

    /// The side as the literal token a field's own comparison takes: a string, `nil`, or a
    /// number (a constant expression folded to one).
    private func literalToken(_ side: Side) -> Token? {
        switch side {
        case .literal(let token, _): return token
        case .numeric(let expression, _):
            guard let value = expression.constantValue, value.isFinite else { return nil }
            return .number(String(value))
        }
    }

    /// The side as arithmetic: a string or `nil` there is an error.
    private func numeric(_ side: Side) throws -> NumericExpression {
        switch side {
        case .numeric(let expression, _): return expression
        case .literal(let token, let column):
            throw SyntaxError(column: column, message: "\(describe(token)) compares only with a field")
        }
    }

    /// `PRODUCT (('+' | '-') PRODUCT)*`.
    private mutating func parseSum() throws -> Side {
        try parseLevel(["+": .add, "-": .subtract]) { parser in try parser.parseProduct() }
    }

    /// `FACTOR (('*' | '/') FACTOR)*`.
    private mutating func parseProduct() throws -> Side {
        try parseLevel(["*": .multiply, "/": .divide]) { parser in try parser.parseFactor() }
    }

    /// `OPERAND (OP OPERAND)*` at one precedence level, left to right; `operators` names each
    /// symbol's operation.
    private mutating func parseLevel(_ operators: [String: NumericExpression.ArithmeticOperator],
                                     _ operand: (inout WhereParser) throws -> Side) throws -> Side {
        var left = try operand(&self)
        while case .op(let text) = current, let arithmeticOperator = operators[text] {
            pos += 1
            let right = try operand(&self)
            left = .numeric(.binary(arithmeticOperator, try numeric(left), try numeric(right)), column: left.column)
        }
        return left
    }

    /// A number, a numeric field, `-FACTOR`, `(SUM)`, or a string or `nil` literal.
    private mutating func parseFactor() throws -> Side {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else { throw error("nested more than \(WhereParser.maxDepth) levels deep") }
        let column = tokens[pos].1
        switch current {
        case .op("-"):
            pos += 1
            return .numeric(.negated(try numeric(try parseFactor())), column: column)
        case .lparen:
            pos += 1
            let inner = try parseSum()
            guard current == .rparen else { throw error("expected ')', found \(describe(current))") }
            pos += 1
            return .numeric(try numeric(inner), column: column)
        case .number(let text):
            guard let value = Double(text), value.isFinite else {
                throw SyntaxError(column: column, message: "\(text) is out of range")
            }
            pos += 1
            return .numeric(.constant(value), column: column)
        case .string:
            let token = current
            pos += 1
            return .literal(token, column: column)
        case .ident("nil"):
            let token = current
            pos += 1
            return .literal(token, column: column)
        case .ident:
            let field = try self.field()
            // a text field stands alone (`net == "us"`); in arithmetic it is refused
            let isNumber = field.kind == .decimal || field.kind == .timestamp
            if !isNumber, case .op(let op) = current, ["+", "-", "*", "/"].contains(op) {
                throw SyntaxError(column: column, message: "\(field) is not a number: arithmetic takes numeric fields")
            }
            return .numeric(.field(field, default: nil), column: column)
        default:
            throw error("expected a field, a number or '(', found \(describe(current))")
        }
    }
}
