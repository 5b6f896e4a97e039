import Foundation
@testable import QuakeStore

/// Stores shared by the query tests, built once per test run.
enum Fixtures {
    struct Loaded: @unchecked Sendable {
        let store: Store
        let quakes: [Quake]
    }

    static func build(_ paths: [String], partitioning: Partitioning = .month, blockRows: Int = 65536) -> Loaded {
        let dir = TestSupport.tempDir("fixture")
        let s = try! Store.openOrCreate(path: dir + "/store", partitioning: partitioning, blockRows: blockRows)
        try! s.load(paths)
        let b = try! TestSupport.allRows(s)
        return Loaded(store: s, quakes: (0..<b.count).map { Quake(batch: b, row: $0) })
    }

    /// 30,000 generated events over 2023-2024 in overlapping snapshots.
    static let generated: Loaded = {
        let dir = TestSupport.tempDir("gen")
        var o = GeneratorOptions(rows: 30000)
        o.firstYear = 2023
        o.lastYear = 2024
        o.rowsPerFile = 12000
        o.seed = 2024
        _ = try! FeedGenerator.generate(o, into: dir)
        return build([dir])
    }()

    /// 40,000 generated events over 2022-2024 in year partitions of blocks of 10,000 rows: many
    /// granules per partition, granules cut by block edges, text in several zstd frames.
    static let large: Loaded = {
        let dir = TestSupport.tempDir("large")
        var o = GeneratorOptions(rows: 40000)
        o.firstYear = 2022
        o.lastYear = 2024
        o.rowsPerFile = 15000
        o.seed = 77
        _ = try! FeedGenerator.generate(o, into: dir)
        return build([dir], partitioning: .year, blockRows: 10000)
    }()

    /// Every real file in ../shared/usgs (nil when absent).
    static let real: Loaded? = {
        guard let d = TestSupport.usgsDirectory else { return nil }
        return build([d.path])
    }()
}
