import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// Pages of the whole store in time order read straight from storage positions, against the
/// naive sort, where runs of equal times (some of thousands of rows) cross granules, blocks and
/// the page's edges.
@Suite struct TimeOrderPagingTests {
    @Test func pagesOfEveryRowInTimeOrderEqualTheNaiveSortAcrossRunsOfEqualTimes() throws {
        var rng = SplitMix64(seed: 21)
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
        let dir = TestSupport.tempDir()
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: dir + "/ties.csv")
        let s = try Store.openOrCreate(path: dir + "/store", partitioning: .year, blockRows: 4096)
        try s.load([dir + "/ties.csv"])
        let quakes = try TestSupport.allRows(s).quakes
        #expect(quakes.count == 30_000)
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
}
