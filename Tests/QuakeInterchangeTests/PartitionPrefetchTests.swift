import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeInterchange

/// Reading one partition ahead, against reading each in turn: the same batches in the same
/// order, a reader's error at the partition that raised it, and nothing past the end.
@Suite struct PartitionPrefetchTests {
    struct Boom: Error, Equatable { let k: Int }

    static func batch(_ k: Int) -> RowBatch {
        var b = RowBatch()
        b.count = k
        return b
    }

    @Test func theSameBatchesInOrder() throws {
        let prefetch = PartitionPrefetch(count: 200) { k in Self.batch(k) }
        var counts: [Int] = []
        for k in 0..<200 { counts.append(try prefetch.take(k).count) }
        #expect(counts == Array(0..<200))
        #expect(try prefetch.take(200).count == 0, "a partition past the end has rows")
    }

    @Test func aReadersErrorAtItsPartition() {
        let prefetch = PartitionPrefetch(count: 30) { k in
            if k == 13 { throw Boom(k: k) }
            return Self.batch(k)
        }
        var counts: [Int] = []
        var failure: (any Error)?
        for k in 0..<30 {
            do { counts.append(try prefetch.take(k).count) } catch { failure = error; break }
        }
        #expect(counts == Array(0..<13))
        #expect(failure as? Boom == Boom(k: 13))
    }
}
