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
        var p = WhereParser()
        try p.tokenize(text)
        let f = try p.parseOr()
        guard case .end = p.tokens[p.pos].0 else { throw p.error("unexpected \(p.describe(p.tokens[p.pos].0))") }
        return f
    }

    func error(_ m: String, at: Int? = nil) -> SyntaxError {
        SyntaxError(column: at ?? tokens[min(pos, tokens.count - 1)].1, message: m)
    }

    func describe(_ t: Token) -> String {
        switch t {
        case .ident(let s): return "'\(s)'"
        case .number(let s): return "number \(s)"
        case .string(let s): return "string \"\(s)\""
        case .op(let s): return "'\(s)'"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .dot: return "'.'"
        case .comma: return "','"
        case .end: return "end of input"
        }
    }

    private mutating func tokenize(_ text: String) throws {
        let c = Array(text)
        var i = 0
        // after a value, `-` is subtraction (`mag -1` is `mag - 1`), elsewhere a number's sign
        var endsOperand: Bool {
            switch tokens.last?.0 {
            case .ident?, .number?, .string?, .rparen?: return true
            default: return false
            }
        }
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
            } else if ch.isNumber || (ch == "-" && i + 1 < c.count && c[i + 1].isNumber && !endsOperand) {
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
            else if ch == "," { tokens.append((.comma, col)); i += 1 }
            else {
                let two = i + 1 < c.count ? String([ch, c[i + 1]]) : ""
                if ["&&", "||", "==", "!=", "<=", ">="].contains(two) { tokens.append((.op(two), col)); i += 2 }
                else if two == "<>" { tokens.append((.op("!="), col)); i += 2 }
                else if ch == "=" { tokens.append((.op("=="), col)); i += 1 }
                else if ["<", ">", "!", "+", "-", "*", "/"].contains(String(ch)) {
                    tokens.append((.op(String(ch)), col))
                    i += 1
                }
                else { throw SyntaxError(column: col, message: "unexpected character '\(ch)'") }
            }
        }
        tokens.append((.end, c.count + 1))
    }

    var current: Token { tokens[pos].0 }

    // `negated` carries a NOT down to the comparisons (De Morgan), where SQL's three-valued
    // logic decides what the negation of each means (see ``negate(_:)``).

    private mutating func parseOr(negated: Bool = false) throws -> Filter {
        var parts = [try parseAnd(negated: negated)]
        while current == .op("||") { pos += 1; parts.append(try parseAnd(negated: negated)) }
        return parts.count == 1 ? parts[0] : negated ? .conjunction(parts) : .or(parts)
    }

    private mutating func parseAnd(negated: Bool) throws -> Filter {
        var parts = [try parseUnary(negated: negated)]
        while current == .op("&&") { pos += 1; parts.append(try parseUnary(negated: negated)) }
        return parts.count == 1 ? parts[0] : negated ? .or(parts) : .conjunction(parts)
    }

    private mutating func parseUnary(negated: Bool) throws -> Filter {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WhereParser.maxDepth else { throw error("nested more than \(WhereParser.maxDepth) levels deep") }
        if current == .op("!") { pos += 1; return try parseUnary(negated: !negated) }
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
        let f = try parseComparison()
        return negated ? WhereParser.negate(f) : f
    }

    mutating func field() throws -> Column {
        guard case .ident(let name) = current else { throw error("expected a field name, found \(describe(current))") }
        let alias = ["magnitude": "mag", "latitude": "latitude", "longitude": "longitude"][name] ?? name
        guard let c = Column(name: alias) else { throw error("unknown field '\(name)'") }
        pos += 1
        return c
    }

    private mutating func parseComparison() throws -> Filter {
        if case .ident(let v) = current, v == "true" { pos += 1; return .all }
        if case .ident(let v) = current, v == "false" { pos += 1; return .none }
        guard case .ident = current, hasFieldTail(at: pos + 1) else { return try parseValueComparison() }
        let fieldCol = tokens[pos].1
        let c = try field()
        if let f = try parseSQLTail(c, fieldColumn: fieldCol) { return f }
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
            case "contains": return .contains(c, CanonicalText.nfc(s), insensitive: false)
            case "localizedStandardContains", "localizedCaseInsensitiveContains": return .contains(c, CanonicalText.nfc(s), insensitive: true)
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
            case "!=": return negate(.timeRange(c, lower: t, upper: t + 1))
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
            case "!=": return negate(.numberRange(c, lower: .init(v), upper: .init(v)))
            case "<": return .numberRange(c, lower: nil, upper: .init(v, inclusive: false))
            case "<=": return .numberRange(c, lower: nil, upper: .init(v))
            case ">": return .numberRange(c, lower: .init(v, inclusive: false), upper: nil)
            default: return .numberRange(c, lower: .init(v), upper: nil)
            }
        default:
            guard case .string(let s) = lit else { throw SyntaxError(column: column, message: "\(c) compares with a string in quotes") }
            switch op {
            case "==": return .oneOf(c, [CanonicalText.nfc(s)])
            case "!=": return negate(.oneOf(c, [CanonicalText.nfc(s)]))
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
            if case .ident(let w) = tokens[min(at, tokens.count - 1)].0 { return w.lowercased() }
            return nil
        }
        let sqlWords: Set = ["like", "ilike", "between", "in", "is"]
        var negated = false
        if current == .op("!"), let w = word(pos + 1), sqlWords.contains(w), w != "is" {
            negated = true
            pos += 1
        }
        guard let w = word(pos), sqlWords.contains(w) else { return nil }
        let wordColumn = tokens[pos].1
        pos += 1
        let f: Filter
        switch w {
        case "is":
            var not = false
            if current == .op("!") { not = true; pos += 1 }
            guard word(pos) == "null" else { throw error("expected NULL after IS\(not ? " NOT" : "")") }
            pos += 1
            return not ? .not(.isNull(c)) : .isNull(c)
        case "like", "ilike":
            guard case .string(let p) = current else { throw error("\(w.uppercased()) takes a pattern in quotes") }
            pos += 1
            guard c.kind == .place || c.kind == .category || c.kind == .text else {
                throw error("\(c) is not a text field", at: fieldColumn)
            }
            f = WhereParser.like(c, LikePattern(p, insensitive: w == "ilike"))
        case "between":
            let loColumn = tokens[pos].1
            let lo = current
            pos += 1
            guard current == .op("&&") else { throw error("expected AND in BETWEEN ... AND ...") }
            pos += 1
            let hiColumn = tokens[pos].1
            let hi = current
            pos += 1
            f = .conjunction([try WhereParser.comparison(c, ">=", lo, column: loColumn),
                              try WhereParser.comparison(c, "<=", hi, column: hiColumn)])
        default:   // in
            guard current == .lparen else { throw error("expected '(' after IN", at: wordColumn) }
            pos += 1
            var parts: [Filter] = []
            while true {
                let litColumn = tokens[pos].1
                let lit = current
                pos += 1
                parts.append(try WhereParser.comparison(c, "==", lit, column: litColumn))
                if current == .comma { pos += 1; continue }
                guard current == .rparen else { throw error("expected ',' or ')' in IN (...)") }
                pos += 1
                break
            }
            var strings: [String] = []
            for p in parts { if case .oneOf(_, let v) = p { strings += v } }
            f = strings.count == parts.count ? .oneOf(c, strings) : .or(parts)
        }
        return negated ? WhereParser.negate(f) : f
    }

    /// A LIKE pattern as a kernel filter when it is a substring or an equality; otherwise its
    /// longest literal as a substring search, then the pattern itself row by row.
    private static func like(_ c: Column, _ p: LikePattern) -> Filter {
        if let f = p.simpleFilter(c, original: p.pattern) { return f }
        let keyPath = Quake.columnsByKeyPath.first { $0.value == c }?.key
        let label = "\(c) \(p.insensitive ? "ILIKE" : "LIKE") '\(p.pattern)'"
        let exact = Filter.predicate(RowPredicate(label: label) { q in
            let text: String?
            if let k = keyPath as? KeyPath<Quake, String?> { text = q[keyPath: k] }
            else if let k = keyPath as? KeyPath<Quake, String> { text = q[keyPath: k] }
            else { text = nil }
            return text.map(p.matches) ?? false
        })
        guard let literal = p.longestLiteral, !literal.isEmpty else { return .conjunction([.not(.isNull(c)), exact]) }
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
        case .not(.isNull(let c)): return .isNull(c)
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
        case .and(let fs), .or(let fs): return fs.reduce(into: ColumnSet()) { $0.formUnion(tested($1)) }
        case .not(let g): return tested(g)
        default: return f.columns
        }
    }
}

/// Dates as the CLI takes them: `YYYY-MM-DD` or a full ISO-8601 UTC date-time.
package enum DateParsing {
    package static func parse(_ s: String) -> Int64? {
        if let t = Timestamp.parse(s) { return t }
        return nil
    }

    /// ``parse(_:)`` for a bound that digits past the millisecond must not widen: with
    /// `roundingUp`, `.0401` is the next millisecond, `.041` (a start of `.0401` does not take an
    /// event at `.040`; nor does an exclusive end of `.0401` leave one out).
    package static func parse(_ s: String, roundingUp: Bool) -> Int64? {
        guard let t = parse(s) else { return nil }
        guard roundingUp, let dot = s.utf8.firstIndex(of: UInt8(ascii: ".")) else { return t }
        let fraction = s.utf8[s.utf8.index(after: dot)...].prefix { $0 >= 48 && $0 <= 57 }
        return fraction.dropFirst(3).contains { $0 != 48 } ? t + 1 : t
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
