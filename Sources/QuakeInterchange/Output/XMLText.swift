/// Text escaped for XML and HTML, appended straight to an output buffer (no String per value).
package enum XMLText {
    /// Appends `s` as XML character data or an attribute value: the five special characters
    /// escaped, and the control characters XML 1.0 cannot hold replaced by spaces.
    @inline(__always)
    package static func escaped(_ s: some Sequence<UInt8>, into out: inout [UInt8]) {
        escape(s, apostrophe: true, into: &out)
    }

    /// Appends `s` as HTML text inside a CDATA section: `&`, `<`, `>` and `"` as HTML entities
    /// (so `]]>` can never end the section early), and control characters as spaces.
    @inline(__always)
    package static func htmlInCDATA(_ s: some Sequence<UInt8>, into out: inout [UInt8]) {
        escape(s, apostrophe: false, into: &out)
    }

    @inline(__always)
    private static func escape(_ s: some Sequence<UInt8>, apostrophe: Bool, into out: inout [UInt8]) {
        for u in s {
            switch u {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'") where apostrophe: out.append(contentsOf: "&apos;".utf8)
            case 9, 10, 13: out.append(u)
            case 0..<32: out.append(32)
            default: out.append(u)
            }
        }
    }
}
