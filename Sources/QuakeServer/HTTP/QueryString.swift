/// The parameters of a URL query string, decoded as browsers and Python's `urlencode` write
/// them: `&`-separated `name=value` pairs, `+` for a space, `%XX` escapes, UTF-8 text.
package enum QueryString {
    /// The pairs in order, or nil when an escape is malformed or the text is not UTF-8.
    package static func parse(_ query: String?) -> [(name: String, value: String)]? {
        guard let query, !query.isEmpty else { return [] }
        var out: [(name: String, value: String)] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let eq = part.firstIndex(of: UInt8(ascii: "="))
            let rawName = eq.map { part[part.startIndex..<$0] } ?? part[...]
            let rawValue = eq.map { part[part.index(after: $0)...] } ?? part[part.endIndex...]
            guard let name = decode(rawName), let value = decode(rawValue) else { return nil }
            out.append((name, value))
        }
        return out
    }

    private static func decode(_ s: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.count)
        var index = s.startIndex
        while index != s.endIndex {
            let byte = s[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(32)
            } else if byte == UInt8(ascii: "%") {
                let high = s.index(after: index)
                guard high != s.endIndex, s.index(after: high) != s.endIndex,
                      let hi = hex(s[high]), let lo = hex(s[s.index(after: high)]) else { return nil }
                bytes.append(hi << 4 | lo)
                index = s.index(after: s.index(after: high))
                continue
            } else {
                bytes.append(byte)
            }
            index = s.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
