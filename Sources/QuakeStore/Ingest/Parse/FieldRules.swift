import Foundation
import QuakeFormat

/// How a feed reader turns field text into values beyond the USGS forms, and what it met: a
/// `--time-format` for times that are not ISO 8601, the repair of double-encoded UTF-8, and
/// Unicode normalization (NFC) of text. One per reader (or split-parse piece); the counts are
/// summed per file.
package struct FieldRules: Sendable {
    /// Times that are not ISO 8601 are read with this pattern first.
    package var timeFormat: TimeFormat?
    /// Repair double-encoded UTF-8 (see ``Mojibake``) instead of only counting it.
    package var fixText = false
    /// Fields seen double-encoded (repaired or not), and the first one, for the message.
    package var garbled = 0
    package var repaired = 0
    package var firstGarbled: String?
    /// How the caller names the load options, for the words of rejects and warnings.
    package var names = LoadOptions.OptionNames()

    package init(timeFormat: TimeFormat? = nil, fixText: Bool = false, names: LoadOptions.OptionNames = .init()) {
        self.timeFormat = timeFormat
        self.fixText = fixText
        self.names = names
    }

    /// Adds another reader's counts (a piece of the same file).
    package mutating func add(_ other: FieldRules) {
        garbled += other.garbled
        repaired += other.repaired
        if firstGarbled == nil { firstGarbled = other.firstGarbled }
    }

    /// Forgets what was met since the counts were `garbled` and `repaired` (a row read again).
    package mutating func rollBack(garbled g: Int, repaired r: Int) {
        if garbled != g && g == 0 { firstGarbled = nil }
        garbled = g
        repaired = r
    }

    /// The text to store instead of `p` (repaired, or in NFC), or nil to store `p` as it is.
    /// - Complexity: O(n); ASCII text and text without a double-encoding mark or a combining
    ///   character return nil after one scan.
    package mutating func normalized(_ p: UnsafeRawBufferPointer) -> [UInt8]? {
        var high = false
        var combining = false
        // eight bytes a step while they are all ASCII: most text is
        var at = 0
        while at + 8 <= p.count {
            // SAFETY: bytes at..<at+8 lie inside `p`.
            if p.loadUnaligned(fromByteOffset: at, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            at += 8
        }
        // SAFETY: at <= p.count after the loop above, so p[at...] is a valid (maybe empty) slice of `p`.
        for byte in UnsafeRawBufferPointer(rebasing: p[at...]) where byte >= 0xC3 {
            high = true
            if byte >= 0xCC {
                combining = true
                break
            }
        }
        guard high else { return nil }
        var bytes: [UInt8]?
        // SAFETY: `p` is borrowed for this call; Mojibake and String(decoding:) read below p.count and copy.
        if Mojibake.isGarbled(p) {
            garbled += 1
            if firstGarbled == nil { firstGarbled = String(decoding: p, as: UTF8.self) }
            if fixText, let fixed = Mojibake.repaired(p) {
                repaired += 1
                bytes = fixed
                combining = fixed.contains { $0 >= 0xCC }
            }
        }
        guard combining else { return bytes }
        let text = bytes.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: p, as: UTF8.self)
        let nfc = Array(CanonicalText.nfc(text).utf8)
        return nfc.elementsEqual(bytes ?? Array(p)) ? bytes : nfc
    }
}
