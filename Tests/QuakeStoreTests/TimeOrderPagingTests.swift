import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Pages of the whole store in time order read straight from storage positions, against the
/// naive sort, where runs of equal times (some of thousands of rows) cross granules, blocks and
/// the page's edges.
@Suite struct TimeOrderPagingTests {
    /// 30,000 rows of one year in blocks of 4,096 rows: mostly distinct times, with runs of 2 to
    /// 6,000 equal times now and then.
    static func tiesStore(_ rng: inout SplitMix64, _ tag: String = #function) throws -> (Store, [Quake]) {
        var lines = ["time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"]
        var t: Int64 = 1_609_459_200_000   // 2021-01-01
        for i in 0..<30_000 {
            // mostly distinct times, with runs of 2..6,000 equal times now and then
            if rng.next() % 50 == 0 || i % 9_000 < 3_000 {
                // keep t
            } else {
                t += Int64(rng.next() % 9_000_000)
            }
            let id = "t" + String(rng.next() % 1_000_000_000, radix: 36) + "\(i)"
            lines.append("\(Timestamp.string(t)),10,20,5,\(rng.next() % 60 / 10),ml,,,,,us,\(id),,,earthquake")
        }
        let dir = TestSupport.tempDir(tag)
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir + "/ties.csv")
        let s = try Store.openOrCreate(path: dir + "/store", partitioning: .year, blockRows: 4096)
        try s.load([dir + "/ties.csv"])
        let quakes = try TestSupport.allRows(s).quakes
        #expect(quakes.count == 30_000)
        return (s, quakes)
    }

    @Test func pagesOfEveryRowInTimeOrderEqualTheNaiveSortAcrossRunsOfEqualTimes() throws {
        var rng = SplitMix64(seed: 21)
        let (s, quakes) = try TimeOrderPagingTests.tiesStore(&rng)
        let n = quakes.count
        var offsets = [0, 1, 99, 2_999, 3_000, 3_001, 4_095, 4_096, 8_999, 9_000, 9_001, n - 100, n - 1, n, n + 5]
        for _ in 0..<30 { offsets.append(Int(rng.next() % UInt64(n))) }
        for asc in [false, true] {
            for offset in offsets {
                for limit in [1, 100, 5_000] {
                    let spec = QuerySpec(filter: .all, sort: [SortKey(.time, ascending: asc)], limit: limit, offset: offset)
                    let got = try s.query(spec, columns: [.id]).ids
                    #expect(got == (try Naive.query(quakes, spec).map(\.id)), "asc \(asc) offset \(offset) limit \(limit)")
                }
            }
        }
    }

    /// Time ranges whose bounds fall on, just inside and just outside runs of equal times (found
    /// in a partition's sorted times by binary search), unbounded on either side, and empty:
    /// counts, pages in both time orders, pages by magnitude and every column of small pages,
    /// against the naive reference.
    @Test func timeRangesOnRunsOfEqualTimesEqualTheNaiveFilter() throws {
        var rng = SplitMix64(seed: 34)
        let (s, quakes) = try TimeOrderPagingTests.tiesStore(&rng)
        let times = quakes.map(\.timeMilliseconds)
        var bounds: [Int64?] = [nil, times.min().map { $0 - 1 }, times.max().map { $0 + 1 }]
        for _ in 0..<14 {
            let t = times[Int(rng.next() % UInt64(times.count))]
            bounds += [t, t - 1, t + 1]
        }
        var cases = 0
        for lo in bounds.shuffled(using: &rng).prefix(14) {
            for hi in bounds.shuffled(using: &rng).prefix(6) {
                let f = Filter.timeRange(.time, lower: lo, upper: hi)
                let want = try quakes.filter { try Naive.matches(f, $0) }
                #expect(try s.count(f) == want.count, "\(f)")
                for sort in [[SortKey(.time, ascending: false)], [SortKey(.time, ascending: true)],
                             [SortKey(.mag, ascending: false)]] {
                    for (limit, offset) in [(50, 100), (5_000, 0), (10, 0)] {
                        let spec = QuerySpec(filter: f, sort: sort, limit: limit, offset: offset)
                        let got = try s.query(spec, columns: limit == 10 ? nil : [.id])
                        let ref = try Naive.query(quakes, spec)
                        #expect(got.ids == ref.map(\.id), "\(f) \(sort) \(limit) \(offset)")
                        if limit == 10 { #expect(got.quakes == ref, "\(f) \(sort) every column") }
                        cases += 1
                    }
                }
            }
        }
        #expect(cases == 14 * 6 * 9)
    }
}
