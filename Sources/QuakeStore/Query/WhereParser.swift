import Foundation
import QuakeFormat

/// Parses `--where` text in Swift-predicate syntax into a ``Filter``, e.g.
/// `mag >= 4.5 && (place.contains("Alaska") || net == "ak") && time >= "2011-03-11"`.
///
/// SQL habits are accepted too: `=`, `<>`, `and`, `or`, `not` and single-quoted strings
/// (`net = 'us' and mag > 4`).
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

    private enum Token: Equatable {
        case ident(String), number(String), string(String), op(String), lparen, rparen, dot, end
    }

    private var tokens: [(Token, Int)] = []
    private var pos = 0
    private var depth = 0
    /// Deepest nesting of parentheses and `!` accepted; deeper text is refused, not recursed into.
    package static let maxDepth = 200

    package static func parse(_ text: String) throws -> Filter {
        var p = WhereParser()
        try p.tokenize(text)
        let f = try p.parseOr()
        guard case .end = p.tokens[p.pos].0 else { throw p.error("unexpected \(p.describe(p.tokens[p.pos].0))") }
        return f
    }

    private func error(_ m: String, at: Int? = nil) -> SyntaxError {
        SyntaxError(column: at ?? tokens[min(pos, tokens.count - 1)].1, message: m)
    }

    private func describe(_ t: Token) -> String {
        switch t {
        case .ident(let s): return "'\(s)'"
        case .number(let s): return "number \(s)"
        case .string(let s): return "string \"\(s)\""
        case .op(let s): return "'\(s)'"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .dot: return "'.'"
        case .end: return "end of input"
        }
    }

    private mutating func tokenize(_ text: String) throws {
        let c = Array(text)
        var i = 0
        while i < c.count {
            let ch = c[i]
            let col = i + 1
            if ch.isWhitespace { i += 1; continue }
            if ch.isLetter || ch == "_" {
                var s = ""
                while i < c.count && (c[i].isLetter || c[i].isNumber || c[i] == "_") { s.append(c[i]); i += 1 }
                // SQL's words for the Swift operators
                switch s.lowercased() {
                case "and": tokens.append((.op("&&"), col))
                case "or": tokens.append((.op("||"), col))
                case "not": tokens.append((.op("!"), col))
                default: tokens.append((.ident(s), col))
                }
            } else if ch.isNumber || (ch == "-" && i + 1 < c.count && c[i + 1].isNumber) {
                var s = String(ch)
                i += 1
                while i < c.count && (c[i].isNumber || c[i] == "." || c[i] == "e" || c[i] == "E") { s.append(c[i]); i += 1 }
                guard Double(s) != nil else { throw SyntaxError(column: col, message: "bad number '\(s)'") }
                tokens.append((.number(s), col))
            } else if ch == "\"" || ch == "'" {
                // Swift's double quotes with backslash escapes, or SQL's single quotes with '' for '
                var s = ""
                i += 1
                while i < c.count {
                    if c[i] == ch {
                        if ch == "'" && i + 1 < c.count && c[i + 1] == "'" { s.append("'"); i += 2; continue }
                        break
                    }
                    if ch == "\"" && c[i] == "\\" && i + 1 < c.count { i += 1 }
                    s.append(c[i])
                    i += 1
                }
                guard i < c.count else { throw SyntaxError(column: col, message: "unterminated string") }
                i += 1
                tokens.append((.string(s), col))
            } else if ch == "(" { tokens.append((.lparen, col)); i += 1 }
            else if ch == ")" { tokens.append((.rparen, col)); i += 1 }
            else if ch == "." { tokens.append((.dot, col)); i += 1 }
            else {
                let two = i + 1 < c.count ? String([ch, c[i + 1]]) : ""
                if ["&&", "||", "==", "!=", "<=", ">="].contains(two) { tokens.append((.op(two), col)); i += 2 }
                else if two == "<>" { tokens.append((.op("!="), col)); i += 2 }
                else if ch == "=" { tokens.append((.op("=="), col)); i += 1 }
                else if ["<", ">", "!"].contains(String(ch)) { tokens.append((.op(String(ch)), col)); i += 1 }
                else { throw SyntaxError(column: col, message: "unexpected character '\(ch)'") }
            }
        }
        tokens.append((.end, c.count + 1))
    }

    private var current: Token { tokens[pos].0 }

    private mutating func parseOr() throws -> Filter {
        var parts = [try parseAnd()]
        while current == .op("||") { pos += 1; parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws -> Filter {
        var parts = [try parseUnary()]
        while current == .op("&&") { pos += 1; parts.append(try parseUnary()) }
        return parts.count == 1 ? parts[0] : .conjunction(parts)
    }

    private mutating func parseUnary() throws -> Filter {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else { throw error("nested more than \(WhereParser.maxDepth) levels deep") }
        if current == .op("!") { pos += 1; return .not(try parseUnary()) }
        if current == .lparen {
            pos += 1
            let f = try parseOr()
            guard current == .rparen else { throw error("expected ')', found \(describe(current))") }
            pos += 1
            return f
        }
        return try parseComparison()
    }

    private mutating func field() throws -> Column {
        guard case .ident(let name) = current else { throw error("expected a field name, found \(describe(current))") }
        let alias = ["magnitude": "mag", "latitude": "latitude", "longitude": "longitude"][name] ?? name
        guard let c = Column(name: alias) else { throw error("unknown field '\(name)'") }
        pos += 1
        return c
    }

    private mutating func parseComparison() throws -> Filter {
        if case .ident(let v) = current, v == "true" { pos += 1; return .all }
        if case .ident(let v) = current, v == "false" { pos += 1; return .none }
        let fieldCol = tokens[pos].1
        let c = try field()
        if current == .dot {
            pos += 1
            guard case .ident(let method) = current else { throw error("expected a method name after '.'") }
            let methodCol = tokens[pos].1
            pos += 1
            guard current == .lparen else { throw error("expected '(' after \(method)") }
            pos += 1
            guard case .string(let s) = current else { throw error("\(method) takes a string in quotes") }
            pos += 1
            guard current == .rparen else { throw error("expected ')'") }
            pos += 1
            guard c.kind == .place || c.kind == .category || c.kind == .text else {
                throw error("\(c) is not a text field", at: fieldCol)
            }
            switch method {
            case "contains": return .contains(c, s, insensitive: false)
            case "localizedStandardContains", "localizedCaseInsensitiveContains": return .contains(c, s, insensitive: true)
            default: throw error("unknown method '\(method)' (use contains or localizedStandardContains)", at: methodCol)
            }
        }
        guard case .op(let op) = current, ["==", "!=", "<", "<=", ">", ">="].contains(op) else {
            throw error("expected a comparison after '\(c)', found \(describe(current))")
        }
        pos += 1
        let litCol = tokens[pos].1
        let lit = current
        pos += 1
        return try WhereParser.comparison(c, op, lit, column: litCol)
    }

    private static func comparison(_ c: Column, _ op: String, _ lit: Token, column: Int) throws -> Filter {
        if case .ident("nil") = lit {
            switch op {
            case "==": return .isNull(c)
            case "!=": return .not(.isNull(c))
            default: throw SyntaxError(column: column, message: "nil only compares with == or !=")
            }
        }
        switch c.kind {
        case .timestamp:
            let t: Int64
            switch lit {
            case .string(let s):
                guard let v = DateParsing.parse(s) else { throw SyntaxError(column: column, message: "not a date: \"\(s)\"") }
                t = v
            case .number(let s):
                // epoch milliseconds; beyond year ±9999 nothing can match, and the bound must not overflow
                guard let v = Double(s), v.isFinite, abs(v) <= 253_402_300_800_000 else {
                    throw SyntaxError(column: column, message: "\(c): \(s) is not a time in epoch milliseconds within years 0-9999")
                }
                t = Int64(v.rounded(.down))
            default: throw SyntaxError(column: column, message: "\(c) compares with a date in quotes")
            }
            switch op {
            case "==": return .timeRange(c, lower: t, upper: t + 1)
            case "!=": return .not(.timeRange(c, lower: t, upper: t + 1))
            case "<": return .timeRange(c, lower: nil, upper: t)
            case "<=": return .timeRange(c, lower: nil, upper: t + 1)
            case ">": return .timeRange(c, lower: t + 1, upper: nil)
            default: return .timeRange(c, lower: t, upper: nil)
            }
        case .decimal:
            guard case .number(let s) = lit, let v = Double(s) else { throw SyntaxError(column: column, message: "\(c) compares with a number") }
            guard v.isFinite else { throw SyntaxError(column: column, message: "\(s) is out of range") }
            switch op {
            case "==": return .numberRange(c, lower: .init(v), upper: .init(v))
            case "!=": return .not(.numberRange(c, lower: .init(v), upper: .init(v)))
            case "<": return .numberRange(c, lower: nil, upper: .init(v, inclusive: false))
            case "<=": return .numberRange(c, lower: nil, upper: .init(v))
            case ">": return .numberRange(c, lower: .init(v, inclusive: false), upper: nil)
            default: return .numberRange(c, lower: .init(v), upper: nil)
            }
        default:
            guard case .string(let s) = lit else { throw SyntaxError(column: column, message: "\(c) compares with a string in quotes") }
            switch op {
            case "==": return .oneOf(c, [s])
            case "!=": return .not(.oneOf(c, [s]))
            default: throw SyntaxError(column: column, message: "\(c) supports == and != (or .contains)")
            }
        }
    }
}

/// Dates as the CLI takes them: `YYYY-MM-DD` or a full ISO-8601 UTC date-time.
package enum DateParsing {
    package static func parse(_ s: String) -> Int64? {
        if let t = Timestamp.parse(s) { return t }
        return nil
    }

    /// `7d`, `12h`, `2w`, `30m` as milliseconds.
    package static func duration(_ s: String) -> Int64? {
        guard let unit = s.last, let n = Double(s.dropLast()), n >= 0, n.isFinite else { return nil }
        let ms: Double
        switch unit {
        case "m": ms = 60_000
        case "h": ms = 3_600_000
        case "d": ms = 86_400_000
        case "w": ms = 7 * 86_400_000
        default: return nil
        }
        // longer than about 10,000 years reaches before any stored time: the same answer
        return Int64(saturating: Swift.min(n * ms, 3.2e14))
    }
}
