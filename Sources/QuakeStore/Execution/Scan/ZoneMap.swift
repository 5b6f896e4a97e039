import QuakeFormat
/// What zone maps say about a filter over some rows: no row can match, every row matches, or
/// the rows must be read.
package enum ZoneVerdict: Equatable {
    case none, all, some

    package static func and(_ a: ZoneVerdict, _ b: ZoneVerdict) -> ZoneVerdict {
        if a == .none || b == .none { return .none }
        if a == .all && b == .all { return .all }
        return .some
    }

    package static func or(_ a: ZoneVerdict, _ b: ZoneVerdict) -> ZoneVerdict {
        if a == .all || b == .all { return .all }
        if a == .none && b == .none { return .none }
        return .some
    }
}

/// One column's statistics over some rows: min and max (`Int64` for timestamps, `Double` bit
/// patterns for decimals), nulls, and the number of rows they cover.
package struct ZoneStats {
    package var min: Int64
    package var max: Int64
    package var nulls: Int
    package var rows: Int
    package var minDouble: Double { Double(bitPattern: UInt64(bitPattern: min)) }
    package var maxDouble: Double { Double(bitPattern: UInt64(bitPattern: max)) }
}

/// Decides filters from zone maps alone: a block's (per column), or a granule's (time,
/// coordinates, depth and mag per 4,096 rows, with the block's for other columns) where the
/// granule's mag histogram decides mag ranges exactly.
package struct ZoneMap {
    /// Statistics of column `c` over the rows in question.
    package let stats: (Column) throws -> ZoneStats
    /// Exact number of rows whose mag passes a range, when a histogram knows.
    package let magCount: ((RangePredicate) -> Int)?

    package func verdict(_ f: Filter) throws -> ZoneVerdict {
        switch f {
        case .all: return .all
        case .none: return .none
        case .timeRange(let c, let lo, let hi):
            let b = try stats(c)
            if b.nulls == b.rows { return .none }
            let l = lo ?? Int64.min, h = hi ?? Int64.max
            if b.max < l || b.min >= h { return .none }
            if b.nulls == 0 && b.min >= l && b.max < h { return .all }
            return .some
        case .numberRange(let c, let lo, let hi):
            let b = try stats(c)
            if c == .mag, let magCount {
                let n = magCount(.number(lower: lo, upper: hi))
                return n == 0 ? .none : n == b.rows ? .all : .some
            }
            if b.nulls == b.rows { return .none }
            let mn = b.minDouble, mx = b.maxDouble
            if let lo { if lo.inclusive ? mx < lo.value : mx <= lo.value { return .none } }
            if let hi { if hi.inclusive ? mn > hi.value : mn >= hi.value { return .none } }
            var all = b.nulls == 0
            if let lo, all { all = lo.inclusive ? mn >= lo.value : mn > lo.value }
            if let hi, all { all = hi.inclusive ? mx <= hi.value : mx < hi.value }
            return all ? .all : .some
        case .box(let a, let b2, let c, let d):
            let lat = try verdict(.numberRange(.latitude, lower: .init(a), upper: .init(b2)))
            if c <= d { return ZoneVerdict.and(lat, try verdict(.numberRange(.longitude, lower: .init(c), upper: .init(d)))) }
            return lat == .none ? .none : .some
        case .isNull(let c):
            let b = try stats(c)
            return b.nulls == 0 ? .none : b.nulls == b.rows ? .all : .some
        case .and(let fs):
            var v = ZoneVerdict.all
            for g in fs {
                v = ZoneVerdict.and(v, try verdict(g))
                if v == .none { return .none }
            }
            return v
        case .or(let fs):
            var v = ZoneVerdict.none
            for g in fs {
                v = ZoneVerdict.or(v, try verdict(g))
                if v == .all { return .all }
            }
            return v
        case .arithmetic(let comparison):
            return try verdict(comparison)
        case .not(let g):
            switch try verdict(g) {
            case .all: return .none
            case .none: return .all
            case .some: return .some
            }
        default:
            return .some
        }
    }

    /// The exact count of a granule's matching rows from its mag histogram, when every term of
    /// `f` other than mag ranges matches the whole granule; nil otherwise.
    package func histogramCount(_ f: Filter, index: GranuleIndex, granule g: Int) throws -> Int? {
        guard index.hasMagHistogram else { return nil }
        var ranges: [RangePredicate] = []
        let terms: [Filter]
        if case .and(let fs) = f { terms = fs } else { terms = [f] }
        for t in terms {
            if case .numberRange(.mag, let lo, let hi) = t { ranges.append(.number(lower: lo, upper: hi)); continue }
            guard try verdict(t) == .all else { return nil }
        }
        if ranges.isEmpty { return index.range(g).count }
        return ZoneMap.histogramMatches(index, granule: g, MagInterval(ranges))
    }

    /// Rows of granule `g` whose mag lies in `interval`, from the histogram alone. Written here,
    /// over the index's arrays, so that the comparison inlines into the loop.
    static func histogramMatches(_ index: GranuleIndex, granule g: Int, _ interval: MagInterval) -> Int {
        var n = 0
        let values = index.magValues
        for e in index.magCounts(g) where interval.contains(values[Int(e & 0xFFFF)]) { n += Int(e >> 16) }
        return n
    }
}

