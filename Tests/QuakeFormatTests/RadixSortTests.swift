@testable import QuakeSupport
import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The radix sort against the standard library's sort, and the id index's sort of (key,
/// partition) pairs against a comparison sort of the pairs, on both of its paths: packed into
/// one word, and keys too wide to pack beside the partitions.
@Suite struct RadixSortTests {
    @Test(arguments: [1, 11, 12, 40, 52, 64])
    func sortsLikeTheStandardLibrary(bits: Int) {
        var rng = SplitMix64(seed: UInt64(bits))
        for n in [0, 1, 2, 255, 256, 257, 5000, 70_000, RadixSort.msdRows + 1, 400_000] {
            let narrow = bits == 64 ? ~UInt64(0) : (UInt64(1) << UInt64(bits)) - 1
            // duplicates, runs and one shared digit now and then
            var a = (0..<n).map { i in i % 7 == 0 ? UInt64(i) & narrow : rng.next() & narrow }
            if n > 10 { a[n / 2] = a[1] }
            var b = a
            RadixSort.sort(&b, bits: bits)
            let same = b == a.sorted()
            #expect(same, "\(n) values of \(bits) bits")
        }
    }

    @Test(arguments: [3, 40, 58])
    func idHashesSortLikeAComparisonSort(bits: Int) {
        var rng = SplitMix64(seed: UInt64(100 + bits))
        for (n, spread) in [(0, 1), (1, 1), (3000, 1), (3000, 300), (50_000, 1 << 20), (300_000, 400)] {
            var h = IdHashes(bits: bits)
            for _ in 0..<n {
                h.append(key: rng.next() >> UInt64(64 - bits), ordinal: 24_000 + Int(rng.next() % UInt64(spread)))
            }
            if n > 3 { h.append(key: h.keys[1], ordinal: h.ordinals[1] + 1) }
            let pairs = zip(h.keys, h.ordinals).sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            h.sort()
            let same = h.keys == pairs.map(\.0) && h.ordinals == pairs.map(\.1)
            #expect(same, "\(n) entries, \(bits) bits")
        }
    }

    /// The stable order against a naive sort of (key, index): few distinct keys (long runs of
    /// equal keys), keys that differ only in one digit, and random keys, below and past 256.
    @Test func orderIsAStableSortOfTheKeys() {
        var generator = SplitMix64(seed: 68)
        for trial in 0..<40 {
            let count = [0, 1, 7, 255, 256, 1_000, 40_000][trial % 7]
            let keys: [UInt64] = (0..<count).map { _ in
                let value = generator.next()
                switch trial % 4 {
                case 0: return value % 5
                case 1: return 0xABCD_0000_0000_0000 | (value & 0x7FF) << 22
                case 2: return value
                default: return (value >> 60) << 60 | value % 3
                }
            }
            let naive = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
            #expect(RadixSort.order(keys) == naive, "trial \(trial), \(count) keys")
        }
    }
}
