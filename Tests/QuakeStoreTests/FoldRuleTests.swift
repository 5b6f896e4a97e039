import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The fold rule as a property: random versions of random events, delivered in random shapes
/// (CSV of 22 and of 15 columns, GeoJSON, `Quake` values), split at random into loads and
/// upserts and shuffled, give the store one load of them all gives, and the naive fold of the
/// table in docs/Inputs.md, field by field.
@Suite struct FoldRuleTests {
    typealias Delivery = FoldScenario.Delivery

    // MARK: the property

    /// Writes `deliveries` in random groups: each group one load of files, and its `Quake`
    /// values one upsert.
    static func writeInGroups(_ deliveries: [Delivery], to store: Store, folder: String,
                              using random: inout some RandomNumberGenerator) throws -> Int {
        var start = 0
        var writes = 0
        while start < deliveries.count {
            let size = Int.random(in: 1...max(1, deliveries.count / 3), using: &random)
            let group = Array(deliveries[start..<min(deliveries.count, start + size)])
            let values = group.filter { $0.shape == .value }.map(\.quake)
            let asFiles = group.filter { $0.shape != .value }
            // the upsert and the load of one group go in either order
            let upsertFirst = Bool.random(using: &random)
            if upsertFirst && !values.isEmpty { try store.upsert(values) }
            let paths = try FoldScenario.files(asFiles, in: folder, tag: "g\(writes)")
            if !paths.isEmpty { try store.load(paths, options: FoldScenario.loadOptions) }
            if !upsertFirst && !values.isEmpty { try store.upsert(values) }
            writes += 1
            start += size
        }
        return writes
    }

    @Test(arguments: 0..<24)
    func anyGroupingAndOrderFoldsAsOneLoad(trial: Int) throws {
        var random = SplitMix64(seed: UInt64(4_242 + trial))
        let deliveries = FoldScenario.deliveries(events: 30, using: &random).shuffled(using: &random)
        let folder = TestSupport.tempDir("fold\(trial)")
        let oneLoad = try Store.openOrCreate(path: folder + "/one.store")
        try oneLoad.load(try FoldScenario.files(deliveries, in: folder, tag: "all"), options: FoldScenario.loadOptions)
        let grouped = try Store.openOrCreate(path: folder + "/grouped.store")
        let writes = try Self.writeInGroups(deliveries, to: grouped, folder: folder, using: &random)
        let expected = FoldScenario.naiveFold(deliveries)
        let single = try FoldScenario.contents(oneLoad)
        let many = try FoldScenario.contents(grouped)
        #expect(writes >= 1)
        #expect(FoldScenario.filledFromOlder(deliveries) > 0, "the trial folds no field from an older version")
        #expect(FoldScenario.differences(single, expected).isEmpty, "one load against the naive fold")
        #expect(FoldScenario.differences(many, expected).isEmpty, "\(writes) writes against the naive fold")
        #expect(FoldScenario.differences(many, single).prefix(5) == [], "\(writes) writes against one load")
        _ = try grouped.verify()
    }

    /// The real feeds (CSV of 22 and 15 columns, GeoJSON, overlapping snapshots) loaded in one
    /// load, one file at a time, and one file at a time backwards, give one store.
    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs"))
    func realFeedsFoldAlikeWhateverTheGrouping() throws {
        let files = TestSupport.usgsFiles.compactMap { TestSupport.usgs($0) }
        #expect(files.count >= 20)
        let folder = TestSupport.tempDir()
        let oneLoad = try Store.openOrCreate(path: folder + "/one.store")
        try oneLoad.load(files)
        let single = try FoldScenario.contents(oneLoad)
        for (name, order) in [("forwards", files), ("backwards", Array(files.reversed()))] {
            let store = try Store.openOrCreate(path: folder + "/\(name).store")
            for file in order { try store.load([file]) }
            let many = try FoldScenario.contents(store)
            #expect(many.count == single.count)
            let differing = FoldScenario.differences(many, single)
            #expect(differing.isEmpty, "\(name): \(differing.count) events differ, such as \(differing.prefix(3))")
            _ = try store.verify()
        }
        // the GeoJSON-only fields of the 2019 snapshot's events survive the CSV twin loaded after it
        let felt = single.values.filter { $0.felt != nil }.count
        #expect(felt > 0)
    }
}

