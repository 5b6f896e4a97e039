import Foundation
import QuakeFormat

/// Substring search over bytes, and the folding used by case- and diacritic-insensitive
/// matching (Foundation's `.caseInsensitive` + `.diacriticInsensitive`, as
/// `localizedStandardContains` does).
package enum ByteSearch {
    @inline(__always)
    package static func contains(_ hay: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        let needleCount = needle.count
        let hayCount = hay.count
        if needleCount == 0 { return true }
        if needleCount > hayCount { return false }
        let first = needle[0]
        // SAFETY: hayCount >= needleCount >= 1, so hay's base is non-nil; memchr scans positions
        // from...hayCount - needleCount, so every match `at` has at + needleCount <= hayCount and memcmp
        // reads needleCount bytes inside both buffers; `nd` stays in the closure.
        return needle.withUnsafeBytes { nd in
            var from = 0
            while from <= hayCount - needleCount {
                let scanned = hayCount - needleCount - from + 1
                guard let found = memchr(hay.baseAddress! + from, Int32(first), scanned) else {
                    return false
                }
                let at = hay.baseAddress!.distance(to: UnsafeRawPointer(found))
                assert(at + needleCount <= hayCount, "match runs past the haystack")
                if memcmp(hay.baseAddress! + at, nd.baseAddress!, needleCount) == 0 { return true }
                from = at + 1
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
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        return fold(String(decoding: bytes, as: UTF8.self))
    }
}

#if canImport(Glibc)
import Glibc
#endif
