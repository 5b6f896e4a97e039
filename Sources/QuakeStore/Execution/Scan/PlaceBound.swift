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
        if case .and(let filters) = f { terms = filters } else { terms = [f] }
        for term in terms {
            guard case .contains(.place, let needle, let insensitive) = term else { continue }
            let placeMatcher = PlaceMatcher(needle, insensitive: insensitive)
            guard !placeMatcher.mayTouchPrefix, !placeMatcher.needle.isEmpty else { continue }
            matcher = placeMatcher
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
        guard let granule = u.granule, let unit = index.unit(block: u.block, granule: granule), let table else {
            return .none
        }
        guard let bounds = index.bounds(unit: unit, matches: table) else { return .some(nil) }
        let rowCount = u.rows.count
        guard bounds.least != PlaceIndex.noMag else {
            let nullStats = ZoneStats(min: 0, max: 0, nulls: rowCount, rows: rowCount)
            return .some(NormalizedKey.bound(nullStats, .mag, ascending: ascending))
        }
        guard Int(bounds.greatest) < values.count else {
            throw QuakeError.corrupt(path, "place index names magnitude \(bounds.greatest)")
        }
        let lo = Int64(bitPattern: values[Int(bounds.least)].bitPattern)
        let hi = Int64(bitPattern: values[Int(bounds.greatest)].bitPattern)
        let magStats = ZoneStats(min: lo, max: hi, nulls: 0, rows: rowCount)
        return .some(NormalizedKey.bound(magStats, .mag, ascending: ascending))
    }
}
