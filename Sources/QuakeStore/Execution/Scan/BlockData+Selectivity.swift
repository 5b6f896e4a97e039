import QuakeFormat
/// Estimated selectivity of range terms over a window: the first kernel of a conjunction runs
/// over every row of the window and the rest only over the rows it keeps, so the term that
/// keeps the fewest rows should run first. A box around Hawaii keeps a few rows in a hundred
/// where `mag >= 1` keeps most of them; a box around California keeps more than `mag >= 2`.
///
/// Estimates only order the kernels; every term is still applied, so a wrong estimate costs
/// time, never a wrong answer.
extension BlockData {
    /// Rows of the window a sampled estimate reads.
    static let sampleRows = 32

    /// The fraction of the window's rows estimated to pass `f`: exact for a mag range (the
    /// granules' histograms), uniform between each granule's min and max for time (which the
    /// rows are sorted by), from ``sampleRows`` evenly spaced rows for coordinates, other numbers
    /// and category values (events cluster by network, so a uniform guess is far off), and 1
    /// otherwise.
    package func selectivity(_ f: Filter) -> Double {
        guard let index = try? reader.granules(), rows > 0 else { return 1 }
        let granuleRows = GranuleIndex.granuleRows
        let lastGranuleEnd = (firstRow + rows + granuleRows - 1) / granuleRows
        let granules = (firstRow / granuleRows)..<Swift.min(index.granules, lastGranuleEnd)
        guard !granules.isEmpty else { return 1 }
        switch f {
        case .numberRange(.mag, let lo, let hi) where index.hasMagHistogram:
            // from the histograms of the first window of the block to ask, as sampled terms
            return shared(f) {
                let interval = MagInterval([.number(lower: lo, upper: hi)])
                var matching = 0
                var total = 0
                for k in granules {
                    matching += ZoneMap.histogramMatches(index, granule: k, interval)
                    total += index.range(k).count
                }
                return total == 0 ? 1 : Double(matching) / Double(total)
            }
        case .timeRange(.time, let lo, let hi):
            return uniform(index, .time, granules, Double(lo ?? Int64.min), Double(hi ?? Int64.max))
        case .numberRange, .box:
            return sampled(f)
        case .oneOf(let column, _) where column.kind == .category:
            return sampled(f)
        default:
            return 1
        }
    }

    /// The share of ``sampleRows`` evenly spaced rows of the window that pass `f`, by the same
    /// kernels on those rows alone. The first window of a block to ask samples its own rows,
    /// and the block's other windows reuse that estimate: a box count over every granule would
    /// otherwise sample three times a granule (a tenth of its time). The reader keeps it, so a
    /// later query with the same term reuses it too: it orders kernels, and the file's rows do
    /// not change.
    private func sampled(_ f: Filter) -> Double { shared(f) { sampledHere(f) } }

    /// `estimate`'s value for term `f` over this window, or the one a window of this block
    /// computed for it before.
    private func shared(_ f: Filter, _ estimate: () -> Double) -> Double {
        guard let key = Self.fingerprint(f) else { return estimate() }
        return reader.estimate(key ^ (UInt64(truncatingIfNeeded: block) &* 0xD6E8_FEB8_6659_FD93), estimate)
    }

    /// A 64-bit fingerprint of a number range, box or category `oneOf` term; nil for other terms.
    static func fingerprint(_ f: Filter) -> UInt64? {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        func mix(_ x: UInt64) {
            hash = (hash ^ x) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 31
        }
        func bound(_ b: Filter.Bound?) {
            mix(b.map { $0.value.bitPattern } ?? 0x7FF8_DEAD_BEEF_0001)
            mix(b.map { $0.inclusive ? 1 : 2 } ?? 3)
        }
        switch f {
        case .numberRange(let column, let lo, let hi):
            mix(1)
            mix(UInt64(column.rawValue))
            bound(lo)
            bound(hi)
        case .box(let south, let north, let west, let east):
            mix(2)
            mix(south.bitPattern)
            mix(north.bitPattern)
            mix(west.bitPattern)
            mix(east.bitPattern)
        case .oneOf(let column, let values) where column.kind == .category:
            mix(3)
            mix(UInt64(column.rawValue))
            for value in values {
                mix(UInt64(value.utf8.count))
                for byte in value.utf8 { mix(UInt64(byte)) }
            }
        default:
            return nil
        }
        return hash
    }

    private func sampledHere(_ f: Filter) -> Double {
        let sampleCount = Swift.min(rows, Self.sampleRows)
        guard sampleCount > 0 else { return 1 }
        let step = rows / sampleCount
        let sample = (0..<sampleCount).map { UInt32($0 * step + step / 2) }
        guard let kept = try? select(f, .rows(sample)) else { return 1 }
        return Double(kept.count) / Double(sampleCount)
    }

    /// The share of `lo...hi` in the span of column `c` over `granules`, each granule weighted
    /// by its rows (1 for a column without granule statistics).
    private func uniform(_ index: GranuleIndex, _ c: Column, _ granules: Range<Int>, _ lo: Double,
                         _ hi: Double) -> Double {
        guard let slot = GranuleIndex.slot(c), slot < index.stats.count else { return 1 }
        var kept = 0.0
        var total = 0.0
        for k in granules where k < index.stats[slot].count {
            let granuleStats = index.stats[slot][k]
            let granuleRows = Double(index.range(k).count)
            total += granuleRows
            let least = c == .time ? Double(granuleStats.min) : granuleStats.minDouble
            let greatest = c == .time ? Double(granuleStats.max) : granuleStats.maxDouble
            guard !least.isNaN, !greatest.isNaN else { continue }
            let lower = Swift.max(lo, least)
            let upper = Swift.min(hi, greatest)
            if upper < lower { continue }
            kept += greatest > least ? granuleRows * (upper - lower) / (greatest - least) : granuleRows
        }
        return total == 0 ? 1 : kept / total
    }

    /// `fs` in kernel order: cheap kernels first (``order(_:)``), and among the leading range
    /// kernels the most selective first when it keeps under half the rows the first would.
    package func ordered(_ fs: [Filter]) -> [Filter] {
        let base = Self.order(fs)
        let ranges = base.prefix { term in
            if case .timeRange = term { true } else if case .numberRange = term { true }
            else if case .box = term { true }
            else if case .oneOf(let column, _) = term, column.kind == .category { true } else { false }
        }
        guard ranges.count > 1 else { return base }
        // only a clear winner moves ahead: estimating costs, and a wrong swap costs more
        let estimates = ranges.map(selectivity)
        guard let best = estimates.indices.min(by: { estimates[$0] < estimates[$1] }), best > 0,
              estimates[best] < estimates[0] / 2 else { return base }
        var terms = base
        terms.insert(terms.remove(at: best), at: 0)
        return terms
    }
}