/// The intersection of mag ranges as two plain bounds, tested per histogram entry.
struct MagInterval {
    var lower = -Double.infinity, upper = Double.infinity
    var lowerInclusive = true, upperInclusive = true

    init(_ ranges: [RangePredicate]) {
        for r in ranges {
            guard case .number(let lo, let hi) = r else { continue }
            if let lo, lo.value > lower || (lo.value == lower && !lo.inclusive) { lower = lo.value; lowerInclusive = lo.inclusive }
            if let hi, hi.value < upper || (hi.value == upper && !hi.inclusive) { upper = hi.value; upperInclusive = hi.inclusive }
        }
    }

    /// True when `v` (NaN for null) lies in the interval.
    @inline(__always) func contains(_ v: Double) -> Bool {
        (lowerInclusive ? v >= lower : v > lower) && (upperInclusive ? v <= upper : v < upper)
    }
}

extension PartitionReader {
    /// The zone map of block `k`.
    package func zoneMap(block k: Int) throws -> ZoneMap {
        let d = try directory()
        return ZoneMap(stats: { c in
            let b = d.chunks[c.rawValue][k]
            return ZoneStats(min: b.min, max: b.max, nulls: b.nulls, rows: b.rows)
        }, magCount: nil)
    }

    /// The zone map of granule `g` (inside block `k`): granule statistics where kept, the
    /// block's otherwise, and the exact mag histogram.
    package func zoneMap(granule g: Int, block k: Int) throws -> ZoneMap {
        let d = try directory()
        let idx = d.granules
        let rows = idx.range(g).count
        return ZoneMap(stats: { c in
            if let s = GranuleIndex.slot(c) {
                let x = idx.stats[s][g]
                return ZoneStats(min: x.min, max: x.max, nulls: Int(x.nulls), rows: rows)
            }
            let b = d.chunks[c.rawValue][k]
            // a block with no nulls has none in any granule; otherwise the granule may have some
            return ZoneStats(min: b.min, max: b.max, nulls: b.nulls == 0 ? 0 : 1, rows: b.nulls == b.rows ? 1 : 2)
        }, magCount: idx.hasMagHistogram ? { ZoneMap.histogramMatches(idx, granule: g, MagInterval([$0])) } : nil)
    }

    /// Decides `f` for block `k` from zone maps alone, without decoding.
    package func verdict(_ f: Filter, block k: Int) throws -> ZoneVerdict { try zoneMap(block: k).verdict(f) }
}
