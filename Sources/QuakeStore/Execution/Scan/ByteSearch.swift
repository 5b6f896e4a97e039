import Foundation
import QuakeFormat

/// Substring search over bytes, and the folding used by case- and diacritic-insensitive
/// matching (Foundation's `.caseInsensitive` + `.diacriticInsensitive`, as
/// `localizedStandardContains` does).
package enum ByteSearch {
    @inline(__always)
    package static func contains(_ hay: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        let n = needle.count, h = hay.count
        if n == 0 { return true }
        if n > h { return false }
        let first = needle[0]
        // SAFETY: h >= n >= 1, so hay's base is non-nil; memchr scans positions i...h - n, so every match
        // `at` has at + n <= h and memcmp reads n bytes inside both buffers; `nd` stays in the closure.
        return needle.withUnsafeBytes { nd in
            var i = 0
            while i <= h - n {
                guard let p = memchr(hay.baseAddress! + i, Int32(first), h - n - i + 1) else { return false }
                let at = hay.baseAddress!.distance(to: UnsafeRawPointer(p))
                assert(at + n <= h, "match runs past the haystack")
                if memcmp(hay.baseAddress! + at, nd.baseAddress!, n) == 0 { return true }
                i = at + 1
            }
            return false
        }
    }

    package static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool {
        // SAFETY: `$0` is used only inside the closure; contains does not keep it.
        hay.withUnsafeBytes { contains($0, needle) }
    }

    package static func hasPrefix(_ hay: [UInt8], _ prefix: ArraySlice<UInt8>) -> Bool {
        hay.count >= prefix.count && hay.prefix(prefix.count).elementsEqual(prefix)
    }

    /// Case- and diacritic-folded UTF-8 bytes.
    package static func fold(_ s: String) -> [UInt8] {
        Array(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
    }

    package static func fold(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var ascii = true
        for b in bytes where b >= 0x80 { ascii = false; break }
        if ascii { return bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        return fold(String(decoding: bytes, as: UTF8.self))
    }
}

#if canImport(Glibc)
import Glibc
#endif
