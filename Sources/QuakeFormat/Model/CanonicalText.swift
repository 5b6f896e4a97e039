import Foundation

/// Unicode canonical equivalence for stored and searched text: both are kept in the composed
/// form (NFC), so `Pāhala` typed as `a` + U+0304 finds what a feed wrote as U+0101.
package enum CanonicalText {
    /// `s` in Normalization Form C.
    package static func nfc(_ s: String) -> String {
        // ASCII is its own normal form
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return s }
        return s.precomposedStringWithCanonicalMapping
    }
}
