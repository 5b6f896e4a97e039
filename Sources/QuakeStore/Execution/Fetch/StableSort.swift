/// A stable sort by a `UInt64` key, written out for one-shot queries. The standard library's sort
/// keeps its runs in an array of `Range<Int>`, and the first such array in a process checks
/// `Int: Comparable` by scanning every protocol conformance in the binary: about 0.2 ms of a
/// one-shot day map, more than the sort itself.
enum StableSort {
    /// Sorts `a` by `key`, keeping elements of equal keys in their order: runs of 32 sorted by
    /// insertion, then merged bottom-up between `a` and one buffer.
    /// - Complexity: O(n log n) key comparisons; one buffer of `a.count` elements.
    static func byKey<T>(_ a: inout [T], _ key: (T) -> UInt64) {
        // Long by design: the hot loop of the top-N's final sort; see Benchmarks/RESULTS.md
        // (9 one year, top 10 by mag).
        let count = a.count
        guard count > 1 else { return }
        let run = 32
        var buffer = a
        a.withUnsafeMutableBufferPointer { x in
            buffer.withUnsafeMutableBufferPointer { y in
                // SAFETY: x and y each hold count initialized elements, and every index below is
                // inside 0..<count: runs end at min(lo + run, count), merges at
                // min(start + 2 * width, count).
                var lo = 0
                while lo < count {
                    let hi = Swift.min(lo + run, count)
                    var next = lo + 1
                    while next < hi {
                        let element = x[next]
                        let elementKey = key(element)
                        var hole = next
                        while hole > lo, key(x[hole - 1]) > elementKey {
                            x[hole] = x[hole - 1]
                            hole -= 1
                        }
                        x[hole] = element
                        next += 1
                    }
                    lo = hi
                }
                var src = x
                var dst = y
                var width = run
                while width < count {
                    var start = 0
                    while start < count {
                        let middle = Swift.min(start + width, count)
                        let end = Swift.min(start + 2 * width, count)
                        var left = start
                        var right = middle
                        var out = start
                        while left < middle, right < end {
                            // the left run's element first on equal keys: stable
                            if key(src[right]) < key(src[left]) {
                                dst[out] = src[right]
                                right += 1
                            } else {
                                dst[out] = src[left]
                                left += 1
                            }
                            out += 1
                        }
                        while left < middle {
                            dst[out] = src[left]
                            left += 1
                            out += 1
                        }
                        while right < end {
                            dst[out] = src[right]
                            right += 1
                            out += 1
                        }
                        start = end
                    }
                    swap(&src, &dst)
                    width *= 2
                }
                // the sorted elements are in src; bring them back when that is the buffer
                if src.baseAddress != x.baseAddress {
                    for i in 0..<count { x[i] = src[i] }
                }
            }
        }
    }
}
