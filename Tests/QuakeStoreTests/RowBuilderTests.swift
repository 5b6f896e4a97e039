import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The CSV parser's row builder against rows begun one at a time on a ``RowBatch``: the same
/// fields, rejected rows and all, give equal batches, batch after batch from one builder whose
/// text buffers start small and grow.
@Suite struct RowBuilderTests {
    @Test(arguments: [1, 7, 1000]) func builtRowsEqualRowsBegunOneByOne(_ capacity: Int) {
        var rng = SplitMix64(seed: UInt64(capacity))
        var builder = RowBuilder(capacity: capacity)
        var plain = RowBatch(), built = RowBatch()
        var rejected = 0
        for row in 0..<3000 {
            // the same random fields for both, then the same verdict; long text now and then
            var fields: [(Column, Int64, [UInt8])] = []
            for c in Column.allCases where rng.next() % 3 != 0 {
                let v = Int64(bitPattern: rng.next() >> 8)
                let long = rng.next() % 50 == 0 ? String(repeating: "x", count: 5000) : ""
                fields.append((c, v, Array("v\(rng.next() % 1000)\(long)".utf8)))
            }
            let reject = rng.next() % 5 == 0
            plain.beginRow()
            for (c, v, s) in fields {
                if RowBatch.isInt(c) {
                    plain.setInt(c, v)
                    builder.setInt(c, v)
                    let back = builder.currentInt(c)
                    #expect(back == v)
                } else {
                    plain.setText(c, s)
                    s.withUnsafeBytes { builder.setText(c, $0) }
                    let empty = builder.currentTextIsEmpty(c)
                    #expect(!empty)
                }
            }
            if reject {
                plain.abandonRow()
                builder.abandonRow()
                rejected += 1
                var cleared = true
                for c in Column.allCases {
                    cleared = cleared && (RowBatch.isInt(c) ? builder.currentInt(c) == RowBatch.null
                                                            : builder.currentTextIsEmpty(c))
                }
                #expect(cleared)
            } else {
                plain.endRow(present: UInt64(row), seq: Int64(row))
                builder.endRow(present: UInt64(row), seq: Int64(row))
            }
            if builder.isFull { built.append(contentsOf: builder.finish()) }
        }
        if builder.count > 0 { built.append(contentsOf: builder.finish()) }
        #expect(rejected > 300 && plain.count == 3000 - rejected)
        #expect(built == plain)
        let left = builder.count
        let empty = builder.finish()
        #expect(left == 0 && empty == RowBatch())
    }
}
