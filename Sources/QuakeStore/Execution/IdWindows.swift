import Synchronization
import QuakeFormat

/// Event ids one query has decoded already, per granule. A top-N decodes the ids of the rows
/// that tie on its key to order them; it decodes each granule's whole stretch of candidate rows,
/// and the page built next reads its ids from here instead of decompressing the same zstd frames
/// again. Lives as long as one query and holds at most ``budget`` rows.
package final class IdWindows: Sendable {
    package struct Key: Hashable, Sendable {
        package let partition: Int
        package let block: Int
        /// The granule's number within its block.
        package let granule: Int

        package init(partition: Int, block: Int, rows: Range<Int>) {
            self.partition = partition
            self.block = block
            granule = rows.lowerBound / GranuleIndex.granuleRows
        }
    }

    /// Rows kept at most, over all granules.
    package static let budget = 65_536

    private let state = Mutex<(windows: [Key: (rows: Range<Int>, ids: ByteArena)], rows: Int)>(([:], 0))

    package init() {}

    /// Keeps `ids`, the ids of block rows `rows` of granule `key`, while the budget lasts.
    package func put(_ key: Key, rows: Range<Int>, ids: ByteArena) {
        guard ids.count == rows.count else { return }
        state.withLock { s in
            guard s.windows[key] == nil, s.rows + rows.count <= IdWindows.budget else { return }
            s.windows[key] = (rows, ids)
            s.rows += rows.count
        }
    }

    /// The ids of block rows `rows` of granule `key`, when a stretch holding them was kept.
    package func ids(_ key: Key, rows: Range<Int>) -> ByteArena? {
        guard let (have, ids) = state.withLock({ $0.windows[key] }),
              have.lowerBound <= rows.lowerBound, rows.upperBound <= have.upperBound else { return nil }
        if have == rows { return ids }
        return ids.slice((rows.lowerBound - have.lowerBound)..<(rows.upperBound - have.lowerBound))
    }
}
