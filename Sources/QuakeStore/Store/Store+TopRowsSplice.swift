import QuakeFormat

extension Store {
    /// The projection written from the old file `reader` when rows enter or leave it after its
    /// first blocks: those blocks (``TopRows/blockRows`` rows each) hold the same rows at the same
    /// places, so their chunks are copied as they lie; the old rows after them are read, merged
    /// with `added` and encoded. A commit in the newest months changes only the last blocks.
    ///
    /// `kept` are the old file's rows that stay (ascending), `times` its times, `added` the rows
    /// that enter, in (time, id) order. The bytes are those a rebuild writes: the indexes are
    /// built from every row's numbers, the kept blocks' decoded for them. Nil when no block can
    /// be kept (a change in the first block, a file of another block size or an older layout)
    /// or the file reads damaged: the caller rebuilds.
    /// - Complexity: O(projection rows) for the five indexed numbers; O(rows after the kept
    ///   blocks) for the other columns.
    static func splicedTopRows(_ reader: PartitionReader, kept: [Int], times: [Int64],
                               added: RowBatch) -> (batch: RowBatch, reused: [Int: PartitionFile.ColumnImage])? {
        let blockRows = TopRows.blockRows
        guard let directory = try? reader.directory(), directory.blockRows == blockRows,
              (try? reader.isCurrentFormat()) == true else { return nil }
        let count = directory.blockSizes.reduce(0, +)
        guard times.count == count, kept.allSatisfy({ $0 >= 0 && $0 < count }) else { return nil }
        // the old rows before the first that leaves, and before the first added row's time, keep their places
        var unchanged = 0
        while unchanged < kept.count && kept[unchanged] == unchanged { unchanged += 1 }
        if let firstAdded = added.ints[Column.time.rawValue].first {
            var low = 0
            var high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < firstAdded { low = middle + 1 } else { high = middle }
            }
            unchanged = Swift.min(unchanged, low)
        }
        let keptBlocks = unchanged / blockRows
        guard keptBlocks > 0 else { return nil }
        let prefixRows = keptBlocks * blockRows
        let numbers = PartitionFile.indexedColumns.union(UnitAggregates.metricColumns)
        var batch = RowBatch()
        var reused: [Int: PartitionFile.ColumnImage] = [:]
        do throws(QuakeError) {
            let tail = RowBatch.merging(try reader.rows(at: Array(kept[prefixRows...])), added)
            batch.count = prefixRows + tail.count
            for column in Column.allCases {
                let index = column.rawValue
                reused[index] = try reader.columnImage(column, blocks: keptBlocks)
                if RowBatch.isInt(column) {
                    var values: [Int64] = []
                    values.reserveCapacity(batch.count)
                    if numbers.contains(column) {
                        for block in 0..<keptBlocks { values.append(contentsOf: try reader.ints(column, block: block)) }
                        guard values.count == prefixRows else { return nil }
                    } else {
                        // the kept blocks' values are copied, never read: nulls stand in for them
                        values.append(contentsOf: repeatElement(RowBatch.null, count: prefixRows))
                    }
                    values.append(contentsOf: tail.ints[index])
                    batch.ints[index] = values
                } else {
                    var arena = ByteArena()
                    arena.ends = Array(repeating: 0, count: prefixRows)
                    arena.append(contentsOf: tail.text[index])
                    batch.text[index] = arena
                }
            }
            if let provenance = try reader.provenance() {
                guard provenance.present.count == count else { return nil }
                batch.present = Array(provenance.present[..<prefixRows])
                batch.origins = provenance.origins.filter { $0.key < prefixRows }
            } else {
                batch.present = Array(repeating: Column.allMask, count: prefixRows)
            }
            batch.present.append(contentsOf: tail.present)
            for (row, origins) in tail.origins { batch.origins[prefixRows + row] = origins }
            batch.seq = Array(repeating: Int64.min, count: prefixRows) + tail.seq
        } catch {
            return nil
        }
        return (batch, reused)
    }
}
