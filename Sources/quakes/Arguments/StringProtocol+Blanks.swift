extension StringProtocol {
    /// The text without the spaces and tabs around it: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` gives (Unicode space separators, U+0009 and U+200B), without
    /// building Foundation's character sets, which costs a one-shot query about 0.2 ms.
    var trimmingBlanks: String {
        func blank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\u{200B}"
                || (scalar.value >= 0x80 && scalar.properties.generalCategory == .spaceSeparator)
        }
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }),
              let last = scalars.lastIndex(where: { !blank($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}
