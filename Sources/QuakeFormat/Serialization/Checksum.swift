/// Fast 64-bit checksums of byte ranges.
package enum Checksum {
    /// One multiply-xorshift chain, 8 bytes per step: manifests, directories, history and the
    /// chunks of partition files written before ``wide(_:)``.
    package static func hash(_ p: UnsafeRawBufferPointer, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> UInt64 {
        var hash = seed ^ UInt64(p.count)
        var position = 0
        let count = p.count
        // SAFETY: the loop keeps position + 8 <= count = p.count, so each 8-byte load lies in `p`; the tail reads
        // position < count.
        while position + 8 <= count {
            var word = p.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            word &*= 0xFF51_AFD7_ED55_8CCD
            word ^= word >> 33
            hash = (hash ^ word) &* 0xC4CE_B9FE_1A85_EC53
            hash ^= hash >> 29
            position += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while position < count {
            tail |= UInt64(p[position]) << shift
            shift += 8
            position += 1
        }
        hash = (hash ^ tail) &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 32
        return hash
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
        let multiplier: UInt64 = 0xC4CE_B9FE_1A85_EC53
        let count = p.count
        var a0: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count), a1: UInt64 = 0xBF58_476D_1CE4_E5B9
        var a2: UInt64 = 0x94D0_49BB_1331_11EB, a3: UInt64 = 0xFF51_AFD7_ED55_8CCD
        var a4: UInt64 = 0x2545_F491_4F6C_DD1D, a5: UInt64 = 0x9FB2_1C65_1E98_DF25
        var a6: UInt64 = 0xD6E8_FEB8_6659_FD93, a7: UInt64 = 0xA076_1D64_78BD_642F
        @inline(__always) func step(_ a: inout UInt64, _ k: UInt64) {
            a = (a ^ k) &* multiplier
            a ^= a >> 29
        }
        var position = 0
        // SAFETY: position + 64 <= count, position + 8 <= count and position < count (the loop bounds) keep every load
        // inside `p` (count = p.count);
        // loadUnaligned has no alignment requirement.
        while position + 64 <= count {
            step(&a0, p.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            step(&a1, p.loadUnaligned(fromByteOffset: position + 8, as: UInt64.self))
            step(&a2, p.loadUnaligned(fromByteOffset: position + 16, as: UInt64.self))
            step(&a3, p.loadUnaligned(fromByteOffset: position + 24, as: UInt64.self))
            step(&a4, p.loadUnaligned(fromByteOffset: position + 32, as: UInt64.self))
            step(&a5, p.loadUnaligned(fromByteOffset: position + 40, as: UInt64.self))
            step(&a6, p.loadUnaligned(fromByteOffset: position + 48, as: UInt64.self))
            step(&a7, p.loadUnaligned(fromByteOffset: position + 56, as: UInt64.self))
            position += 64
        }
        while position + 8 <= count {
            step(&a0, p.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while position < count {
            tail |= UInt64(p[position]) << shift
            shift += 8
            position += 1
        }
        // fold the chains in order, each mixed before the next joins
        @inline(__always) func fold(_ h: UInt64, _ a: UInt64) -> UInt64 {
            let mixed = (h ^ a) &* 0xFF51_AFD7_ED55_8CCD
            return mixed ^ mixed >> 32
        }
        return fold(fold(fold(fold(fold(fold(fold(fold(a0, a1), a2), a3), a4), a5), a6), a7), tail)
    }

    // SAFETY: the pointer is used only inside the closure, which hashes the array's count bytes.
    package static func wide(_ a: [UInt8]) -> UInt64 { a.withUnsafeBytes { wide($0) } }
}
