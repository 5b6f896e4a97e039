import Foundation
import QuakeFormat

/// Parses `--where` text in Swift-predicate syntax into a ``Filter``, e.g.
/// `mag >= 4.5 && (place.contains("Alaska") || net == "ak") && time >= "2011-03-11"`.
///
/// SQL habits are accepted too: `=`, `<>`, `and`, `or`, `not`, single-quoted strings
/// (`net = 'us' and mag > 4`), `LIKE` and `ILIKE` with `%` and `_`, `BETWEEN a AND b`,
/// `IN (a, b)` and `IS [NOT] NULL`, each with `NOT`.
///
/// Empty fields follow SQL's three-valued logic: a comparison with one is unknown, so neither
/// `depth < 10` nor `not depth < 10` (nor `depth != 10`) matches an event without a depth;
/// `depth IS NULL` (or `depth == nil`) finds those.
///
/// Grammar: `||`, `&&`, `!`, parentheses; comparisons `== != < <= > >=` between a field and a
/// literal (number, string, `nil`); `FIELD.contains("…")` (case-sensitive) and
/// `FIELD.localizedStandardContains("…")` (case- and diacritic-insensitive). Times compare
/// with ISO dates or date-times in quotes.
package struct WhereParser {
    /// A syntax error with the 1-based column of the offending token.
    package struct SyntaxError: Error, CustomStringConvertible {
        package let column: Int
        package let message: String
        package var description: String { "column \(column): \(message)" }
    }

    enum Token: Equatable {
        case ident(String), number(String), string(String), op(String), lparen, rparen, dot, comma, end
    }

    var tokens: [(Token, Int)] = []
    var pos = 0
    var depth = 0
    /// Deepest nesting of parentheses and `!` accepted; deeper text is refused, not recursed into.
    package static let maxDepth = 200

    package static func parse(_ text: String) throws -> Filter {
        var parser = WhereParser()
        try parser.tokenize(text)
        let filter = try parser.parseOr()
        guard case .end = parser.tokens[parser.pos].0 else {
            throw parser.error("unexpected \(parser.describe(parser.tokens[parser.pos].0))")
        }
        return filter
    }

    func error(_ m: String, at: Int? = nil) -> SyntaxError {
        SyntaxError(column: at ?? tokens[min(pos, tokens.count - 1)].1, message: m)
    }

    func describe(_ t: Token) -> String {
        switch t {
        case .ident(let name): return "'\(name)'"
        case .number(let number): return "number \(number)"
        case .string(let text): return "string \"\(text)\""
        case .op(let symbol): return "'\(symbol)'"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .dot: return "'.'"
        case .comma: return "','"
        case .end: return "end of input"
        }
    }

    private mutating func tokenize(_ text: String) throws {
        let chars = Array(text)
        var index = 0
        // after a value, `-` is subtraction (`mag -1` is `mag - 1`), elsewhere a number's sign
        var endsOperand: Bool {
            switch tokens.last?.0 {
            case .ident?, .number?, .string?, .rparen?: return true
            default: return false
            }
        }
        while index < chars.count {
            let char = chars[index]
            if char.isWhitespace {
                index += 1
                continue
            }
            if char.isLetter || char == "_" {
                scanWord(chars, &index)
            } else if char.isNumber
                        || (char == "-" && index + 1 < chars.count && chars[index + 1].isNumber && !endsOperand) {
                try scanNumber(chars, &index)
            } else if char == "\"" || char == "'" {
                try scanString(chars, &index)
            } else {
                try scanSymbol(chars, &index)
            }
        }
        tokens.append((.end, chars.count + 1))
    }

    /// A word at `index`: an identifier, or SQL's words for the Swift operators.
    private mutating func scanWord(_ chars: [Character], _ index: inout Int) {
        let col = index + 1
        var word = ""
        while index < chars.count && (chars[index].isLetter || chars[index].isNumber || chars[index] == "_") {
            word.append(chars[index])
            index += 1
        }
        // SQL's words for the Swift operators
        switch word.lowercased() {
        case "and": tokens.append((.op("&&"), col))
        case "or": tokens.append((.op("||"), col))
        case "not": tokens.append((.op("!"), col))
        default: tokens.append((.ident(word), col))
        }
    }

    /// A number at `index`, with its sign when it has one.
    private mutating func scanNumber(_ chars: [Character], _ index: inout Int) throws {
        let col = index + 1
        var number = String(chars[index])
        index += 1
        while index < chars.count
                && (chars[index].isNumber || chars[index] == "." || chars[index] == "e" || chars[index] == "E") {
            number.append(chars[index])
            index += 1
        }
        guard Double(number) != nil else { throw SyntaxError(column: col, message: "bad number '\(number)'") }
        tokens.append((.number(number), col))
    }

    /// A string at `index`: Swift's double quotes with backslash escapes, or SQL's single quotes
    /// with '' for '.
    private mutating func scanString(_ chars: [Character], _ index: inout Int) throws {
        let col = index + 1
        let quote = chars[index]
        var text = ""
        index += 1
        while index < chars.count {
            if chars[index] == quote {
                if quote == "'" && index + 1 < chars.count && chars[index + 1] == "'" {
                    text.append("'")
                    index += 2
                    continue
                }
                break
            }
            if quote == "\"" && chars[index] == "\\" && index + 1 < chars.count { index += 1 }
            text.append(chars[index])
            index += 1
        }
        guard index < chars.count else { throw SyntaxError(column: col, message: "unterminated string") }
        index += 1
        tokens.append((.string(text), col))
    }

    /// Punctuation or an operator at `index`.
    private mutating func scanSymbol(_ chars: [Character], _ index: inout Int) throws {
        let char = chars[index]
        let col = index + 1
        let two = index + 1 < chars.count ? String([char, chars[index + 1]]) : ""
        let token: Token
        var length = 1
        switch char {
        case "(": token = .lparen
        case ")": token = .rparen
        case ".": token = .dot
        case ",": token = .comma
        default:
            if ["&&", "||", "==", "!=", "<=", ">="].contains(two) {
                token = .op(two)
                length = 2
            } else if two == "<>" {
                token = .op("!=")
                length = 2
            } else if char == "=" {
                token = .op("==")
            } else if ["<", ">", "!", "+", "-", "*", "/"].contains(String(char)) {
                token = .op(String(char))
            } else {
                throw SyntaxError(column: col, message: "unexpected character '\(char)'")
            }
        }
        tokens.append((token, col))
        index += length
    }

    var current: Token { tokens[pos].0 }

    // `negated` carries a NOT down to the comparisons (De Morgan), where SQL's three-valued
    // logic decides what the negation of each means (see ``negate(_:)``).

    private mutating func parseOr(negated: Bool = false) throws -> Filter {
        var parts = [try parseAnd(negated: negated)]
        while current == .op("||") {
            pos += 1
            parts.append(try parseAnd(negated: negated))
        }
        return parts.count == 1 ? parts[0] : negated ? .conjunction(parts) : .or(parts)
    }

    private mutating func parseAnd(negated: Bool) throws -> Filter {
        var parts = [try parseUnary(negated: negated)]
        while current == .op("&&") {
            pos += 1
            parts.append(try parseUnary(negated: negated))
        }
        return parts.count == 1 ? parts[0] : negated ? .or(parts) : .conjunction(parts)
    }

    private mutating func parseUnary(negated: Bool) throws -> Filter {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else {
            throw error("nested more than \(WhereParser.maxDepth) levels deep")
        }
        if current == .op("!") {
            pos += 1
            return try parseUnary(negated: !negated)
        }
        if current == .lparen {
            // a group of conditions, or the start of arithmetic (`(mag - depth) / 2 > 1`): the
            // reading that gets further wins, and its error is the one reported
            let start = pos
            pos += 1
            var groupError: SyntaxError
            do {
                let group = try parseOr(negated: negated)
                if current == .rparen && !WhereParser.continuesValue(tokens[pos + 1].0) {
                    pos += 1
                    return group
                }
                groupError = error("expected ')', found \(describe(current))")
            } catch let failure as SyntaxError {
                groupError = failure
            }
            pos = start
            do {
                let comparison = try parseComparison()
                return negated ? WhereParser.negate(comparison) : comparison
            } catch let failure as SyntaxError where failure.column > groupError.column {
                throw failure
            } catch {
                throw groupError
            }
        }
        let comparison = try parseComparison()
        return negated ? WhereParser.negate(comparison) : comparison
    }

    mutating func field() throws -> Column {
        guard case .ident(let name) = current else {
            throw error("expected a field name, found \(describe(current))")
        }
        let alias = ["magnitude": "mag", "latitude": "latitude", "longitude": "longitude"][name] ?? name
        guard let column = Column(name: alias) else { throw error("unknown field '\(name)'") }
        pos += 1
        return column
    }

    private mutating func parseComparison() throws -> Filter {
        if case .ident(let word) = current, word == "true" {
            pos += 1
            return .all
        }
        if case .ident(let word) = current, word == "false" {
            pos += 1
            return .none
        }
        guard case .ident = current, hasFieldTail(at: pos + 1) else { return try parseValueComparison() }
        let fieldCol = tokens[pos].1
        let column = try field()
        if let filter = try parseSQLTail(column, fieldColumn: fieldCol) { return filter }
        if current == .dot { return try parseMethodCall(column, fieldColumn: fieldCol) }
        guard case .op(let op) = current, ["==", "!=", "<", "<=", ">", ">="].contains(op) else {
            throw error("expected a comparison after '\(column)', found \(describe(current))")
        }
        pos += 1
        let litCol = tokens[pos].1
        let lit = current
        pos += 1
        return try WhereParser.comparison(column, op, lit, column: litCol)
    }

    /// `.contains("…")` or `.localizedStandardContains("…")` after field `column`, from the dot.
    private mutating func parseMethodCall(_ column: Column, fieldColumn fieldCol: Int) throws -> Filter {
        pos += 1
        guard case .ident(let method) = current else { throw error("expected a method name after '.'") }
        let methodCol = tokens[pos].1
        pos += 1
        guard current == .lparen else { throw error("expected '(' after \(method)") }
        pos += 1
        guard case .string(let needle) = current else { throw error("\(method) takes a string in quotes") }
        pos += 1
        guard current == .rparen else { throw error("expected ')'") }
        pos += 1
        guard column.kind == .place || column.kind == .category || column.kind == .text else {
            throw error("\(column) is not a text field", at: fieldCol)
        }
        switch method {
        case "contains":
            return .contains(column, CanonicalText.nfc(needle), insensitive: false)
        case "localizedStandardContains", "localizedCaseInsensitiveContains":
            return .contains(column, CanonicalText.nfc(needle), insensitive: true)
        default:
            throw error("unknown method '\(method)' (use contains or localizedStandardContains)", at: methodCol)
        }
    }

    static func comparison(_ c: Column, _ op: String, _ lit: Token, column: Int) throws -> Filter {
        if case .ident("nil") = lit {
            switch op {
            case "==": return .isNull(c)
            case "!=": return .not(.isNull(c))
            default: throw SyntaxError(column: column, message: "nil only compares with == or !=")
            }
        }
        switch c.kind {
        case .timestamp:
            let time: Int64
            switch lit {
            case .string(let text):
                guard let parsed = DateParsing.parse(text) else {
                    throw SyntaxError(column: column, message: "not a date: \"\(text)\"")
                }
                time = parsed
            case .number(let text):
                // epoch milliseconds; beyond year ±9999 nothing can match, and the bound must not overflow
                guard let millis = Double(text), millis.isFinite, abs(millis) <= 253_402_300_800_000 else {
                    throw SyntaxError(column: column,
                                      message: "\(c): \(text) is not a time in epoch milliseconds within years 0-9999")
                }
                time = Int64(millis.rounded(.down))
            default: throw SyntaxError(column: column, message: "\(c) compares with a date in quotes")
            }
            switch op {
            case "==": return .timeRange(c, lower: time, upper: time + 1)
            case "!=": return negate(.timeRange(c, lower: time, upper: time + 1))
            case "<": return .timeRange(c, lower: nil, upper: time)
            case "<=": return .timeRange(c, lower: nil, upper: time + 1)
            case ">": return .timeRange(c, lower: time + 1, upper: nil)
            default: return .timeRange(c, lower: time, upper: nil)
            }
        case .decimal:
            guard case .number(let text) = lit, let number = Double(text) else {
                throw SyntaxError(column: column, message: "\(c) compares with a number")
            }
            guard number.isFinite else { throw SyntaxError(column: column, message: "\(text) is out of range") }
            switch op {
            case "==": return .numberRange(c, lower: .init(number), upper: .init(number))
            case "!=": return negate(.numberRange(c, lower: .init(number), upper: .init(number)))
            case "<": return .numberRange(c, lower: nil, upper: .init(number, inclusive: false))
            case "<=": return .numberRange(c, lower: nil, upper: .init(number))
            case ">": return .numberRange(c, lower: .init(number, inclusive: false), upper: nil)
            default: return .numberRange(c, lower: .init(number), upper: nil)
            }
        default:
            guard case .string(let text) = lit else {
                throw SyntaxError(column: column, message: "\(c) compares with a string in quotes")
            }
            switch op {
            case "==": return .oneOf(c, [CanonicalText.nfc(text)])
            case "!=": return negate(.oneOf(c, [CanonicalText.nfc(text)]))
            default: throw SyntaxError(column: column, message: "\(c) supports == and != (or .contains)")
            }
        }
    }
}

