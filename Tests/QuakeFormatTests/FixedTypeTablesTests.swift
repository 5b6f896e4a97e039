import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The tables of fixed types a one-shot query uses instead of `Set` and `Dictionary`
/// (``IntTable``, ``ColumnSet``, ``HistoryRetention``'s bounds), each against the standard
/// collection it stands in for.
@Suite struct FixedTypeTablesTests {
    /// Random sets, replacements and lookups, with few distinct keys so that keys repeat and
    /// probe chains run long, against a dictionary of arrays.
    @Test(arguments: [1, 2, 3])
    func anIntTableAnswersAsADictionaryOfLists(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var table = IntTable(capacity: 1)
        var naive: [UInt64: [Int]] = [:]
        for step in 0..<5_000 {
            // keys from a small pool, some differing only in high bits
            let key = (rng.next() % 300) << (step % 3 == 0 ? 40 : 0)
            let value = Int(rng.next() % 1_000)
            switch rng.next() % 3 {
            case 0:
                table.add(key, value)
                naive[key, default: []].append(value)
            case 1:
                // replace the first value above 500 under the key, else add
                table.set(key, value) { $0 > 500 }
                if let k = naive[key]?.firstIndex(where: { $0 > 500 }) {
                    naive[key]![k] = value
                } else {
                    naive[key, default: []].append(value)
                }
            default:
                let probe = (rng.next() % 300) << (step % 2 == 0 ? 40 : 0)
                #expect(table.value(probe) == naive[probe]?.first)
                let limit = Int(rng.next() % 1_000)
                #expect(table.first(probe) { $0 < limit } == naive[probe]?.first { $0 < limit })
            }
        }
        #expect(table.count == naive.values.reduce(0) { $0 + $1.count })
        for (k, vs) in naive {
            var seen: [Int] = []
            _ = table.first(k) { seen.append($0); return false }
            #expect(seen == vs, "key \(k)")
        }
        #expect(table.value(1 << 63) == nil)
    }

    @Test func aColumnSetHoldsWhatASetOfColumnsHolds() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<500 {
            func pick() -> Column { Column.allCases[Int(rng.next() % UInt64(Column.allCases.count))] }
            let a = (0..<Int(rng.next() % 12)).map { _ in pick() }
            let b = (0..<Int(rng.next() % 12)).map { _ in pick() }
            let s = ColumnSet(a), t = ColumnSet(b)
            let naive = Set(a), naiveT = Set(b)
            #expect(s.count == naive.count && s.isEmpty == naive.isEmpty)
            #expect(Array(s) == naive.sorted { $0.rawValue < $1.rawValue })
            #expect(Array(s.union(t)) == naive.union(naiveT).sorted { $0.rawValue < $1.rawValue })
            #expect(Array(s.union(b)) == naive.union(b).sorted { $0.rawValue < $1.rawValue })
            for c in Column.allCases { #expect(s.contains(c) == naive.contains(c)) }
            var u = s
            u.formUnion(t)
            #expect(u == s.union(t))
        }
        #expect(Array(ColumnSet.all) == Column.allCases)
        #expect(ColumnSet([.time, .mag, .time]) == [.mag, .time])
    }

    /// History ranges kept as pairs of bounds: appended, pruned, counted and written as the
    /// ranges they stand for.
    @Test func historyBoundsActAsRanges() throws {
        var rng = SplitMix64(seed: 7)
        var h = HistoryRetention()
        var naive: [Int] = []
        var g = 0
        for _ in 0..<400 {
            g += 1 + Int(rng.next() % 3)
            h.append(g)
            naive.append(g)
            if rng.next() % 40 == 0 {
                let cut = g - Int(rng.next() % 10)
                h.prune(before: cut, newestPrunedTime: nil)
                naive.removeAll { $0 < cut }
            }
            #expect(h.generations == naive)
            #expect(h.count == naive.count)
            #expect(h.latest == (naive.last ?? h.baseGeneration))
        }
        // ranges are maximal runs of consecutive generations
        for (r, s) in zip(h.ranges, h.ranges.dropFirst()) { #expect(r.upperBound + 1 < s.lowerBound) }
        var w = ByteWriter()
        h.encode(into: &w)
        let bytes = w.bytes
        let back = try bytes.withUnsafeBytes { p throws(QuakeError) -> HistoryRetention in
            var r = ByteReader(p, at: 0)
            return try HistoryRetention.decode(&r, generation: g)
        }
        #expect(back == h && back.ranges == h.ranges)
        var set = HistoryRetention()
        set.ranges = [2...4, 6...7]
        #expect(set.generations == [2, 3, 4, 6, 7] && set.count == 5 && set.latest == 7)
    }
}
