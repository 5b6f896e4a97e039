/// Radix sort of 64-bit unsigned integers, 11 bits a pass: the id index sorts each bucket's
/// (key, partition) pairs packed into one word this way, where a comparison sort of pairs took
/// 3 % of a bulk load.
///
/// Up to ``msdRows`` values, least-significant digit first. Above it, the values are first
/// spread by their top ``msdBits`` bits into buckets that fit the cache, and each bucket is then
/// sorted least-significant digit first: at 100 M rows a bucket of the id index holds 1.5 M
/// pairs, and five passes that each scattered 12 MB missed the cache on nearly every write.
package enum RadixSort {
    /// Bits a pass sorts on.
    static let digitBits = 11
    /// Values above which the first pass splits by the top bits.
    static let msdRows = 1 << 17
    /// Bits of that first pass: 128 buckets, of about 1,000 values each at ``msdRows``.
    static let msdBits = 7

    /// Sorts `a` ascending, looking only at its low `bits` bits (every value must be below
    /// `1 << bits`).
    /// - Complexity: O(n · ⌈bits / 11⌉) time, n more words of memory.
    package static func sort(_ a: inout [UInt64], bits: Int) {
        let count = a.count
        guard count > 1 else { return }
        if count < 256 {
            a.sort()
            return
        }
        let bits = Swift.min(64, Swift.max(1, bits))
        var other = [UInt64](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        let split = count > msdRows && bits > msdBits + digitBits
        var starts = [Int](repeating: 0, count: split ? (1 << msdBits) + 1 : 0)
        // SAFETY: `a` and `other` hold count words each, and every bucket range lies in 0..<count; a
        // digit indexes `counts` (below 1 << digitBits) or `starts` (below 1 << msdBits).
        let inOther = a.withUnsafeMutableBufferPointer { a in
            other.withUnsafeMutableBufferPointer { other in
                counts.withUnsafeMutableBufferPointer { counts in
                    starts.withUnsafeMutableBufferPointer { starts -> Bool in
                        guard split else { return lsd(a, other, bits: bits, counts) }
                        let shift = UInt64(bits - msdBits), top = UInt64((1 << msdBits) - 1)
                        for v in a { starts[Int((v >> shift) & top) + 1] += 1 }
                        for d in 0..<(1 << msdBits) { starts[d + 1] += starts[d] }
                        for v in a {
                            let digit = Int((v >> shift) & top)
                            other[starts[digit]] = v
                            starts[digit] += 1
                        }
                        // each bucket, now in `other`, sorted on its low bits back into `a`
                        var lo = 0
                        for d in 0..<(1 << msdBits) {
                            let hi = starts[d]
                            let src = UnsafeMutableBufferPointer(rebasing: other[lo..<hi])
                            var dst = UnsafeMutableBufferPointer(rebasing: a[lo..<hi])
                            if hi - lo < 256 {
                                _ = dst.update(fromContentsOf: src)
                                dst.sort()
                            } else if !lsd(src, dst, bits: Int(shift), counts) {
                                _ = dst.update(fromContentsOf: src)
                            }
                            lo = hi
                        }
                        return false
                    }
                }
            }
        }
        if inOther { swap(&a, &other) }
    }

    /// The indices of `keys` in ascending order of key, equal keys in index order (a stable
    /// sort): least-significant digit first over (key, index) pairs, skipping digits every key
    /// shares. The history's id copies order a partition's ids this way by their first 8 bytes,
    /// where a comparison sort was a tenth of a one-event commit.
    /// - Complexity: O(n · ⌈64 / 11⌉) time, 2n more words of memory.
    package static func order(_ keys: [UInt64]) -> [Int] {
        let count = keys.count
        if count < 256 {
            return keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
        }
        var first = Array(0..<count)
        var second = [Int](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        let mask = UInt64((1 << digitBits) - 1)
        // SAFETY: `first` and `second` hold count indices below count, so every `keys[i]` is in range;
        // a digit is masked below 1 << digitBits = counts.count, and the prefix sums keep each
        // counts[digit] below count while `to` is filled. No pointer outlives the closures.
        let inSecond = keys.withUnsafeBufferPointer { keys in
            first.withUnsafeMutableBufferPointer { first in
                second.withUnsafeMutableBufferPointer { second in
                    counts.withUnsafeMutableBufferPointer { counts -> Bool in
                        var from = first, to = second
                        var inSecond = false
                        var shift: UInt64 = 0
                        while shift < 64 {
                            defer { shift += UInt64(digitBits) }
                            for d in 0..<counts.count { counts[d] = 0 }
                            for i in from { counts[Int((keys[i] >> shift) & mask)] += 1 }
                            // a digit every key shares orders nothing
                            if counts[Int((keys[from[0]] >> shift) & mask)] == count { continue }
                            var total = 0
                            for d in 0..<counts.count {
                                let digitCount = counts[d]
                                counts[d] = total
                                total += digitCount
                            }
                            for i in from {
                                let digit = Int((keys[i] >> shift) & mask)
                                to[counts[digit]] = i
                                counts[digit] += 1
                            }
                            swap(&from, &to)
                            inSecond.toggle()
                        }
                        return inSecond
                    }
                }
            }
        }
        return inSecond ? second : first
    }

    /// Sorts `src` on its low `bits` bits, with `tmp` (as long) for scratch; true when the
    /// sorted values ended in `tmp`, false when in `src`.
    private static func lsd(_ src: UnsafeMutableBufferPointer<UInt64>, _ tmp: UnsafeMutableBufferPointer<UInt64>,
                            bits: Int, _ cnt: UnsafeMutableBufferPointer<Int>) -> Bool {
        assert(tmp.count == src.count && cnt.count >= 1 << digitBits && !src.isEmpty, "lsd needs equal buffers")
        let count = src.count, radix = 1 << digitBits
        let mask = UInt64(radix - 1)
        var from = src, to = tmp, inTmp = false
        var shift = 0
        // SAFETY: every digit is masked below radix = cnt's length; `to` holds count = from.count slots (callers pass
        // tmp as long as src), and the prefix sums keep each cnt[digit] below count; from[0] exists as count > 0.
        while shift < bits {
            let shiftBits = UInt64(shift)
            shift += digitBits
            for i in 0..<radix { cnt[i] = 0 }
            for v in from { cnt[Int((v >> shiftBits) & mask)] += 1 }
            // a digit every value shares orders nothing
            if cnt[Int((from[0] >> shiftBits) & mask)] == count { continue }
            var total = 0
            for i in 0..<radix {
                let bucketCount = cnt[i]
                cnt[i] = total
                total += bucketCount
            }
            for v in from {
                let digit = Int((v >> shiftBits) & mask)
                to[cnt[digit]] = v
                cnt[digit] += 1
            }
            swap(&from, &to)
            inTmp.toggle()
        }
        return inTmp
    }
}
