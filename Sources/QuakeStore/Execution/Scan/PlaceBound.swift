import QuakeFormat

/// Bounds for a place search top-N by magnitude from the partitions' place indexes: a unit where
/// no locality matching the needle occurs is skipped, and the others are bounded by the best
/// magnitude of the matching localities' rows instead of the unit's.
struct PlaceBound {
    let matcher: PlaceMatcher
    let key: String
    /// Whether the place search is the whole filter.
    let alone: Bool

    /// The bound for a filter with a place search among its top-level terms whose verdict the
    /// locality decides alone (a needle that cannot start inside a `<N> km <DIR> of ` prefix).
    init?(_ f: Filter) {
        let terms: [Filter]
        if case .and(let fs) = f { terms = fs } else { terms = [f] }
        for t in terms {
            guard case .contains(.place, let needle, let insensitive) = t else { continue }
            let m = PlaceMatcher(needle, insensitive: insensitive)
            guard !m.mayTouchPrefix, !m.needle.isEmpty else { continue }
            matcher = m
            key = (insensitive ? "i|" : "s|") + needle
            alone = terms.count == 1
            return
        }
        return nil
    }

    /// The needle's verdict per locality code of block `k`'s place dictionary, as the reader
    /// keeps it; nil when the chunk's codec has no dictionary of the whole chunk.
    func table(_ r: PartitionReader, block k: Int) throws -> [Bool]? {
        try r.placeTable(block: k, key: key, build: matcher.table)
    }

    /// The normalized-key bound of unit `u`'s matching rows: nil (outer) when the index cannot
    /// say, nil (inner) when no row of the unit can match. `table` is ``table(_:block:)`` of the
    /// unit's block, and `values` the partition's distinct magnitudes.
    func bound(_ u: ScanUnit, _ index: PlaceIndex, table: [Bool]?, values: [Double], path: String,
               ascending: Bool) throws -> UInt64?? {
        guard let g = u.granule, let i = index.unit(block: u.block, granule: g), let table else { return .none }
        guard let b = index.bounds(unit: i, matches: table) else { return .some(nil) }
        let n = u.rows.count
        guard b.least != PlaceIndex.noMag else {
            return .some(NormalizedKey.bound(ZoneStats(min: 0, max: 0, nulls: n, rows: n), .mag, ascending: ascending))
        }
        guard Int(b.greatest) < values.count else {
            throw QuakeError.corrupt(path, "place index names magnitude \(b.greatest)")
        }
        let lo = Int64(bitPattern: values[Int(b.least)].bitPattern)
        let hi = Int64(bitPattern: values[Int(b.greatest)].bitPattern)
        return .some(NormalizedKey.bound(ZoneStats(min: lo, max: hi, nulls: 0, rows: n), .mag, ascending: ascending))
    }
}