extension WhereParser {
    /// SQL's words after a field: `[NOT] LIKE|ILIKE 'p'`, `[NOT] BETWEEN a AND b`,
    /// `[NOT] IN (a, ...)`, `IS [NOT] NULL`; nil when none follows.
    private mutating func parseSQLTail(_ c: Column, fieldColumn: Int) throws -> Filter? {
        func word(_ at: Int) -> String? {
            if case .ident(let name) = tokens[min(at, tokens.count - 1)].0 { return name.lowercased() }
            return nil
        }
        let sqlWords: Set = ["like", "ilike", "between", "in", "is"]
        var negated = false
        if current == .op("!"), let next = word(pos + 1), sqlWords.contains(next), next != "is" {
            negated = true
            pos += 1
        }
        guard let sqlWord = word(pos), sqlWords.contains(sqlWord) else { return nil }
        let wordColumn = tokens[pos].1
        pos += 1
        let filter: Filter
        switch sqlWord {
        case "is":
            var not = false
            if current == .op("!") {
                not = true
                pos += 1
            }
            guard word(pos) == "null" else { throw error("expected NULL after IS\(not ? " NOT" : "")") }
            pos += 1
            return not ? .not(.isNull(c)) : .isNull(c)
        case "like", "ilike":
            guard case .string(let pattern) = current else {
                throw error("\(sqlWord.uppercased()) takes a pattern in quotes")
            }
            pos += 1
            guard c.kind == .place || c.kind == .category || c.kind == .text else {
                throw error("\(c) is not a text field", at: fieldColumn)
            }
            filter = WhereParser.like(c, LikePattern(pattern, insensitive: sqlWord == "ilike"))
        case "between":
            let loColumn = tokens[pos].1
            let lo = current
            pos += 1
            guard current == .op("&&") else { throw error("expected AND in BETWEEN ... AND ...") }
            pos += 1
            let hiColumn = tokens[pos].1
            let hi = current
            pos += 1
            filter = .conjunction([try WhereParser.comparison(c, ">=", lo, column: loColumn),
                                   try WhereParser.comparison(c, "<=", hi, column: hiColumn)])
        default:   // in
            filter = try parseInList(c, wordColumn: wordColumn)
        }
        return negated ? WhereParser.negate(filter) : filter
    }

