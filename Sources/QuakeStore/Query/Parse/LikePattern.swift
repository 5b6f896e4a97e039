import QuakeFormat

/// SQL's `LIKE` and `ILIKE` patterns for `--where`: `%` matches any run of characters, `_` one
/// character, and `\` escapes either. `LIKE` compares bytes of the NFC text; `ILIKE` ignores case
/// and diacritics, as the place search does.
package struct LikePattern: Sendable {
    private enum Piece: Equatable { case literal([UInt8]), one, any }

    package let pattern: String
    package let insensitive: Bool
    private let pieces: [Piece]

    package init(_ pattern: String, insensitive: Bool) {
        self.pattern = pattern
        self.insensitive = insensitive
        var pieces: [Piece] = []
        var literal = ""
        var escaped = false
        func flush() {
            guard !literal.isEmpty else { return }
            let text = CanonicalText.nfc(literal)
            pieces.append(.literal(insensitive ? ByteSearch.fold(text) : Array(text.utf8)))
            literal = ""
        }
        for ch in pattern {
            if escaped {
                literal.append(ch)
                escaped = false
                continue
            }
            switch ch {
            case "\\":
                escaped = true
            case "%":
                flush()
                if pieces.last != .any { pieces.append(.any) }
            case "_":
                flush()
                pieces.append(.one)
            default:
                literal.append(ch)
            }
        }
        if escaped { literal.append("\\") }
        flush()
        self.pieces = pieces
    }

    /// The pattern as a plain filter when it is one: `%text%` is a substring search and a
    /// pattern without wildcards an equality; nil when it needs ``matches(_:)``.
    package func simpleFilter(_ c: Column, original: String) -> Filter? {
        let wildcards = pieces.filter { $0 != .any && $0 != .one }.count
        if pieces.count == 3, pieces[0] == .any, pieces[2] == .any, wildcards == 1 {
            return .contains(c, CanonicalText.nfc(literalText(original)), insensitive: insensitive)
        }
        if pieces.count == 1, case .literal = pieces[0], !insensitive {
            return .oneOf(c, [CanonicalText.nfc(literalText(original))])
        }
        if pieces == [.any] { return .not(.isNull(c)) }
        return nil
    }

    /// The longest literal piece, as written: a substring every match contains.
    package var longestLiteral: String? {
        var best: String?
        var current = ""
        var escaped = false
        for ch in pattern {
            if escaped {
                current.append(ch)
                escaped = false
                continue
            }
            if ch == "\\" {
                escaped = true
                continue
            }
            if ch == "%" || ch == "_" {
                if current.count > (best?.count ?? 0) { best = current }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if current.count > (best?.count ?? 0) { best = current }
        return best
    }

    private func literalText(_ s: String) -> String {
        var out = ""
        var escaped = false
        for ch in s {
            if escaped {
                out.append(ch)
                escaped = false
                continue
            }
            if ch == "\\" {
                escaped = true
                continue
            }
            if ch != "%" { out.append(ch) }
        }
        return out
    }

    /// True when all of `text` matches the pattern.
    /// - Complexity: O(n·m) in the worst case, n the text's bytes and m the pattern's pieces.
    package func matches(_ text: String) -> Bool {
        let bytes = insensitive ? ByteSearch.fold(CanonicalText.nfc(text)) : Array(CanonicalText.nfc(text).utf8)
        // SAFETY: `$0` is used only during match, which never keeps it.
        return bytes.withUnsafeBufferPointer { match(0, $0, 0) }
    }

    private func match(_ firstPiece: Int, _ t: UnsafeBufferPointer<UInt8>, _ start: Int) -> Bool {
        var piece = firstPiece
        var at = start
        // SAFETY: t[...] reads follow at + bytes.count <= t.count or at < t.count; recursion passes
        // from <= t.count, and a piece reads nothing at at == t.count.
        while piece < pieces.count {
            switch pieces[piece] {
            case .literal(let bytes):
                guard at + bytes.count <= t.count, t[at..<(at + bytes.count)].elementsEqual(bytes) else { return false }
                at += bytes.count
            case .one:
                guard at < t.count else { return false }
                at += 1
                while at < t.count && t[at] & 0xC0 == 0x80 { at += 1 }   // the rest of one UTF-8 character
            case .any:
                if piece == pieces.count - 1 { return true }
                var from = at
                while from <= t.count {
                    if match(piece + 1, t, from) { return true }
                    from += 1
                }
                return false
            }
            piece += 1
        }
        return at == t.count
    }
}
