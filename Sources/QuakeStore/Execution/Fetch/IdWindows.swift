import Synchronization
import QuakeFormat
import QuakeSupport

/// Event ids one query has decoded already, per granule. A top-N decodes the ids of the rows
/// that tie on its key to order them; it decodes each granule's whole stretch of candidate rows,
/// and the page built next reads its ids from here instead of decompressing the same zstd frames
/// again. Lives as long as one query and holds at most ``budget`` rows.
package final class IdWindows: Sendable {
    /// A granule. Tables of keys hold ``hash`` in an ``IntTable`` and compare keys with
    /// ``same(_:)``: a one-shot query pays for each new hashed type it instantiates.
    package struct Key: Sendable {
        package let partition: Int
        package let block: Int
        /// The granule's number within its block.
        package let granule: Int

        package init(partition: Int, block: Int, rows: Range<Int>) {
            self.partition = partition
            self.block = block
            granule = rows.lowerBound / GranuleIndex.granuleRows
        }

        package var hash: UInt64 {
            var mixed = UInt64(truncatingIfNeeded: partition) &* 0xFF51_AFD7_ED55_8CCD
            mixed = (mixed ^ UInt64(truncatingIfNeeded: block)) &* 0xC4CE_B9FE_1A85_EC53
            mixed = (mixed ^ UInt64(truncatingIfNeeded: granule)) &* 0xFF51_AFD7_ED55_8CCD
            return mixed ^ mixed >> 29
        }

        package func same(_ o: Key) -> Bool { partition == o.partition && block == o.block && granule == o.granule }
    }

    private struct Window: Sendable {
        let key: Key
        let rows: Range<Int>
        let ids: ByteArena
    }

    private struct State: Sendable {
        var table = IntTable()
        var windows: [Window] = []
        var rows = 0

        func find(_ key: Key) -> Window? {
            table.first(key.hash) { windows[$0].key.same(key) }.map { windows[$0] }
        }
    }

    /// Rows kept at most, over all granules.
    package static let budget = 65_536

    private let state = Mutex(State())

    package init() {}

    /// Keeps `ids`, the ids of block rows `rows` of granule `key`, while the budget lasts.
    package func put(_ key: Key, rows: Range<Int>, ids: ByteArena) {
        guard ids.count == rows.count else { return }
        state.locked { s in
            guard s.find(key) == nil, s.rows + rows.count <= IdWindows.budget else { return }
            s.table.add(key.hash, s.windows.count)
            s.windows.append(Window(key: key, rows: rows, ids: ids))
            s.rows += rows.count
        }
    }

    /// The ids of block rows `rows` of granule `key`, when a stretch holding them was kept.
    package func ids(_ key: Key, rows: Range<Int>) -> ByteArena? {
        guard let window = state.locked({ $0.find(key) }), window.rows.lowerBound <= rows.lowerBound,
              rows.upperBound <= window.rows.upperBound else { return nil }
        let have = window.rows
        let ids = window.ids
        if have == rows { return ids }
        return ids.slice((rows.lowerBound - have.lowerBound)..<(rows.upperBound - have.lowerBound))
    }
}
