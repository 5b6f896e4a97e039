import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// A rewrite of a partition's rows indexes again only the granules and scan units its changed
/// rows fall in (``PartitionFile/PreviousIndexes``): the file must be byte for byte the one
/// built with every index whole, whatever changed: magnitudes to values the partition holds,
/// to new ones, away from the last row of a value, to null; coordinates and depths; places and
/// group columns (then those indexes are built whole).
@Suite struct IndexPatchTests {
    /// What one trial changes in the rows it picks.
    enum Change: CaseIterable {
        /// A magnitude another row of the partition holds.
        case knownMagnitude
        /// A magnitude no row holds (the distinct values change).
        case newMagnitude
        /// Null magnitudes.
        case nullMagnitude
        /// Every row of one magnitude moved to another (that value leaves).
        case vanishingMagnitude
        /// Latitude, longitude and depth.
        case coordinates
        /// A new place text (the place chunks are encoded again).
        case place
        /// A new network (a group column is encoded again).
        case network

        /// The columns the change writes.
        var columns: Set<Column> {
            switch self {
            case .knownMagnitude, .newMagnitude, .nullMagnitude, .vanishingMagnitude: [.mag]
            case .coordinates: [.latitude, .longitude, .depth]
            case .place: [.place]
            case .network: [.net]
            }
        }
    }

    @Test(arguments: [(Partitioning.month, Manifest.defaultBlockRows), (.year, 4096)])
    func patchedIndexesEqualWholeOnes(partitioning: Partitioning, blockRows: Int) throws {
        let feed = try DirectPartitionsTests.generate("index-patch", rows: 12_000, perFile: 12_000, overlap: 0,
                                                      seed: 7001)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.map { feed + "/" + $0 }
        let store = try Store.openOrCreate(path: TestSupport.tempDir("index-patch-store"), partitioning: partitioning,
                                           blockRows: blockRows)
        try store.load(files)
        var rng = SplitMix64(seed: 7002 + UInt64(blockRows))
        var patched = 0
        var trials = 0
        var sparseTrials = 0
        for entry in store.manifest.partitions.prefix(6) {
            let reader = PartitionReader(storePath: store.path, entry: entry)
            let base = try reader.readAll()
            let regions = try reader.checkedIndexRegions()
            #expect(regions.place != nil && regions.aggregates != nil)
            let granules = try reader.granules()
            for change in Change.allCases {
                for picks in [1, 3, 40] {
                    var rows = Array(Set((0..<picks).map { _ in Int(rng.next() % UInt64(base.count)) })).sorted()
                    var batch = base
                    Self.apply(change, to: &batch, rows: &rows, rng: &rng)
                    let previous = PartitionFile.PreviousIndexes(
                        granules: granules, place: regions.place, aggregates: regions.aggregates, rows: rows,
                        placeKept: change != .place, groupsKept: change != .network)
                    let whole = PartitionFile.encode(batch, blockRows: blockRows)
                    let fromPrevious = PartitionFile.encode(batch, blockRows: blockRows, previous: previous)
                    #expect(fromPrevious.bytes == whole.bytes, "\(change), \(picks) rows of \(entry.key)")
                    trials += 1
                    // the unchanged numbers held in the changed rows' granules only, where allowed
                    var sparse = previous
                    sparse.sparse = PartitionFile.PreviousIndexes.sparseColumns(
                        changed: change.columns, granules: granules, rows: batch.count, place: regions.place,
                        aggregates: regions.aggregates)
                    let kept = Set(sparse.granules(rows: batch.count))
                    var thin = batch
                    for column in sparse.sparse {
                        for row in 0..<thin.count where !kept.contains(row / GranuleIndex.granuleRows) {
                            thin.ints[column.rawValue][row] = RowBatch.null
                        }
                    }
                    // the sparse columns' chunks copied from the whole file, as the merge copies them
                    let wholeReader = try Self.reader(whole.bytes, rows: batch.count)
                    var reused: [Int: PartitionFile.ColumnImage] = [:]
                    for column in sparse.sparse { reused[column.rawValue] = try wholeReader.columnImage(column) }
                    let fromSparse = PartitionFile.encode(thin, blockRows: blockRows, reused: reused, previous: sparse)
                    #expect(fromSparse.bytes == whole.bytes,
                            "\(change), \(picks) rows, sparse \(sparse.sparse.map(\.name).sorted())")
                    if !sparse.sparse.isEmpty { sparseTrials += 1 }
                    if let patchedIndex = GranuleIndex(patching: granules, batch,
                                                       granules: previous.granules(rows: batch.count)) {
                        #expect(patchedIndex == GranuleIndex(batch))
                        patched += 1
                    }
                }
            }
        }
        #expect(trials >= 40)
        #expect(sparseTrials >= trials / 3)
        // the patch is taken where it can be, not refused everywhere
        #expect(patched >= trials / 3)
    }

    /// A reader of a file image of `rows` rows, written to a scratch store.
    private static func reader(_ image: [UInt8], rows: Int) throws -> PartitionReader {
        let dir = TestSupport.tempDir("index-patch-image")
        try FileIO.makeDirectory(dir + "/partitions")
        try FileIO.writeFile(dir + "/partitions/p.qkp", image)
        return PartitionReader(storePath: dir, entry: PartitionEntry(key: "p", file: "p.qkp", rows: rows,
                                                                     minTime: 0, maxTime: 0, bytes: image.count))
    }

    /// The scaled decimal `mantissa / 10^scale` (``ScaledDecimal``'s encoding).
    private static func decimal(_ mantissa: Int64, scale: Int64) -> Int64 { mantissa << 6 | scale }

    /// Changes `rows` of `batch` by `change`; `rows` grows to every row a vanishing magnitude moves.
    private static func apply(_ change: Change, to batch: inout RowBatch, rows: inout [Int],
                              rng: inout SplitMix64) {
        let mag = Column.mag.rawValue
        switch change {
        case .knownMagnitude:
            for row in rows { batch.ints[mag][row] = batch.ints[mag][Int(rng.next() % UInt64(batch.count))] }
        case .newMagnitude:
            for row in rows { batch.ints[mag][row] = decimal(9_876 + Int64(row % 3), scale: 3) }
        case .nullMagnitude:
            for row in rows { batch.ints[mag][row] = RowBatch.null }
        case .vanishingMagnitude:
            let value = batch.ints[mag][rows[0]]
            let other = batch.ints[mag].first { $0 != value && $0 != RowBatch.null } ?? RowBatch.null
            rows = batch.ints[mag].indices.filter { batch.ints[mag][$0] == value }
            for row in rows { batch.ints[mag][row] = other }
        case .coordinates:
            for row in rows {
                for column in [Column.latitude, .longitude, .depth] {
                    batch.ints[column.rawValue][row] = decimal(Int64(rng.next() % 9_000) - 2_000, scale: 2)
                }
            }
        case .place:
            var text = ByteArena()
            text.append(Array("7 km SSW of Patchville, Testland".utf8))
            batch.text[Column.place.rawValue] = batch.text[Column.place.rawValue]
                .replacing(rows.map { (row: $0, from: text, source: 0) })
        case .network:
            var text = ByteArena()
            text.append(Array("zz".utf8))
            batch.text[Column.net.rawValue] = batch.text[Column.net.rawValue]
                .replacing(rows.map { (row: $0, from: text, source: 0) })
        }
    }
}
