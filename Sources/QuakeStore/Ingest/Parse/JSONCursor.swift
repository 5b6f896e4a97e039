import QuakeFormat
/// A minimal JSON tokenizer over a byte slice, for reading GeoJSON features without building
/// a document tree. A string without escapes is read in place (``scanString()``), eight bytes a
/// step; one with escapes is unescaped into a caller's scratch buffer. Numbers stay raw text.
package struct JSONCursor {
    package let p: UnsafeRawBufferPointer
    package var i: Int
    package let end: Int
    /// The file offset of `p[0]`, for messages.
    package let base: Int

    package struct Malformed: Error { let reason: String }

    package init(_ p: UnsafeRawBufferPointer, from: Int, to: Int, base: Int = 0) {
        assert(to <= p.count, "cursor end \(to) past the buffer's \(p.count) bytes")
        self.p = p
        self.i = from
        self.end = to
        self.base = base
    }

    /// Where the cursor is, as a file offset.
    package var offset: Int { base + i }

    /// JSON's whitespace: space, tab, CR, LF.
    @inline(__always)
    package static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    @inline(__always)
    package mutating func skipSpace() {
        while i < end {
            // SAFETY: the loop reads p[i] only while i < end <= p.count (every cursor is made with
            // to <= p.count).
            let byte = p[i]
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { i += 1 } else { break }
        }
    }

    @inline(__always)
    package mutating func peek() -> UInt8? {
        skipSpace()
        // SAFETY: p[i] is read only when i < end <= p.count.
        return i < end ? p[i] : nil
    }

    @inline(__always)
    package mutating func expect(_ b: UInt8) throws(Malformed) {
        guard peek() == b else {
            throw Malformed(reason: "expected '\(Character(Unicode.Scalar(b)))' at offset \(offset)")
        }
        i += 1
    }

    /// After a member or element: true when another follows (`,`), false at the closer.
    @inline(__always)
    package mutating func more(closer: UInt8) throws(Malformed) -> Bool {
        guard let byte = peek() else { throw Malformed(reason: "unexpected end of input") }
        i += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == closer { return false }
        throw Malformed(reason: "expected ',' or '\(Character(Unicode.Scalar(closer)))' at offset \(offset - 1)")
    }

    /// A string's bytes between its quotes, as offsets into `p`, whether it holds an escape, and
    /// whether its bytes are all ASCII.
    package struct StringSpan {
        package var start: Int
        package var end: Int
        package var escaped: Bool
        package var ascii: Bool
    }

    /// Finds the end of the string at the cursor (which must be at its opening quote) and moves
    /// past it, eight bytes a step: the bytes are not copied.
    /// - Complexity: O(length of the string).
    @inline(__always)
    package mutating func scanString() throws(Malformed) -> StringSpan {
        try expect(UInt8(ascii: "\""))
        let start = i
        var escaped = false
        var high: UInt64 = 0
        while true {
            // SAFETY: i + 8 <= end <= p.count, so the eight bytes loaded lie inside `p`.
            while i + 8 <= end {
                let word = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let matches = JSONCursor.quoteOrBackslash(word)
                if matches == 0 {
                    high |= word
                    i += 8
                    continue
                }
                let before = matches.trailingZeroBitCount >> 3
                high |= before == 0 ? 0 : word & (~0 >> (64 - 8 * UInt64(before)))
                i += before
                break
            }
            // SAFETY: p[i] is read only after i < end <= p.count (the loop condition and the guard).
            while i < end && p[i] != UInt8(ascii: "\"") && p[i] != UInt8(ascii: "\\") {
                high |= UInt64(p[i])
                i += 1
            }
            guard i < end else { throw Malformed(reason: "unterminated string") }
            if p[i] == UInt8(ascii: "\"") {
                i += 1
                return StringSpan(start: start, end: i - 1, escaped: escaped,
                                  ascii: high & 0x8080_8080_8080_8080 == 0)
            }
            escaped = true
            i += 2
            guard i <= end else { throw Malformed(reason: "unterminated string") }
        }
    }

    /// High bit set in each byte of `w` that is a quote or a backslash; the lowest one is exact.
    @inline(__always)
    static func quoteOrBackslash(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        return ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
    }

    /// The bytes of `s` (a span with no escape).
    @inline(__always)
    package func bytes(_ s: StringSpan) -> UnsafeRawBufferPointer {
        // SAFETY: scanString returned start..<end with end <= this cursor's end <= p.count.
        UnsafeRawBufferPointer(rebasing: p[s.start..<s.end])
    }

    /// Reads a string into `out` (unescaped); the cursor must be at the opening quote.
    package mutating func string(into out: inout [UInt8]) throws(Malformed) {
        let span = try scanString()
        try unescape(span, into: &out)
    }

    /// The text of `s`, unescaped, into `out`.
    package func unescape(_ s: StringSpan, into out: inout [UInt8]) throws(Malformed) {
        out.removeAll(keepingCapacity: true)
        guard s.escaped else {
            out.append(contentsOf: bytes(s))
            return
        }
        var cursor = self
        cursor.i = s.start
        try cursor.unescapeRest(to: s.end, into: &out)
    }

    private mutating func unescapeRest(to stop: Int, into out: inout [UInt8]) throws(Malformed) {
        // SAFETY: p[i] needs i < stop and p[i + 1] needs i + 1 < stop, with stop <= end <= p.count.
        while i < stop {
            let byte = p[i]
            if byte == UInt8(ascii: "\\") {
                guard i + 1 < stop else { break }
                let escape = p[i + 1]
                i += 2
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    var cp = try hex4(stop)
                    // SAFETY: i + 1 < stop is checked before p[i] and p[i + 1] are read.
                    if (0xD800..<0xDC00).contains(cp), i + 1 < stop, p[i] == UInt8(ascii: "\\"),
                       p[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let lo = try hex4(stop)
                        guard (0xDC00..<0xE000).contains(lo) else {
                            throw Malformed(reason: "invalid surrogate pair")
                        }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(cp) else { throw Malformed(reason: "invalid \\u escape") }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default: throw Malformed(reason: "invalid escape \\\(Character(Unicode.Scalar(escape)))")
                }
                continue
            }
            out.append(byte)
            i += 1
        }
        guard i == stop else { throw Malformed(reason: "unterminated string") }
    }

    private mutating func hex4(_ stop: Int) throws(Malformed) -> UInt32 {
        // SAFETY: i + 4 <= stop <= p.count is checked before the four reads.
        guard i + 4 <= stop else { throw Malformed(reason: "truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = p[i]
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw Malformed(reason: "invalid \\u escape")
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }

    /// Reads a number's raw text; the cursor must be at its first byte.
    @inline(__always)
    package mutating func number() -> UnsafeRawBufferPointer {
        skipSpace()
        let start = i
        // SAFETY: p[i] is read only while i < end <= p.count.
        while i < end {
            let byte = p[i]
            if (byte >= 48 && byte <= 57) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                i += 1
            } else {
                break
            }
        }
        return UnsafeRawBufferPointer(rebasing: p[start..<i])
    }

    /// Consumes `null`, `true` or `false` when next; returns which.
    @inline(__always)
    package mutating func literal() throws(Malformed) -> UInt8? {
        guard let first = peek() else { throw Malformed(reason: "unexpected end of input") }
        let word: StaticString
        switch first {
        case UInt8(ascii: "n"): word = "null"
        case UInt8(ascii: "t"): word = "true"
        case UInt8(ascii: "f"): word = "false"
        default: return nil
        }
        let length = word.utf8CodeUnitCount
        guard i + length <= end else { throw Malformed(reason: "unexpected end of input") }
        // SAFETY: i + length <= end is checked first, and k < length = the literal's byte count for utf8Start[k].
        for k in 0..<length where p[i + k] != word.utf8Start[k] {
            throw Malformed(reason: "invalid literal at offset \(offset)")
        }
        i += length
        return first
    }

    /// Skips any value.
    package mutating func skipValue() throws(Malformed) {
        skipSpace()
        guard let valueEnd = JSONCursor.valueEnd(p, from: i, to: end) else {
            throw Malformed(reason: "unexpected end of input")
        }
        i = valueEnd
    }

    /// The end of the value starting at `from` (after leading space), or nil when the slice ends
    /// first.
    package static func valueEnd(_ p: UnsafeRawBufferPointer, from: Int, to end: Int) -> Int? {
        var at = from
        var depth = 0
        // SAFETY: p[at] is read only while at < end <= p.count; scanString cursors share that end.
        while at < end {
            let byte = p[at]
            switch byte {
            case UInt8(ascii: "\""):
                var cursor = JSONCursor(p, from: at, to: end)
                guard (try? cursor.scanString()) != nil else { return nil }
                at = cursor.i
                if depth == 0 { return at }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                at += 1
                if depth <= 0 { return at }
            default:
                if depth == 0 {
                    if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                        at += 1
                        continue
                    }
                    // a scalar: runs to the next delimiter
                    while at < end {
                        let next = p[at]
                        if next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]")
                            || next == 0x20 || next == 0x0A || next == 0x0D {
                            return at
                        }
                        at += 1
                    }
                    return nil
                }
                at += 1
            }
        }
        return nil
    }
}
