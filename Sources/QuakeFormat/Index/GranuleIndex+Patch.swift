extension GranuleIndex {
    /// The index of `batch`, a partition's rows after an update of rows in granules `touched`,
    /// from `old`, the index of its rows before: the touched granules' statistics and magnitude
    /// counts computed again, the others' copied. Equal to ``init(_:)`` of `batch`, which needs
    /// the values of the touched granules only, but every magnitude when a magnitude comes or
    /// goes (the distinct values, and so every granule's codes, change): the histogram is then
    /// built again from them, or, unless `magnitudesWhole`, the patch refused.
    ///
    /// Nil when `old` does not fit `batch` (another row count, no histogram), or as above.
    /// - Complexity: O(rows of the touched granules + entries of the histogram).
    package init?(patching old: GranuleIndex, _ batch: RowBatch, granules touched: [Int],
                  magnitudesWhole: Bool = true) {
        guard old.rows == batch.count, old.hasMagHistogram,
              touched.allSatisfy({ $0 >= 0 && $0 < old.granules }) else { return nil }
        self = old
        for (slot, column) in GranuleIndex.columns.enumerated() {
            let values = batch.ints[column.rawValue]
            guard values.count == rows else { return nil }
            for granule in touched {
                stats[slot][granule] = column.kind == .timestamp
                    ? GranuleIndex.timestampStats(values, range(granule))
                    : GranuleIndex.decimalStats(values, range(granule))
            }
        }
        let table = MagnitudeTable(codes: magValues)
        // rows of each value over the partition, the touched granules' counted again
        var totals = [Int](repeating: 0, count: magValues.count)
        for entry in magEntries { totals[Int(entry & 0xFFFF)] += Int(entry >> 16) }
        let mags = batch.ints[Column.mag.rawValue]
        var lists: [Int: [UInt32]] = [:]
        var counts = [UInt16](repeating: 0, count: magValues.count)
        for granule in touched {
            for entry in magCounts(granule) { totals[Int(entry & 0xFFFF)] -= Int(entry >> 16) }
            var used: [UInt16] = []
            for row in range(granule) where mags[row] != RowBatch.null {
                guard let found = table.code(MagnitudeTable.key(mags[row])) else {
                    guard magnitudesWhole, mags.count == rows else { return nil }
                    (magValues, magEntries, magStarts) = GranuleIndex.histogram(mags, rows: rows)
                    return
                }
                let magCode = UInt16(truncatingIfNeeded: found)
                if counts[Int(magCode)] == 0 { used.append(magCode) }
                counts[Int(magCode)] += 1
            }
            used.sort()
            lists[granule] = used.map { UInt32($0) | UInt32(counts[Int($0)]) << 16 }
            for magCode in used {
                totals[Int(magCode)] += Int(counts[Int(magCode)])
                counts[Int(magCode)] = 0
            }
        }
        guard totals.allSatisfy({ $0 > 0 }) else {
            guard magnitudesWhole, mags.count == rows else { return nil }
            (magValues, magEntries, magStarts) = GranuleIndex.histogram(mags, rows: rows)
            return
        }
        var entries: [UInt32] = []
        entries.reserveCapacity(magEntries.count)
        var starts = [0]
        for granule in 0..<granules {
            entries.append(contentsOf: lists[granule] ?? Array(magCounts(granule)))
            starts.append(entries.count)
        }
        magEntries = entries
        magStarts = starts
    }
}
