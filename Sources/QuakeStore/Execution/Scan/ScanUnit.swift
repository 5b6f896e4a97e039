import QuakeFormat
/// A run of whole granules inside one block of one partition that a scan reads as one
/// window, with what the zone maps said about it.
package struct ScanUnit {
    package let partition: Int
    package let block: Int
    /// Rows within the block.
    package let rows: Range<Int>
    /// Row number of the block's first row within its partition.
    package let blockStart: Int
    package let verdict: ZoneVerdict
    /// The granule when the unit is exactly one.
    package let granule: Int?
}

extension QueryExecutor {
    /// The units of partition `p` that can hold rows matching `f`: granules that the granule
    /// zone maps (and mag histograms) rule out are dropped; with `merge`, neighbouring
    /// granules with the same verdict in one block become one unit.
    package func units(_ p: Int, _ f: Filter, merge: Bool, stats: inout QueryStats) throws -> [ScanUnit] {
        try cancel?.check()
        let partitionReader = reader(p)
        let directory = try partitionReader.directory()
        let granuleIndex = directory.granules
        var out: [ScanUnit] = []
        var start = 0
        for (k, size) in directory.blockSizes.enumerated() {
            defer { start += size }
            stats.blocksTotal += 1
            let blockVerdict = try partitionReader.verdict(f, block: k)
            if blockVerdict == .none {
                stats.blocksPruned += 1
                continue
            }
            guard size > 0 else { continue }
            let first = start / GranuleIndex.granuleRows
            let last = (start + size - 1) / GranuleIndex.granuleRows
            var pending: ScanUnit?
            for g in first...last {
                let granuleRange = granuleIndex.range(g)
                let lo = Swift.max(granuleRange.lowerBound, start) - start
                let hi = Swift.min(granuleRange.upperBound, start + size) - start
                stats.granulesTotal += 1
                let verdict = blockVerdict == .all ? .all : try partitionReader.zoneMap(granule: g, block: k).verdict(f)
                if verdict == .none {
                    stats.granulesPruned += 1
                    continue
                }
                let whole = lo == granuleRange.lowerBound - start && hi == granuleRange.upperBound - start
                if merge, let unit = pending, unit.verdict == verdict, unit.rows.upperBound == lo {
                    pending = ScanUnit(partition: p, block: k, rows: unit.rows.lowerBound..<hi, blockStart: start,
                                       verdict: verdict, granule: nil)
                    continue
                }
                if let unit = pending { out.append(unit) }
                pending = ScanUnit(partition: p, block: k, rows: lo..<hi, blockStart: start, verdict: verdict,
                                   granule: whole ? g : nil)
            }
            if let unit = pending { out.append(unit) }
        }
        return out
    }

    /// `refs`, taken in `order` (by partition, then row), cut into runs that share a granule:
    /// each run's stretch of `order`, its block, and its rows within the block from the run's
    /// first row to its last, so a run decodes only the frames those rows fall in.
    package func granuleRuns(_ refs: [RowRef], _ order: [Int]) throws -> [GranuleRun] {
        var runs: [GranuleRun] = []
        var at = 0
        while at < order.count {
            let first = refs[order[at]]
            let window = try granuleWindow(first)
            var end = at + 1
            while end < order.count, refs[order[end]].partition == first.partition,
                  refs[order[end]].row < window.blockStart + window.rows.upperBound { end += 1 }
            runs.append(GranuleRun(atStart: at, atEnd: end, block: window.block,
                                   rowStart: first.row - window.blockStart,
                                   rowEnd: refs[order[end - 1]].row - window.blockStart + 1))
            at = end
        }
        return runs
    }

    /// The granule holding partition row `ref.row`, as a window of its block: the block, the
    /// window's rows within it, and the row where the block starts.
    package func granuleWindow(_ ref: RowRef) throws -> (block: Int, rows: Range<Int>, blockStart: Int) {
        let partitionReader = reader(ref.partition)
        let directory = try partitionReader.directory()
        let block = ref.row / directory.blockRows
        guard ref.row >= 0, block < directory.blockSizes.count else {
            throw QuakeError.corrupt(partitionReader.path, "no row \(ref.row)")
        }
        let start = block * directory.blockRows
        let granuleRows = GranuleIndex.granuleRows
        let lo = (ref.row - start) / granuleRows * granuleRows
        return (block, lo..<Swift.min(directory.blockSizes[block], lo + granuleRows), start)
    }

    /// The decoded window of unit `u`.
    package func data(_ u: ScanUnit) -> BlockData {
        BlockData(reader: reader(u.partition), block: u.block, window: u.rows,
                  firstRow: u.blockStart + u.rows.lowerBound)
    }

    /// The matching rows of unit `u` (window-relative), with its window.
    package func scan(_ u: ScanUnit, _ f: Filter, _ stats: inout QueryStats) throws -> (BlockData, Selection) {
        let window = data(u)
        stats.rowsEstimated += u.rows.count
        if u.verdict == .all {
            // the filter needs no work here; the caller still reads the rows
            stats.granulesMatchedWhole += 1
            return (window, .all(window.rows))
        }
        stats.granulesScanned += 1
        let selection = try window.select(f, .all(window.rows))
        stats.noteColumns(window.decodedColumns)
        return (window, selection)
    }
}

/// A run of refs in one granule (``QueryExecutor/granuleRuns(_:_:)``): positions `at` of the
/// storage order, and the block rows from the first of them to the last. Plain integers, not
/// ranges: an array of a type holding `Range<Int>` makes a one-shot query instantiate its
/// metadata, and check `Int`'s conformances by a scan of every record in the binary.
package struct GranuleRun: Sendable {
    package let atStart: Int
    package let atEnd: Int
    package let block: Int
    package let rowStart: Int
    package let rowEnd: Int

    package var at: Range<Int> { atStart..<atEnd }
    package var rows: Range<Int> { rowStart..<rowEnd }
}
