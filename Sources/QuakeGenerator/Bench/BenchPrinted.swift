import Foundation

/// A case's answer as the CLI prints it in CSV: whole when short, else its size and hash.
package struct BenchPrinted: Sendable, Codable, Equatable {
    /// Lines of the CSV text (header included).
    package var lines: Int
    /// UTF-8 bytes of the CSV text.
    package var bytes: Int
    /// FNV-1a 64 of the CSV text's UTF-8 bytes, 16 hex digits.
    package var fnv1a64: String
    /// The CSV text itself, when it has at most ``BenchPrinted/wholeLines`` lines.
    package var text: String?

    /// Results up to this many lines are carried whole.
    package static let wholeLines = 20

    /// The answer `csv`, measured and hashed.
    package init(csv: String) {
        let breaks = csv.reduce(0) { count, character in count + (character.isNewline ? 1 : 0) }
        self.lines = breaks + (csv.isEmpty || csv.last?.isNewline == true ? 0 : 1)
        self.bytes = csv.utf8.count
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in csv.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        self.fnv1a64 = String(repeating: "0", count: 16 - hex.count) + hex
        self.text = self.lines <= BenchPrinted.wholeLines ? csv : nil
    }
}
