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
        case .timeRange(let column, let lo, let hi):
            let zone = try stats(column)
            if zone.nulls == zone.rows { return .none }
            let lower = lo ?? Int64.min
            let upper = hi ?? Int64.max
            if zone.max < lower || zone.min >= upper { return .none }
            if zone.nulls == 0 && zone.min >= lower && zone.max < upper { return .all }
            return .some
        case .timeWindows(let windows):
            let zone = try stats(.time)
            if zone.nulls == zone.rows || !windows.meets(zone.min, zone.max) { return .none }
            return zone.nulls == 0 && windows.covers(zone.min, zone.max) ? .all : .some
        case .numberRange(let column, let lo, let hi):
            return try numberVerdict(column, lo, hi)
        case .box(let south, let north, let west, let east):
            let lat = try verdict(.numberRange(.latitude, lower: .init(south), upper: .init(north)))
            if west <= east {
                let lon = try verdict(.numberRange(.longitude, lower: .init(west), upper: .init(east)))
                return ZoneVerdict.and(lat, lon)
            }
            return lat == .none ? .none : .some
        case .isNull(let column):
            let zone = try stats(column)
            return zone.nulls == 0 ? .none : zone.nulls == zone.rows ? .all : .some
        case .and(let terms):
            var combined = ZoneVerdict.all
            for term in terms {
                combined = ZoneVerdict.and(combined, try verdict(term))
                if combined == .none { return .none }
            }
            return combined
        case .or(let terms):
            var combined = ZoneVerdict.none
            for term in terms {
                combined = ZoneVerdict.or(combined, try verdict(term))
                if combined == .all { return .all }
            }
            return combined
        case .arithmetic(let comparison):
            return try verdict(comparison)
        case .not(let term):
            switch try verdict(term) {
            case .all: return .none
            case .none: return .all
            case .some: return .some
            }
        default:
            return .some
        }
    }

    /// The verdict of a number range on `column`: from the mag histogram when there is one, else
    /// from the column's min and max.
    private func numberVerdict(_ column: Column, _ lo: Filter.Bound?, _ hi: Filter.Bound?) throws -> ZoneVerdict {
        let zone = try stats(column)
        if column == .mag, let magCount {
            let matching = magCount(.number(lower: lo, upper: hi))
            return matching == 0 ? .none : matching == zone.rows ? .all : .some
        }
        if zone.nulls == zone.rows { return .none }
        let least = zone.minDouble
        let greatest = zone.maxDouble
        if let lo { if lo.inclusive ? greatest < lo.value : greatest <= lo.value { return .none } }
        if let hi { if hi.inclusive ? least > hi.value : least >= hi.value { return .none } }
        var all = zone.nulls == 0
        if let lo, all { all = lo.inclusive ? least >= lo.value : least > lo.value }
        if let hi, all { all = hi.inclusive ? greatest <= hi.value : greatest < hi.value }
        return all ? .all : .some
    }

    /// The exact count of a granule's matching rows from its mag histogram, when every term of
    /// `f` other than mag ranges matches the whole granule; nil otherwise.
    package func histogramCount(_ f: Filter, index: GranuleIndex, granule g: Int) throws -> Int? {
        guard index.hasMagHistogram else { return nil }
        var ranges: [RangePredicate] = []
        let terms: [Filter]
        if case .and(let filters) = f { terms = filters } else { terms = [f] }
        for term in terms {
            if case .numberRange(.mag, let lo, let hi) = term {
                ranges.append(.number(lower: lo, upper: hi))
                continue
            }
            guard try verdict(term) == .all else { return nil }
        }
        if ranges.isEmpty { return index.range(g).count }
        return ZoneMap.histogramMatches(index, granule: g, MagInterval(ranges))
    }

    /// Rows of granule `g` whose mag lies in `interval`, from the histogram alone. Written here,
    /// over the index's arrays, so that the comparison inlines into the loop.
    static func histogramMatches(_ index: GranuleIndex, granule g: Int, _ interval: MagInterval) -> Int {
        var matching = 0
        let values = index.magValues
        for entry in index.magCounts(g) where interval.contains(values[Int(entry & 0xFFFF)]) {
            matching += Int(entry >> 16)
        }
        return matching
    }
}

/// The intersection of mag ranges as two plain bounds, tested per histogram entry.
struct MagInterval {
    var lower = -Double.infinity
    var upper = Double.infinity
    var lowerInclusive = true
    var upperInclusive = true

    init(_ ranges: [RangePredicate]) {
        for range in ranges {
            guard case .number(let lo, let hi) = range else { continue }
            if let lo, lo.value > lower || (lo.value == lower && !lo.inclusive) {
                lower = lo.value
                lowerInclusive = lo.inclusive
            }
            if let hi, hi.value < upper || (hi.value == upper && !hi.inclusive) {
                upper = hi.value
                upperInclusive = hi.inclusive
            }
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
        let blockDirectory = try directory()
        return ZoneMap(stats: { c in
            let chunk = blockDirectory.chunks[c.rawValue][k]
            return ZoneStats(min: chunk.min, max: chunk.max, nulls: chunk.nulls, rows: chunk.rows)
        }, magCount: nil)
    }

    /// The zone map of granule `g` (inside block `k`): granule statistics where kept, the
    /// block's otherwise, and the exact mag histogram.
    package func zoneMap(granule g: Int, block k: Int) throws -> ZoneMap {
        let blockDirectory = try directory()
        let index = blockDirectory.granules
        let rows = index.range(g).count
        let magCount: ((RangePredicate) -> Int)? = index.hasMagHistogram
            ? { ZoneMap.histogramMatches(index, granule: g, MagInterval([$0])) } : nil
        return ZoneMap(stats: { c in
            if let slot = GranuleIndex.slot(c) {
                let granuleStats = index.stats[slot][g]
                return ZoneStats(min: granuleStats.min, max: granuleStats.max, nulls: Int(granuleStats.nulls),
                                 rows: rows)
            }
            let chunk = blockDirectory.chunks[c.rawValue][k]
            // a block with no nulls has none in any granule; otherwise the granule may have some
            return ZoneStats(min: chunk.min, max: chunk.max, nulls: chunk.nulls == 0 ? 0 : 1,
                             rows: chunk.nulls == chunk.rows ? 1 : 2)
        }, magCount: magCount)
    }

    /// Decides `f` for block `k` from zone maps alone, without decoding.
    package func verdict(_ f: Filter, block k: Int) throws -> ZoneVerdict {
        try zoneMap(block: k).verdict(f)
    }
}