    /// `IN (a, ...)` after field `c`, from the parenthesis: one list of strings when every value
    /// is one, otherwise the equalities' disjunction.
    private mutating func parseInList(_ c: Column, wordColumn: Int) throws -> Filter {
        guard current == .lparen else { throw error("expected '(' after IN", at: wordColumn) }
        pos += 1
        var parts: [Filter] = []
        while true {
            let litColumn = tokens[pos].1
            let lit = current
            pos += 1
            parts.append(try WhereParser.comparison(c, "==", lit, column: litColumn))
            if current == .comma {
                pos += 1
                continue
            }
            guard current == .rparen else { throw error("expected ',' or ')' in IN (...)") }
            pos += 1
            break
        }
        var strings: [String] = []
        for part in parts {
            if case .oneOf(_, let values) = part { strings += values }
        }
        return strings.count == parts.count ? .oneOf(c, strings) : .or(parts)
    }

    /// A LIKE pattern as a kernel filter when it is a substring or an equality; otherwise its
    /// longest literal as a substring search, then the pattern itself row by row.
    private static func like(_ c: Column, _ p: LikePattern) -> Filter {
        if let filter = p.simpleFilter(c, original: p.pattern) { return filter }
        let keyPath = Quake.columnsByKeyPath.first { $0.value == c }?.key
        let label = "\(c) \(p.insensitive ? "ILIKE" : "LIKE") '\(p.pattern)'"
        let exact = Filter.predicate(RowPredicate(label: label) { q in
            let text: String?
            if let optionalPath = keyPath as? KeyPath<Quake, String?> {
                text = q[keyPath: optionalPath]
            } else if let path = keyPath as? KeyPath<Quake, String> {
                text = q[keyPath: path]
            } else {
                text = nil
            }
            return text.map(p.matches) ?? false
        })
        guard let literal = p.longestLiteral, !literal.isEmpty else {
            return .conjunction([.not(.isNull(c)), exact])
        }
        return .conjunction([.contains(c, CanonicalText.nfc(literal), insensitive: p.insensitive), exact])
    }

