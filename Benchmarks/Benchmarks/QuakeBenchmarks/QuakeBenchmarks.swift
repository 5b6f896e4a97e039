import Benchmark
import Foundation
import QuakeStore

/// A generated store shared by the query benchmarks (200k events over 2000-2025).
private let fixture: (store: Store, feed: String) = {
    let dir = NSTemporaryDirectory() + "quakes-benchmarks-\(getpid())"
    var o = GeneratorOptions(rows: 200_000)
    o.overlap = 0
    _ = try! FeedGenerator.generate(o, into: dir + "/feed")
    let s = try! Store.openOrCreate(path: dir + "/store")
    try! s.load([dir + "/feed"])
    return (s, dir + "/feed")
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                           maxDuration: .seconds(5), maxIterations: 50)

    Benchmark("load 200k CSV rows") { benchmark in
        for _ in benchmark.scaledIterations {
            let dir = NSTemporaryDirectory() + "quakes-bench-load-\(UUID().uuidString)"
            let s = try Store.openOrCreate(path: dir)
            benchmark.startMeasurement()
            blackHole(try s.load([fixture.feed]))
            benchmark.stopMeasurement()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    // kernels, through the public API
    Benchmark("kernel: count mag >= 4.5") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.count(.numberRange(.mag, lower: .init(4.5), upper: nil))) }
    }
    Benchmark("kernel: place contains (dictionary scan)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.count(.contains(.place, "Chile", insensitive: false))) }
    }
    Benchmark("kernel: place like, case and diacritic insensitive") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.count(.contains(.place, "pahala", insensitive: true))) }
    }
    Benchmark("kernel: box + mag count") { benchmark in
        let f = Filter.conjunction([.box(minLatitude: 32, maxLatitude: 42, minLongitude: -125, maxLongitude: -114),
                                    .numberRange(.mag, lower: .init(2), upper: nil)])
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.count(f)) }
    }

    // sort and fetch throughput
    Benchmark("top-100 by magnitude (heap + zone-map threshold)") { benchmark in
        let q = QuerySpec(filter: .all, sort: [SortKey(.mag, ascending: false)], limit: 100)
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.query(q, columns: [.time, .mag, .place]).count) }
    }
    Benchmark("deep page: time desc offset 100k") { benchmark in
        let q = QuerySpec(filter: .all, sort: [SortKey(.time, ascending: false)], limit: 100, offset: 100_000)
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.query(q, columns: [.time, .mag, .place]).count) }
    }
    Benchmark("fetch one day, sorted by magnitude (seed map view)") { benchmark in
        let p = Quake.predicate(searchText: "", searchDate: Date(timeIntervalSince1970: 1_718_409_600))
        let d = FetchDescriptor<Quake>(predicate: p, sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        for _ in benchmark.scaledIterations { blackHole(try fixture.store.fetch(d).count) }
    }
    Benchmark("aggregate by net: count, avg(mag), max(depth)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.store.aggregate(.all, by: [.value(.net)], metrics: [.count, .avg(.mag), .max(.depth)]).0.count)
        }
    }
    Benchmark("aggregate one year by month") { benchmark in
        let y = Filter.timeRange(.time, lower: 1_672_531_200_000, upper: 1_704_067_200_000)
        for _ in benchmark.scaledIterations {
            blackHole(try fixture.store.aggregate(y, by: [.time(.month)], metrics: [.count, .avg(.mag), .max(.mag)]).0.count)
        }
    }
}
