import Testing
@testable import QuakeStore
@testable import QuakeTestSupport
import QuakeGenerator

/// The written-out stable sort equals the standard library's stable sort (by key, then by
/// original position) on every size around its run and merge boundaries, with keys drawn from
/// few values (long tie groups) and from the whole range.
@Suite struct StableSortTests {
    struct Item: Equatable {
        var key: UInt64
        var position: Int
    }

    static func naive(_ a: [Item]) -> [Item] {
        a.sorted { ($0.key, $0.position) < ($1.key, $1.position) }
    }

    @Test func equalsTheNaiveStableSort() {
        var rng = SplitMix64(seed: 23)
        var sizes = Array(0...70) + [95, 96, 97, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097]
        sizes.append(100_003)
        for n in sizes {
            for spread: UInt64 in [1, 3, 50, UInt64.max] {
                let a = (0..<n).map { Item(key: spread == .max ? rng.next() : rng.next() % spread, position: $0) }
                var b = a
                StableSort.byKey(&b) { $0.key }
                // a Bool, so that a failure names the case instead of printing both arrays
                let same = b == Self.naive(a)
                #expect(same, "n \(n), keys from \(spread) values")
            }
        }
        // already sorted, reversed, and sawtooth inputs
        for n in [33, 64, 65, 5000] {
            for shape in 0..<3 {
                let a = (0..<n).map { i in
                    Item(key: UInt64(shape == 0 ? i : shape == 1 ? n - i : i % 37), position: i)
                }
                var b = a
                StableSort.byKey(&b) { $0.key }
                let same = b == Self.naive(a)
                #expect(same, "n \(n), shape \(shape)")
            }
        }
    }
}
