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
        let r = reader(p)
        let d = try r.directory()
        let idx = d.granules
        var out: [ScanUnit] = []
        var start = 0
        for (k, size) in d.blockSizes.enumerated() {
            defer { start += size }
            stats.blocksTotal += 1
            let blockVerdict = try r.verdict(f, block: k)
            if blockVerdict == .none { stats.blocksPruned += 1; continue }
            guard size > 0 else { continue }
            let first = start / GranuleIndex.granuleRows, last = (start + size - 1) / GranuleIndex.granuleRows
            var pending: ScanUnit?
            for g in first...last {
                let gr = idx.range(g)
                let lo = Swift.max(gr.lowerBound, start) - start, hi = Swift.min(gr.upperBound, start + size) - start
                stats.granulesTotal += 1
                let v = blockVerdict == .all ? .all : try r.zoneMap(granule: g, block: k).verdict(f)
                if v == .none { stats.granulesPruned += 1; continue }
                let whole = lo == gr.lowerBound - start && hi == gr.upperBound - start
                if merge, let u = pending, u.verdict == v, u.rows.upperBound == lo {
                    pending = ScanUnit(partition: p, block: k, rows: u.rows.lowerBound..<hi, blockStart: start,
                                       verdict: v, granule: nil)
                    continue
                }
                if let u = pending { out.append(u) }
                pending = ScanUnit(partition: p, block: k, rows: lo..<hi, blockStart: start, verdict: v,
                                   granule: whole ? g : nil)
            }
            if let u = pending { out.append(u) }
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
            let w = try granuleWindow(first)
            var end = at + 1
            while end < order.count, refs[order[end]].partition == first.partition,
                  refs[order[end]].row < w.blockStart + w.rows.upperBound { end += 1 }
            runs.append(GranuleRun(atStart: at, atEnd: end, block: w.block, rowStart: first.row - w.blockStart,
                                   rowEnd: refs[order[end - 1]].row - w.blockStart + 1))
            at = end
        }
        return runs
    }

    /// The granule holding partition row `ref.row`, as a window of its block: the block, the
    /// window's rows within it, and the row where the block starts.
    package func granuleWindow(_ ref: RowRef) throws -> (block: Int, rows: Range<Int>, blockStart: Int) {
        let r = reader(ref.partition)
        let d = try r.directory()
        let k = ref.row / d.blockRows
        guard ref.row >= 0, k < d.blockSizes.count else { throw QuakeError.corrupt(r.path, "no row \(ref.row)") }
        let start = k * d.blockRows
        let g = GranuleIndex.granuleRows
        let lo = (ref.row - start) / g * g
        return (k, lo..<Swift.min(d.blockSizes[k], lo + g), start)
    }

    /// The decoded window of unit `u`.
    package func data(_ u: ScanUnit) -> BlockData {
        BlockData(reader: reader(u.partition), block: u.block, window: u.rows,
                  firstRow: u.blockStart + u.rows.lowerBound)
    }

    /// The matching rows of unit `u` (window-relative), with its window.
    package func scan(_ u: ScanUnit, _ f: Filter, _ stats: inout QueryStats) throws -> (BlockData, Selection) {
        let d = data(u)
        stats.rowsEstimated += u.rows.count
        if u.verdict == .all {
            // the filter needs no work here; the caller still reads the rows
            stats.granulesMatchedWhole += 1
            return (d, .all(d.rows))
        }
        stats.granulesScanned += 1
        let s = try d.select(f, .all(d.rows))
        stats.noteColumns(d.decodedColumns)
        return (d, s)
    }
}

/// A run of refs in one granule (``QueryExecutor/granuleRuns(_:_:)``): positions `at` of the
/// storage order, and the block rows from the first of them to the last. Plain integers, not
/// ranges: an array of a type holding `Range<Int>` makes a one-shot query instantiate its
/// metadata, and check `Int`'s conformances by a scan of every record in the binary.
package struct GranuleRun: Sendable {
    package let atStart: Int, atEnd: Int
    package let block: Int
    package let rowStart: Int, rowEnd: Int

    package var at: Range<Int> { atStart..<atEnd }
    package var rows: Range<Int> { rowStart..<rowEnd }
}
