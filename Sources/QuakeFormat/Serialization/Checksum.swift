/// Fast 64-bit checksums of byte ranges.
package enum Checksum {
    /// One multiply-xorshift chain, 8 bytes per step: manifests, directories, history and the
    /// chunks of partition files written before ``wide(_:)``.
    package static func hash(_ p: UnsafeRawBufferPointer, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> UInt64 {
        var h = seed ^ UInt64(p.count)
        var i = 0
        let n = p.count
        // SAFETY: the loop keeps i + 8 <= n = p.count, so each 8-byte load lies in `p`; the tail reads i < n.
        while i + 8 <= n {
            var k = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            k &*= 0xFF51_AFD7_ED55_8CCD
            k ^= k >> 33
            h = (h ^ k) &* 0xC4CE_B9FE_1A85_EC53
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n { tail |= UInt64(p[i]) << shift; shift += 8; i += 1 }
        h = (h ^ tail) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 32
        return h
    }

    // SAFETY: the pointer is used only inside the closure, which hashes the array's count bytes.
    package static func hash(_ a: [UInt8]) -> UInt64 { a.withUnsafeBytes { hash($0) } }

    /// Eight independent chains over 64-byte stripes, folded at the end: about six times the
    /// rate of ``hash(_:seed:)`` on the chunks a query touches. Each step of a chain,
    /// `a = ((a ^ word) * odd) ^ >> 29`, is a bijection of the word for a given state and of the
    /// state for a given word, so any change confined to one word always changes the result.
    /// Partition files whose directory says so use it for chunks and regions.
    /// - Complexity: O(bytes), one multiply per 8 bytes.
    package static func wide(_ p: UnsafeRawBufferPointer) -> UInt64 {
        let m: UInt64 = 0xC4CE_B9FE_1A85_EC53
        let n = p.count
        var a0: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n), a1: UInt64 = 0xBF58_476D_1CE4_E5B9
        var a2: UInt64 = 0x94D0_49BB_1331_11EB, a3: UInt64 = 0xFF51_AFD7_ED55_8CCD
        var a4: UInt64 = 0x2545_F491_4F6C_DD1D, a5: UInt64 = 0x9FB2_1C65_1E98_DF25
        var a6: UInt64 = 0xD6E8_FEB8_6659_FD93, a7: UInt64 = 0xA076_1D64_78BD_642F
        @inline(__always) func step(_ a: inout UInt64, _ k: UInt64) {
            a = (a ^ k) &* m
            a ^= a >> 29
        }
        var i = 0
        // SAFETY: i + 64 <= n, i + 8 <= n and i < n (the loop bounds) keep every load inside `p` (n = p.count);
        // loadUnaligned has no alignment requirement.
        while i + 64 <= n {
            step(&a0, p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            step(&a1, p.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
            step(&a2, p.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
            step(&a3, p.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
            step(&a4, p.loadUnaligned(fromByteOffset: i + 32, as: UInt64.self))
            step(&a5, p.loadUnaligned(fromByteOffset: i + 40, as: UInt64.self))
            step(&a6, p.loadUnaligned(fromByteOffset: i + 48, as: UInt64.self))
            step(&a7, p.loadUnaligned(fromByteOffset: i + 56, as: UInt64.self))
            i += 64
        }
        while i + 8 <= n {
            step(&a0, p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n { tail |= UInt64(p[i]) << shift; shift += 8; i += 1 }
        // fold the chains in order, each mixed before the next joins
        @inline(__always) func fold(_ h: UInt64, _ a: UInt64) -> UInt64 {
            let x = (h ^ a) &* 0xFF51_AFD7_ED55_8CCD
            return x ^ x >> 32
        }
        return fold(fold(fold(fold(fold(fold(fold(fold(a0, a1), a2), a3), a4), a5), a6), a7), tail)
    }

    // SAFETY: the pointer is used only inside the closure, which hashes the array's count bytes.
    package static func wide(_ a: [UInt8]) -> UInt64 { a.withUnsafeBytes { wide($0) } }
}
