/// UTF-8 checks on raw bytes, without building a `String`.
package enum UTF8Validation {
    /// True when `p` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF), with
    /// an ASCII fast path.
    @inlinable
    package static func isValid(_ p: UnsafeRawBufferPointer) -> Bool {
        var ascii = true
        for b in p where b >= 0x80 {
            ascii = false
            break
        }
        if ascii { return true }
        var position = 0
        let count = p.count
        // SAFETY: p[position] is read while position < count = p.count; p[position + k] has k < len and position + len
        // <= count (the guard below).
        while position < count {
            let byte = p[position]
            if byte < 0x80 {
                position += 1
                continue
            }
            let len: Int
            var cp: UInt32
            if byte & 0xE0 == 0xC0 {
                len = 2
                cp = UInt32(byte & 0x1F)
            }
            else if byte & 0xF0 == 0xE0 {
                len = 3
                cp = UInt32(byte & 0x0F)
            }
            else if byte & 0xF8 == 0xF0 {
                len = 4
                cp = UInt32(byte & 0x07)
            }
            else { return false }
            guard position + len <= count else { return false }
            for k in 1..<len {
                let continuation = p[position + k]
                guard continuation & 0xC0 == 0x80 else { return false }
                cp = cp << 6 | UInt32(continuation & 0x3F)
            }
            let minimum: UInt32 = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000
            guard cp >= minimum, cp <= 0x10FFFF, !(0xD800...0xDFFF).contains(cp) else { return false }
            position += len
        }
        return true
    }

    /// As ``isValid(_:)-(UnsafeRawBufferPointer)``, for an array.
    // SAFETY: the pointer is used only inside the closure, which reads the array's count bytes.
    package static func isValid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { isValid($0) } }

    /// The scalar at `i` of valid UTF-8 and its length in bytes.
    package static func decode(_ p: UnsafeRawBufferPointer, at i: Int) -> (UInt32, Int) {
        // SAFETY: callers pass valid UTF-8 (isValid) and a scalar start i, so the scalar's bytes lie in `p`.
        assert(i < p.count && i + (p[i] < 0x80 ? 1 : p[i] < 0xE0 ? 2 : p[i] < 0xF0 ? 3 : 4) <= p.count,
               "scalar at \(i) runs past the end of the text")
        let b0 = UInt32(p[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F), 3) }
        return ((b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6
                | UInt32(p[i + 3] & 0x3F), 4)
    }
}