    /// `NOT c` of one comparison `c` (which may test one field several ways, as BETWEEN, IN
    /// and LIKE do) under SQL's three-valued logic: a comparison with an empty field is unknown,
    /// and so is its negation, so the negation also requires the fields to be present.
    package static func negate(_ f: Filter) -> Filter {
        switch f {
        case .all: return .none
        case .none: return .all
        case .isNull: return .not(f)
        case .not(.isNull(let column)): return .isNull(column)
        case .arithmetic(let comparison): return .arithmetic(comparison.negation)
        default:
            let present = tested(f).sorted { $0.rawValue < $1.rawValue }.map { Filter.not(.isNull($0)) }
            return .conjunction([.not(f)] + present)
        }
    }

    /// The fields a comparison tests; a LIKE's row-by-row part tests the field its kernel part names.
    private static func tested(_ f: Filter) -> ColumnSet {
        switch f {
        case .predicate: return []
        case .and(let terms), .or(let terms): return terms.reduce(into: ColumnSet()) { $0.formUnion(tested($1)) }
        case .not(let term): return tested(term)
        default: return f.columns
        }
    }
}

/// Dates as the CLI takes them: `YYYY-MM-DD` or a full ISO-8601 UTC date-time.
package enum DateParsing {
    package static func parse(_ s: String) -> Int64? {
        if let time = Timestamp.parse(s) { return time }
        return nil
    }

    /// ``parse(_:)`` for a bound that digits past the millisecond must not widen: with
    /// `roundingUp`, `.0401` is the next millisecond, `.041` (a start of `.0401` does not take an
    /// event at `.040`; nor does an exclusive end of `.0401` leave one out).
    package static func parse(_ s: String, roundingUp: Bool) -> Int64? {
        guard let time = parse(s) else { return nil }
        guard roundingUp, let dot = s.utf8.firstIndex(of: UInt8(ascii: ".")) else { return time }
        let fraction = s.utf8[s.utf8.index(after: dot)...].prefix { $0 >= 48 && $0 <= 57 }
        return fraction.dropFirst(3).contains { $0 != 48 } ? time + 1 : time
    }

    /// `7d`, `12h`, `2w`, `30m` as milliseconds.
    package static func duration(_ s: String) -> Int64? {
        guard let unit = s.last, let count = Double(s.dropLast()), count >= 0, count.isFinite else { return nil }
        let ms: Double
        switch unit {
        case "m": ms = 60_000
        case "h": ms = 3_600_000
        case "d": ms = 86_400_000
        case "w": ms = 7 * 86_400_000
        default: return nil
        }
        // longer than about 10,000 years reaches before any stored time: the same answer
        return Int64(saturating: Swift.min(count * ms, 3.2e14))
    }
}
