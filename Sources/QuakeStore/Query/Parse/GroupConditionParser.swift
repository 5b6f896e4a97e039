import Foundation

/// The tokens and recursive descent of ``GroupCondition/parse(_:)``.
struct GroupConditionParser {
    enum Token: Equatable {
        case number(Double), metric(String), word(String), symbol(String), open, close, end
    }

    private let characters: [Character]
    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0
    private var depth = 0

    init(_ text: String) { characters = Array(text) }

    var atEnd: Bool { tokens[position].token == .end }
    var currentText: String {
        switch tokens[position].token {
        case .number(let number): return "number \(number)"
        case .metric(let text), .word(let text), .symbol(let text): return "'\(text)'"
        case .open: return "'('"
        case .close: return "')'"
        case .end: return "end of input"
        }
    }

    func error(_ message: String) -> WhereParser.SyntaxError {
        WhereParser.SyntaxError(column: tokens[min(position, tokens.count - 1)].column, message: message)
    }

    mutating func tokenize() throws {
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
            } else if character.isNumber || (character == "." && index + 1 < characters.count
                                                && characters[index + 1].isNumber) {
                index = try scanNumber(at: index)
            } else if character.isLetter || character == "_" {
                index = try scanWord(at: index)
            } else if character == "(" {
                tokens.append((.open, column))
                index += 1
            } else if character == ")" {
                tokens.append((.close, column))
                index += 1
            } else {
                let pair = index + 1 < characters.count ? String(characters[index...(index + 1)]) : ""
                if [">=", "<=", "!=", "<>", "==", "&&", "||"].contains(pair) {
                    tokens.append((.symbol(pair), column))
                    index += 2
                } else if "<>=!+-*/".contains(character) {
                    tokens.append((.symbol(String(character)), column))
                    index += 1
                } else {
                    throw WhereParser.SyntaxError(column: column, message: "unexpected '\(character)'")
                }
            }
        }
        tokens.append((.end, characters.count + 1))
    }

    /// Appends the number that starts at `index`; returns the index after it.
    private mutating func scanNumber(at index: Int) throws -> Int {
        let column = index + 1
        var end = index
        while end < characters.count, characters[end].isNumber || characters[end] == "."
                || ((characters[end] == "e" || characters[end] == "E") && end > index)
                || ((characters[end] == "-" || characters[end] == "+") && end > index
                    && (characters[end - 1] == "e" || characters[end - 1] == "E")) {
            end += 1
        }
        let text = String(characters[index..<end])
        guard let number = Double(text) else {
            throw WhereParser.SyntaxError(column: column, message: "bad number \(text)")
        }
        tokens.append((.number(number), column))
        return end
    }

    /// Appends the word (or metric call) that starts at `index`; returns the index after it.
    private mutating func scanWord(at index: Int) throws -> Int {
        let column = index + 1
        var end = index
        while end < characters.count, characters[end].isLetter || characters[end].isNumber
                || characters[end] == "_" {
            end += 1
        }
        let word = String(characters[index..<end])
        var next = end
        while next < characters.count, characters[next] == " " { next += 1 }
        if next < characters.count, characters[next] == "(", !["and", "or", "not"].contains(word.lowercased()) {
            // a metric: the name and its parenthesized argument, as one token
            guard let close = characters[next...].firstIndex(of: ")") else {
                throw WhereParser.SyntaxError(column: column, message: "no ')' after \(word)(")
            }
            tokens.append((.metric(word + String(characters[next...close])), column))
            return close + 1
        } else {
            tokens.append((.word(word), column))
            return end
        }
    }

    private func isWord(_ word: String) -> Bool {
        if case .word(let text) = tokens[position].token { return text.lowercased() == word }
        return false
    }

    private func isSymbol(_ symbol: String) -> Bool { tokens[position].token == .symbol(symbol) }

    mutating func parseOr() throws -> GroupCondition {
        var parts = [try parseAnd()]
        while isWord("or") || isSymbol("||") {
            position += 1
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    private mutating func parseAnd() throws -> GroupCondition {
        var parts = [try parseNot()]
        while isWord("and") || isSymbol("&&") {
            position += 1
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    private mutating func parseNot() throws -> GroupCondition {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else { throw error("nested too deeply") }
        if isWord("not") || isSymbol("!") {
            position += 1
            return .not(try parseNot())
        }
        if tokens[position].token == .open {
            // a parenthesized condition, unless it turns out to be the left side of a comparison
            let start = position
            position += 1
            if let inner = try? parseOr(), tokens[position].token == .close {
                position += 1
                if comparison() == nil && !["+", "-", "*", "/"].contains(where: isSymbol) { return inner }
            }
            position = start
        }
        return try parseComparison()
    }

    private func comparison() -> GroupCondition.Comparison? {
        guard case .symbol(let symbol) = tokens[position].token else { return nil }
        switch symbol {
        case "=", "==": return .equal
        case "!=", "<>": return .notEqual
        default: return GroupCondition.Comparison(rawValue: symbol)
        }
    }

    private mutating func parseComparison() throws -> GroupCondition {
        let left = try parseSum()
        guard let comparison = comparison() else {
            throw error("expected a comparison (= != < <= > >=), not \(currentText)")
        }
        position += 1
        return .compare(left, comparison, try parseSum())
    }

    private mutating func parseSum() throws -> GroupCondition.Expression {
        var expression = try parseProduct()
        while isSymbol("+") || isSymbol("-") {
            let operation: Character = isSymbol("+") ? "+" : "-"
            position += 1
            expression = .arithmetic(expression, operation, try parseProduct())
        }
        return expression
    }

    private mutating func parseProduct() throws -> GroupCondition.Expression {
        var expression = try parseUnary()
        while isSymbol("*") || isSymbol("/") {
            let operation: Character = isSymbol("*") ? "*" : "/"
            position += 1
            expression = .arithmetic(expression, operation, try parseUnary())
        }
        return expression
    }

    private mutating func parseUnary() throws -> GroupCondition.Expression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else { throw error("nested too deeply") }
        if isSymbol("-") {
            position += 1
            return .negate(try parseUnary())
        }
        switch tokens[position].token {
        case .number(let number):
            position += 1
            return .number(number)
        case .metric(let text):
            guard let metric = Metric(parsing: text) else { throw error("unknown metric '\(text)'") }
            position += 1
            return .metric(metric)
        case .word(let word) where word.lowercased() == "count":
            position += 1
            return .metric(.count)
        case .open:
            position += 1
            let inner = try parseSum()
            guard tokens[position].token == .close else { throw error("expected ')', not \(currentText)") }
            position += 1
            return inner
        case .word(let word):
            throw error("unknown metric '\(word)' (count, avg(mag), count(distinct net), ...)")
        default:
            throw error("expected a metric or a number, not \(currentText)")
        }
    }
}
