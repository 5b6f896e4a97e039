import QuakeFormat

extension Store {
    /// What a commit can take from the old magnitude projection for the rows of the partitions
    /// it wrote or emptied.
    enum OldProjectionUse {
        /// Nothing: the projection is built again from the rows.
        case rebuild
        /// Its rows of those partitions read damaged: the store is left without one.
        case damaged
        /// Those rows equal the new ones field for field: the old file serves.
        case serves
        /// The new rows are the old ones at the same places (the same times and ids, so the same
        /// rows of the file), some fields changed: `stored` holds the old ones.
        case samePlaces(stored: RowBatch)
    }

    /// How the old projection serves when the threshold stays and the rows `chosen` of `written`
    /// take the place of its rows of the partitions written or emptied (`fromOld.replaced`).
    static func oldProjectionUse(_ fromOld: OldCandidates, old: Manifest, threshold: Double, written: RowBatch,
                                 chosen: [Int], chosenOld: Int) -> OldProjectionUse {
        guard let oldTop = old.top, let reader = fromOld.reader, threshold == oldTop.threshold,
              fromOld.mags.count == oldTop.rows, chosen.count == fromOld.replaced.count else { return .rebuild }
        guard let stored = try? reader.rows(at: fromOld.replaced), stored.count == chosen.count else { return .damaged }
        let times = Column.time.rawValue
        let ids = Column.id.rawValue
        var same = true
        for (row, new) in chosen.enumerated() {
            guard stored.ints[times][row] == written.ints[times][new],
                  stored.text[ids].equal(row, written.text[ids], new) else { return .rebuild }
            if same && !(stored.sameContent(row, written, new) && stored.sameProvenance(row, written, new)) {
                same = false
            }
        }
        if same { return .serves }
        // every other row stays: the kept partitions' rows are the old file's, all at the threshold or above
        return chosenOld + chosen.count == oldTop.rows ? .samePlaces(stored: stored) : .rebuild
    }

    /// The projection written from the old file `reader` with its rows `positions` (ascending)
    /// replaced by `rows` (the same times and ids; `stored` holds the old ones): the columns no
    /// row changed are copied chunk by chunk, the others decoded whole, patched and encoded, and
    /// the indexes built from the numbers, as ``MergePass``'s updates in place write partitions.
    /// The bytes are those a rebuild writes. Nil when the old file cannot serve (another block
    /// size or an older layout) or reads damaged: the caller rebuilds.
    /// - Complexity: O(projection rows) for the changed, indexed and aggregated numeric columns
    ///   and the changed text columns; the others are copied.
    static func patchedTopRows(_ reader: PartitionReader, positions: [Int], stored: RowBatch, rows: RowBatch,
                               blockRows: Int) -> (batch: RowBatch, reused: [Int: PartitionFile.ColumnImage])? {
        guard let directory = try? reader.directory(), directory.blockRows == blockRows,
              (try? reader.isCurrentFormat()) == true, positions.count == rows.count else { return nil }
        let count = directory.blockSizes.reduce(0, +)
        // the positions came from this file's magnitudes, so they lie below its rows; checked anyway
        guard positions.allSatisfy({ $0 >= 0 && $0 < count }) else { return nil }
        var changed: Set<Column> = []
        for column in Column.allCases {
            let index = column.rawValue
            for row in 0..<rows.count {
                let same = RowBatch.isInt(column) ? stored.ints[index][row] == rows.ints[index][row]
                    : stored.text[index].equal(row, rows.text[index], row)
                if !same {
                    changed.insert(column)
                    break
                }
            }
        }
        let numbersNeeded = PartitionFile.indexedColumns.union(UnitAggregates.metricColumns)
        var batch = RowBatch()
        batch.count = count
        var reused: [Int: PartitionFile.ColumnImage] = [:]
        do throws(QuakeError) {
            for column in Column.allCases {
                let index = column.rawValue
                if !changed.contains(column) {
                    reused[index] = try reader.columnImage(column)
                    if RowBatch.isInt(column) && numbersNeeded.contains(column) {
                        batch.ints[index] = try reader.ints(column)
                        guard batch.ints[index].count == count else { return nil }
                    }
                } else if RowBatch.isInt(column) {
                    var values = try reader.ints(column)
                    guard values.count == count else { return nil }
                    for (row, position) in positions.enumerated() { values[position] = rows.ints[index][row] }
                    batch.ints[index] = values
                } else {
                    let arena = try reader.arena(column)
                    guard arena.count == count else { return nil }
                    let source = rows.text[index]
                    batch.text[index] = arena.replacing(positions.enumerated().map { ($1, source, $0) })
                }
            }
            if let provenance = try reader.provenance() {
                batch.present = provenance.present
                batch.origins = provenance.origins
            } else {
                batch.present = Array(repeating: Column.allMask, count: count)
            }
        } catch {
            return nil
        }
        guard batch.present.count == count else { return nil }
        for (row, position) in positions.enumerated() {
            batch.present[position] = rows.present[row]
            batch.origins[position] = rows.origins[row]
        }
        return (batch, reused)
    }
}
