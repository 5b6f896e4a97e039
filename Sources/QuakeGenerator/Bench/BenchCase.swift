import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// One timed operation of a benchmark suite.
package struct BenchCase: Sendable {
    package let name: String
    /// Runs the operation once; returns the number of rows it produced.
    package let run: @Sendable () throws -> Int
    /// Rows and on-disk bytes the operation had to consider (for rows/s and MB/s).
    package let workload: @Sendable () throws -> (rows: Int, bytes: Int)

    package init(name: String, run: @escaping @Sendable () throws -> Int,
                 workload: @escaping @Sendable () throws -> (rows: Int, bytes: Int)) {
        self.name = name
        self.run = run
        self.workload = workload
    }
}

/// Timings of one case: median, min and max of the runs.
package struct BenchResult: Sendable, Codable {
    package var name: String
    package var runs: Int
    package var medianMs: Double
    package var minMs: Double
    package var maxMs: Double
    package var rowsOut: Int
    package var rowsPerSecond: Double
    package var megabytesPerSecond: Double

    package init(name: String, runs: Int, medianMs: Double, minMs: Double, maxMs: Double, rowsOut: Int, rowsPerSecond: Double, megabytesPerSecond: Double) {
        self.name = name
        self.runs = runs
        self.medianMs = medianMs
        self.minMs = minMs
        self.maxMs = maxMs
        self.rowsOut = rowsOut
        self.rowsPerSecond = rowsPerSecond
        self.megabytesPerSecond = megabytesPerSecond
    }
}

package enum BenchRunner {
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `c` once to warm up, then `runs` timed times.
    package static func measure(_ c: BenchCase, runs: Int) throws -> BenchResult {
        var out = try c.run()
        var times: [Double] = []
        for _ in 0..<max(1, runs) {
            let t0 = now()
            out = try c.run()
            times.append(Double(now() - t0) / 1e6)
        }
        times.sort()
        let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        let (rows, bytes) = try c.workload()
        return BenchResult(name: c.name, runs: times.count, medianMs: median, minMs: times.first!, maxMs: times.last!, rowsOut: out,
                           rowsPerSecond: median > 0 ? Double(rows) / (median / 1000) : 0,
                           megabytesPerSecond: median > 0 ? Double(bytes) / 1e6 / (median / 1000) : 0)
    }
}

extension Store {
    /// Opening the store at `path` from nothing and planning a query for `filter`: read and check
    /// the manifest, prune partitions by time, read and check the chunk directories (zone maps
    /// and granules) of the partitions left. What a one-shot CLI query pays before any scan.
    package static func openAndPlanCase(path: String, filter: Filter, name: String) -> BenchCase {
        BenchCase(name: name, run: {
            let s = try Store(path: path)
            let (lo, hi) = filter.timeBounds
            var n = 0
            for e in s.manifest.partitions {
                if let lo, e.maxTime < lo { continue }
                if let hi, e.minTime >= hi { continue }
                _ = try s.reader(e).directory()
                n += 1
            }
            return n
        }, workload: { (0, 0) })
    }

    /// Rows and on-disk bytes a filter's partitions hold in `columns` (the work a scan faces
    /// after partition pruning).
    package func workload(_ filter: Filter, columns: ColumnSet) -> (rows: Int, bytes: Int) {
        let (lo, hi) = filter.timeBounds
        var rows = 0, bytes = 0
        for e in manifest.partitions {
            if let lo, e.maxTime < lo { continue }
            if let hi, e.minTime >= hi { continue }
            rows += e.rows
            guard let d = try? reader(e).directory() else { continue }
            for c in columns { for i in d.chunks[c.rawValue] { bytes += i.length } }
        }
        return (rows, bytes)
    }

    /// The standard suite: the quake-browser workload of the benchmarks (day map, day list
    /// page, counts, top-N, aggregates, deep paging, substring search, box).
    package func standardBenchSuite(day: String, year: Int, locality: String, country: String) -> [BenchCase] {
        let d = Timestamp.parse(day) ?? 0
        let y0 = Timestamp.parse(String(format4: year) + "-01-01")!, y1 = Timestamp.parse(String(format4: year + 1) + "-01-01")!
        let dayF = Filter.timeRange(.time, lower: d, upper: d + 86_400_000)
        let yearF = Filter.timeRange(.time, lower: y0, upper: y1)
        func q(_ name: String, _ spec: QuerySpec, _ cols: [Column]) -> BenchCase {
            BenchCase(name: name, run: { try self.query(spec, columns: cols).count },
                      workload: {
                          let need = ColumnSet(cols).union(spec.filter.columns).union(spec.sort.map(\.column))
                          return self.workload(spec.filter, columns: need)
                      })
        }
        func count(_ name: String, _ f: Filter) -> BenchCase {
            BenchCase(name: name, run: { try self.count(f) }, workload: { self.workload(f, columns: f.columns) })
        }
        func agg(_ name: String, _ f: Filter, _ g: [GroupBy], _ m: [Metric]) -> BenchCase {
            BenchCase(name: name, run: { try self.aggregate(f, by: g, metrics: m).0.count },
                      workload: { self.workload(f, columns: f.columns.union(m.compactMap(\.column)).union([.time, .net])) })
        }
        let page = [Column.time, .mag, .place, .id]
        return [
            q("day map: place contains locality, by mag desc", QuerySpec(filter: .conjunction([dayF, .contains(.place, locality, insensitive: false)]),
                                                                       sort: [SortKey(.mag, ascending: false)]), page),
            q("day list: by time desc, page 3 of 50", QuerySpec(filter: dayF, sort: [SortKey(.time, ascending: false)], limit: 50, offset: 100), page),
            count("count mag >= 4.5", .numberRange(.mag, lower: .init(4.5), upper: nil)),
            q("place contains country, top 100 by mag", QuerySpec(filter: .contains(.place, country, insensitive: false),
                                                                  sort: [SortKey(.mag, ascending: false)], limit: 100), page),
            agg("one year by month: count, avg, max mag", yearF, [.time(.month)], [.count, .avg(.mag), .max(.mag)]),
            agg("by net: count, avg mag, max depth", .all, [.value(.net)], [.count, .avg(.mag), .max(.depth)]),
            q("by time desc, offset 1,000,000, limit 100", QuerySpec(filter: .all, sort: [SortKey(.time, ascending: false)], limit: 100,
                                                                   offset: min(1_000_000, manifest.rows / 2)), page),
            count("place like 'california', count", .contains(.place, "california", insensitive: true)),
            q("one year, top 10 by mag", QuerySpec(filter: yearF, sort: [SortKey(.mag, ascending: false)], limit: 10), page),
            count("box with mag >= 2, count", .conjunction([.box(minLatitude: 32, maxLatitude: 42, minLongitude: -125, maxLongitude: -114),
                                                             .numberRange(.mag, lower: .init(2), upper: nil)])),
        ]
    }
}
