import Foundation
import QuakeStore
import QuakeFormat
import QuakeGenerator

/// Stores the test targets share, built once per test run.
package enum Fixtures {
    package struct Loaded: Sendable {
        package let store: Store
        package let quakes: [Quake]
    }

    package static func build(_ paths: [String], partitioning: Partitioning = .month,
                              blockRows: Int = 65536) -> Loaded {
        let directory = TestSupport.tempDir("fixture")
        let store = try! Store.openOrCreate(path: directory + "/store", partitioning: partitioning,
                                            blockRows: blockRows)
        try! store.load(paths)
        let batch = try! TestSupport.allRows(store)
        return Loaded(store: store, quakes: (0..<batch.count).map { Quake(batch: batch, row: $0) })
    }

    /// A store of generated events in overlapping snapshots of `perFile` rows.
    package static func generate(_ tag: String, rows: Int, years: ClosedRange<Int>, perFile: Int, seed: UInt64,
                         partitioning: Partitioning = .month, blockRows: Int = 65536,
                         independent: Bool = false) -> Loaded {
        let directory = TestSupport.tempDir(tag)
        var options = GeneratorOptions(rows: rows)
        options.firstYear = years.lowerBound
        options.lastYear = years.upperBound
        options.rowsPerFile = perFile
        options.seed = seed
        options.independent = independent
        _ = try! FeedGenerator.generate(options, into: directory)
        return build([directory], partitioning: partitioning, blockRows: blockRows)
    }

    /// 30,000 generated events over 2023-2024 in overlapping snapshots.
    package static let generated = generate("gen", rows: 30000, years: 2023...2024, perFile: 12000, seed: 2024)

    /// 40,000 generated events over 2022-2024 in year partitions of blocks of 10,000 rows: many
    /// granules per partition, granules cut by block edges, text in several zstd frames.
    package static let large = generate("large", rows: 40000, years: 2022...2024, perFile: 15000, seed: 77,
                                partitioning: .year, blockRows: 10000)

    /// 20,000 generated events over 2023-2024 whose columns vary independently (`quakes generate
    /// --independent`): no zone map or catalog can lean on a network's places or coordinates.
    package static let independent = generate("indep", rows: 20000, years: 2023...2024, perFile: 8000, seed: 31,
                                      independent: true)

    /// Every real file in ../shared/usgs (nil when absent).
    package static let real: Loaded? = {
        guard let directory = TestSupport.usgsDirectory else { return nil }
        return build([directory.path])
    }()
}
