import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The parser's padded rows against rows begun one at a time: the same values, rejected rows
/// and all, give equal batches.
@Suite struct RowBatchPaddedTests {
    @Test(arguments: [1, 7, 4096]) func paddedRowsEqualRowsBegunOneByOne(_ padRows: Int) {
        var rng = SplitMix64(seed: UInt64(padRows))
        var plain = RowBatch(), padded = RowBatch()
        var pad = 0
        var rejected = 0
        for row in 0..<3000 {
            // the same random fields for both, then the same verdict
            var fields: [(Column, Int64?, [UInt8])] = []
            for c in Column.allCases where rng.next() % 3 != 0 {
                let v = Int64(bitPattern: rng.next() >> 8)
                let s = Array("v\(rng.next() % 1000)".utf8)
                fields.append((c, v, s))
            }
            let reject = rng.next() % 5 == 0
            plain.beginRow()
            if padded.count == pad {
                pad += padRows
                padded.padInts(to: pad)
            }
            padded.beginPaddedRow()
            for (c, v, s) in fields {
                if RowBatch.isInt(c) {
                    plain.setInt(c, v ?? 0)
                    padded.setInt(c, v ?? 0)
                } else {
                    plain.setText(c, s)
                    padded.setText(c, s)
                }
            }
            if reject {
                plain.abandonRow()
                padded.abandonPaddedRow()
                rejected += 1
            } else {
                plain.endRow(present: UInt64(row), seq: Int64(row))
                padded.endRow(present: UInt64(row), seq: Int64(row))
            }
        }
        padded.trimInts()
        #expect(rejected > 300 && plain.count == 3000 - rejected)
        #expect(padded == plain)
        #expect(RowBatch.intColumns.allSatisfy { padded.ints[$0].count == padded.count })
    }
}
