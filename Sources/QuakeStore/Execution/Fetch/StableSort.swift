/// A stable sort by a `UInt64` key, written out for one-shot queries. The standard library's sort
/// keeps its runs in an array of `Range<Int>`, and the first such array in a process checks
/// `Int: Comparable` by scanning every protocol conformance in the binary: about 0.2 ms of a
/// one-shot day map, more than the sort itself.
enum StableSort {
    /// Sorts `a` by `key`, keeping elements of equal keys in their order: runs of 32 sorted by
    /// insertion, then merged bottom-up between `a` and one buffer.
    /// - Complexity: O(n log n) key comparisons; one buffer of `a.count` elements.
    static func byKey<T>(_ a: inout [T], _ key: (T) -> UInt64) {
        let n = a.count
        guard n > 1 else { return }
        let run = 32
        var buffer = a
        a.withUnsafeMutableBufferPointer { x in
            buffer.withUnsafeMutableBufferPointer { y in
                // SAFETY: x and y each hold n initialized elements, and every index below is
                // inside 0..<n: runs end at min(lo + run, n), merges at min(s + 2 * width, n).
                var lo = 0
                while lo < n {
                    let hi = Swift.min(lo + run, n)
                    var i = lo + 1
                    while i < hi {
                        let v = x[i], k = key(v)
                        var j = i
                        while j > lo, key(x[j - 1]) > k { x[j] = x[j - 1]; j -= 1 }
                        x[j] = v
                        i += 1
                    }
                    lo = hi
                }
                var src = x, dst = y
                var width = run
                while width < n {
                    var s = 0
                    while s < n {
                        let m = Swift.min(s + width, n), e = Swift.min(s + 2 * width, n)
                        var l = s, r = m, o = s
                        while l < m, r < e {
                            // the left run's element first on equal keys: stable
                            if key(src[r]) < key(src[l]) {
                                dst[o] = src[r]
                                r += 1
                            } else {
                                dst[o] = src[l]
                                l += 1
                            }
                            o += 1
                        }
                        while l < m { dst[o] = src[l]; l += 1; o += 1 }
                        while r < e { dst[o] = src[r]; r += 1; o += 1 }
                        s = e
                    }
                    swap(&src, &dst)
                    width *= 2
                }
                // the sorted elements are in src; bring them back when that is the buffer
                if src.baseAddress != x.baseAddress {
                    for i in 0..<n { x[i] = src[i] }
                }
            }
        }
    }
}
