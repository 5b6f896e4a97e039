import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeStore
@testable import QuakeTestSupport
import QuakeGenerator

/// The projection spliced from its old file (`Store.splicedTopRows`: the blocks before the first
/// row that enters or leaves copied as they lie, the rest read, merged and encoded) against the
/// same rows written whole: the same bytes. On generated rows and a real feed's, with carried
/// fields, rows leaving, rows entering between the old ones and at the end; none when a change
/// falls in the first block or the old file has another block size.
@Suite struct TopRowsSpliceTests {
    /// Writes `rows` as a projection file of `blockRows` rows a block under a fresh folder and
    /// returns its reader.
    static func oldFile(_ rows: RowBatch, blockRows: Int = TopRows.blockRows) throws -> PartitionReader {
        let store = TestSupport.tempDir("splice")
        try FileManager.default.createDirectory(atPath: store + "/partitions", withIntermediateDirectories: true)
        let entry = try PartitionWriter.write(rows, key: "top", file: "top.g1.qkt", storePath: store,
                                              blockRows: blockRows)
        return PartitionReader(storePath: store, entry: entry)
    }

    /// `all` (in (time, id) order) with fields carried on some rows, as versions folded from
    /// older ones are.
    static func withOrigins(_ all: RowBatch, _ rng: inout SplitMix64) -> RowBatch {
        var rows = all
        for row in 0..<rows.count where rng.next() % 13 == 0 {
            rows.present[row] = Column.allMask & ~(1 << UInt64(Column.nst.rawValue))
            rows.origins[row] = [FieldOrigin(mask: 1 << UInt64(Column.nst.rawValue), updated: Int64(row) * 1000)]
        }
        return rows
    }

    /// Splits `all` into an old file (even rows) and rows that enter (odd rows from `enterFrom`
    /// of `all` on), drops old rows from `leaveFrom` on at random, splices, and compares the
    /// file with the merged rows written whole. Returns the blocks kept (0 when none could be).
    static func check(_ all: RowBatch, enterFrom: Int, leaveFrom: Int, seed: UInt64) throws -> Int {
        var rng = SplitMix64(seed: seed)
        let rows = Self.withOrigins(all, &rng)
        let oldRows = rows.gather(Array(stride(from: 0, to: rows.count, by: 2)))
        let entering = rows.gather(Array(stride(from: enterFrom | 1, to: rows.count, by: 2)).filter { _ in
            rng.next() % 5 == 0
        })
        let kept = (0..<oldRows.count).filter { $0 < leaveFrom || rng.next() % 7 != 0 }
        let reader = try Self.oldFile(oldRows)
        let whole = RowBatch.merging(oldRows.gather(kept), entering)
        let expected = PartitionFile.encode(whole, blockRows: TopRows.blockRows).bytes
        guard let spliced = Store.splicedTopRows(reader, kept: kept, times: oldRows.ints[Column.time.rawValue],
                                                 added: entering) else { return 0 }
        let written = PartitionFile.encode(spliced.batch, blockRows: TopRows.blockRows, reused: spliced.reused)
        #expect(written.bytes == expected, "enter from \(enterFrom), leave from \(leaveFrom)")
        #expect(spliced.batch.count == whole.count)
        return spliced.reused[Column.id.rawValue]?.chunks.count ?? 0
    }

    static func checkAll(_ all: RowBatch, seed: UInt64) throws {
        let blockRows = TopRows.blockRows
        let oldCount = (all.count + 1) / 2
        try #require(oldCount > 3 * blockRows, "needs an old file of more than three blocks")
        // rows enter and leave in the last blocks only: the first blocks are kept
        let late = try Self.check(all, enterFrom: 2 * (oldCount - blockRows / 2), leaveFrom: oldCount - blockRows / 3,
                                  seed: seed)
        #expect(late == (oldCount - blockRows / 2) / blockRows)
        // rows only leave, or only enter, after the second block
        #expect(try Self.check(all, enterFrom: all.count, leaveFrom: 2 * blockRows + 17, seed: seed + 1) == 2)
        #expect(try Self.check(all, enterFrom: 2 * (2 * blockRows + 5), leaveFrom: oldCount, seed: seed + 2) == 2)
        // nothing changes but rows added after the last old row: every full block kept
        let appended = try Self.check(all, enterFrom: all.count - 1, leaveFrom: oldCount, seed: seed + 3)
        #expect(appended >= (oldCount - 1) / blockRows - 1)
        // a change in the first block keeps none: the caller writes the file whole
        #expect(try Self.check(all, enterFrom: 2 * 100, leaveFrom: oldCount, seed: seed + 4) == 0)
        #expect(try Self.check(all, enterFrom: all.count, leaveFrom: 50, seed: seed + 5) == 0)
    }

    @Test func aSplicedProjectionHasTheBytesOfOneWrittenWhole() throws {
        let loaded = Fixtures.generate("splice", rows: 36_000, years: 2021...2022, perFile: 12_000, seed: 6_880)
        let all = try TestSupport.allRows(loaded.store)
        try Self.checkAll(all.gather(Array(0..<Swift.min(all.count, 9 * TopRows.blockRows))), seed: 6_881)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aSplicedProjectionOfRealRowsHasTheBytesOfOneWrittenWhole() throws {
        let files = try ["csv_2005-01-01_2010-12-31_14851.csv", "csv_2013-01-01_2013-05-31_16685.csv"].map {
            try #require(TestSupport.usgs($0))
        }
        let loaded = Fixtures.build(files, partitioning: .year)
        try Self.checkAll(try TestSupport.allRows(loaded.store), seed: 6_882)
    }

    @Test func anOldFileOfAnotherBlockSizeIsNotSpliced() throws {
        let all = try TestSupport.allRows(Fixtures.generated.store)
        let oldRows = all.gather(Array(0..<(3 * TopRows.blockRows)))
        let reader = try Self.oldFile(oldRows, blockRows: 65_536)
        let added = all.gather([3 * TopRows.blockRows + 1])
        #expect(Store.splicedTopRows(reader, kept: Array(0..<oldRows.count), times: oldRows.ints[Column.time.rawValue],
                                     added: added) == nil)
        let sameSize = try Self.oldFile(oldRows)
        #expect(Store.splicedTopRows(sameSize, kept: Array(0..<oldRows.count),
                                     times: oldRows.ints[Column.time.rawValue], added: added) != nil)
    }
}
