/// Double-encoded UTF-8 ("mojibake"): UTF-8 text that was read as Latin-1 or Windows-1252 and
/// written out as UTF-8 again, so `Serdán` became `SerdÃ¡n`. Such text is recognised by reading
/// its code points back as single bytes: the result is valid, shorter UTF-8.
///
/// Windows-1252 leaves five bytes undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D); a converter writes
/// them as C1 controls (kept here as the byte) or as U+FFFD, which loses the byte: such text is
/// recognised, but only ``garbles(_:of:)`` can tell what it was, against a clean version.
package enum Mojibake {
    /// What one code point of garbled text stands for.
    private enum Unit: Equatable {
        case byte(UInt8)
        /// U+FFFD: one of the bytes Windows-1252 leaves undefined.
        case lost
    }

    /// The original text of a double-encoded field, or nil when `text` is not double-encoded
    /// (or when a byte was lost to U+FFFD and cannot be told).
    /// - Complexity: O(n); fields without the byte 0xC3 return at once.
    package static func repaired(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let units = units(text), !units.contains(.lost) else { return nil }
        let bytes = units.map { if case .byte(let byte) = $0 { return byte } else { return 0 } }
        return UTF8Validation.isValid(bytes) ? bytes : nil
    }

    /// True when `text` is double-encoded UTF-8, repairable or not.
    package static func isGarbled(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let units = units(text) else { return false }
        if !units.contains(.lost) {
            return UTF8Validation.isValid(units.map { if case .byte(let byte) = $0 { return byte } else { return 0 } })
        }
        // with lost bytes: garbled when some choice of the undefined bytes makes valid UTF-8
        return undefinedBytes.contains { b in
            UTF8Validation.isValid(units.map { if case .byte(let byte) = $0 { return byte } else { return b } })
        }
    }

    /// True when `new` is `old` double-encoded (a lost byte matches any undefined byte).
    /// - Complexity: O(n).
    package static func garbles(_ new: UnsafeRawBufferPointer, of old: UnsafeRawBufferPointer) -> Bool {
        guard new.count > old.count, let units = units(new), units.count == old.count else { return false }
        // SAFETY: zip stops at old.count, so iterating reads only bytes of `old`, borrowed for this call.
        for (u, b) in zip(units, old) {
            switch u {
            case .byte(let byte): if byte != b { return false }
            case .lost: if !undefinedBytes.contains(b) { return false }
            }
        }
        return true
    }

    private static let undefinedBytes: [UInt8] = [0x81, 0x8D, 0x8F, 0x90, 0x9D]

    /// The bytes the code points of `text` stand for, or nil when `text` cannot be mojibake: no
    /// non-ASCII character, or one that neither Latin-1 nor Windows-1252 has.
    private static func units(_ text: UnsafeRawBufferPointer) -> [Unit]? {
        // every double-encoded lead byte (0xC2...0xF4) is written as C3 82...C3 B4
        guard text.contains(0xC3), UTF8Validation.isValid(text) else { return nil }
        var out: [Unit] = []
        out.reserveCapacity(text.count)
        var position = 0
        // SAFETY: `text` passed isValid above and position moves scalar by scalar, so decode reads inside `text`.
        while position < text.count {
            let (scalar, length) = UTF8Validation.decode(text, at: position)
            position += length
            if scalar < 0x100 {
                out.append(.byte(UInt8(scalar)))
            } else if scalar == 0xFFFD {
                out.append(.lost)
            } else if let encoded = windows1252[scalar] {
                out.append(.byte(encoded))
            } else {
                return nil
            }
        }
        return out
    }

    /// Windows-1252's characters at 0x80...0x9F, by code point.
    private static let windows1252: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
        0x02C6: 0x88, 0x2030: 0x89, 0x0160: 0x8A, 0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91,
        0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02DC: 0x98,
        0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B, 0x0153: 0x9C, 0x017E: 0x9E, 0x0178: 0x9F,
    ]
}
