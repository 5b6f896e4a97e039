import Testing
@testable import QuakeFormat
@testable import QuakeStore
@testable import QuakeTestSupport
import QuakeGenerator

/// Reading picked rows of a partition (`PartitionReader.rows(at:)`: frame by frame when sparse,
/// one decode of the block side by side when dense) against the whole partition gathered; and
/// merging two batches in (time, id) order (`RowBatch.merging`, the projection's rebuild) against
/// appending them and sorting. On generated partitions of several blocks and on a real feed.
@Suite struct RowsPickAndMergeTests {
    /// Row sets of a partition of `rows` rows: none, every row, single rows at the ends, every
    /// other row, runs, and random picks of 0.1-60 % of the rows.
    static func picks(rows: Int, _ rng: inout SplitMix64) -> [[Int]] {
        guard rows > 0 else { return [[]] }
        var out: [[Int]] = [[], Array(0..<rows), [0], [rows - 1], Array(stride(from: 0, to: rows, by: 2)),
                            Array((rows / 3)..<Swift.min(rows, rows / 3 + 700))]
        for permille in [1, 10, 50, 300, 600] {
            out.append((0..<rows).filter { _ in rng.next() % 1000 < UInt64(permille) })
        }
        return out
    }

    /// Each row of `picked` against row `rows[k]` of `whole`: the same values and carried fields.
    static func expectRows(_ picked: RowBatch, equal rows: [Int], of whole: RowBatch, _ label: String) {
        #expect(picked.count == rows.count, "\(label): \(picked.count) rows for \(rows.count)")
        guard picked.count == rows.count else { return }
        for (position, row) in rows.enumerated() {
            #expect(picked.sameContent(position, whole, row), "\(label): row \(row)")
            #expect(picked.present[position] == whole.present[row], "\(label): row \(row) present")
            #expect((picked.origins[position] ?? []) == (whole.origins[row] ?? []), "\(label): row \(row) origins")
        }
    }

    static func checkPicks(_ store: Store, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for entry in store.manifest.partitions {
            let reader = store.reader(entry)
            let whole = try reader.readAll()
            for rows in Self.picks(rows: whole.count, &rng) {
                Self.expectRows(try reader.rows(at: rows), equal: rows, of: whole, "\(entry.file) \(rows.count) picks")
            }
        }
    }

    @Test func pickedRowsEqualTheWholePartitionGathered() throws {
        let loaded = Fixtures.generate("picks", rows: 24_000, years: 2023...2023, perFile: 9_000, seed: 6_868,
                                       partitioning: .year, blockRows: 4_096)
        #expect(loaded.store.manifest.partitions.count == 1)
        try Self.checkPicks(loaded.store, seed: 6_869)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func pickedRowsOfARealFeedEqualTheWholePartitionGathered() throws {
        let file = try #require(TestSupport.usgs("csv_2018-05-09_2018-06-08_14431.csv"))
        let loaded = Fixtures.build([file], partitioning: .month, blockRows: 4_096)
        try Self.checkPicks(loaded.store, seed: 6_870)
    }

    /// `whole` split into two ordered parts (rows picked at random, and the rest), with origins
    /// set on some rows, merged: equal to the naive append and sort; a part out of order is sorted.
    static func checkMerges(_ whole: RowBatch, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var batch = whole
        for row in 0..<batch.count where rng.next() % 9 == 0 {
            batch.origins[row] = [FieldOrigin(mask: rng.next() & 0xFF, updated: Int64(row))]
        }
        for permille in [0, 1, 30, 500, 970, 1000] {
            let second = (0..<batch.count).filter { _ in rng.next() % 1000 < UInt64(permille) }
            let chosen = Set(second)
            let first = (0..<batch.count).filter { !chosen.contains($0) }
            let firstRows = batch.gather(first)
            var secondRows = batch.gather(second)
            if permille == 30 { secondRows = secondRows.gather(Array((0..<secondRows.count).reversed())) }
            var naive = firstRows
            naive.append(contentsOf: secondRows)
            naive = naive.gather(naive.timeIdOrder())
            let merged = RowBatch.merging(firstRows, secondRows)
            #expect(merged.count == batch.count)
            Self.expectRows(merged, equal: Array(0..<naive.count), of: naive, "merge of \(permille) per mille")
            #expect(merged.seq == naive.seq)
            #expect(merged.isTimeIdOrdered())
        }
    }

    @Test func mergingEqualsAppendingAndSorting() throws {
        let loaded = Fixtures.generate("merges", rows: 9_000, years: 2022...2022, perFile: 4_000, seed: 6_871,
                                       partitioning: .year)
        Self.checkMerges(try TestSupport.allRows(loaded.store), seed: 6_872)
        Self.checkMerges(RowBatch(), seed: 6_873)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func mergingRealRowsEqualsAppendingAndSorting() throws {
        let file = try #require(TestSupport.usgs("csv_2013-01-01_2013-05-31_16685.csv"))
        let loaded = Fixtures.build([file], partitioning: .year)
        Self.checkMerges(try TestSupport.allRows(loaded.store), seed: 6_874)
    }
}
