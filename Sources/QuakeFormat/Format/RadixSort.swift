/// Least-significant-digit radix sort of 64-bit unsigned integers, 11 bits a pass: the id
/// index sorts each bucket's (key, partition) pairs packed into one word this way, where a
/// comparison sort of pairs took 3 % of a bulk load.
package enum RadixSort {
    /// Bits a pass sorts on.
    static let digitBits = 11

    /// Sorts `a` ascending, looking only at its low `bits` bits (every value must be below
    /// `1 << bits`).
    /// - Complexity: O(n · ⌈bits / 11⌉) time, n more words of memory.
    package static func sort(_ a: inout [UInt64], bits: Int) {
        let n = a.count
        guard n > 1 else { return }
        if n < 256 { a.sort(); return }
        let radix = 1 << digitBits
        let mask = UInt64(radix - 1)
        var other = [UInt64](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: radix)
        var shift = 0
        while shift < max(1, bits) {
            let s = UInt64(shift)
            // SAFETY: every index is below n (both arrays hold n words) or a digit below radix.
            let moved = a.withUnsafeMutableBufferPointer { src in
                other.withUnsafeMutableBufferPointer { dst in
                    counts.withUnsafeMutableBufferPointer { cnt -> Bool in
                        for i in 0..<radix { cnt[i] = 0 }
                        for v in src { cnt[Int((v >> s) & mask)] += 1 }
                        // a digit every value shares orders nothing
                        if cnt[Int((src[0] >> s) & mask)] == n { return false }
                        var total = 0
                        for i in 0..<radix {
                            let c = cnt[i]
                            cnt[i] = total
                            total += c
                        }
                        for v in src {
                            let d = Int((v >> s) & mask)
                            dst[cnt[d]] = v
                            cnt[d] += 1
                        }
                        return true
                    }
                }
            }
            if moved { swap(&a, &other) }
            shift += digitBits
        }
    }
}
