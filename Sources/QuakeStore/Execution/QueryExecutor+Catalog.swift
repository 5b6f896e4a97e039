import QuakeFormat

extension QueryExecutor {
    /// Counts the partitions of `parts` that `f` covers whole from the store catalog, without
    /// opening them: when `f` is time bounds and mag ranges only, the partitions inside its time
    /// bounds (a run, as partitions do not overlap) hold `row[b] - row[a]` rows per magnitude.
    /// Returns the partitions counted and their matching rows; nil when the catalog cannot say.
    /// - Complexity: O(distinct magnitudes), whatever the number of partitions.
    func catalogCount(_ f: Filter, _ parts: [Int]) throws(QuakeError) -> (partitions: Set<Int>, rows: Int)? {
        var ranges: [RangePredicate] = []
        let terms: [Filter]
        switch f {
        case .and(let filters): terms = filters
        case .all: terms = []
        default: terms = [f]
        }
        for term in terms {
            switch term {
            case .numberRange(.mag, let lo, let hi): ranges.append(.number(lower: lo, upper: hi))
            case .timeRange(.time, _, _): continue
            default: return nil
            }
        }
        let (lo, hi) = f.timeBounds
        let covered = parts.filter { p in
            let entry = manifest.partitions[p]
            return lo.map { entry.minTime >= $0 } ?? true && hi.map { entry.maxTime < $0 } ?? true
        }
        guard let first = covered.first, let last = covered.last, last - first + 1 == covered.count else {
            return nil
        }
        let rows = manifest.partitions[first...last].reduce(0) { $0 + $1.rows }
        if ranges.isEmpty { return (Set(covered), rows) }
        guard let catalog = try store.catalog(manifest) else { return nil }
        let before = try catalog.row(first)
        let after = try catalog.row(last + 1)
        let interval = MagInterval(ranges)
        var total = 0
        var matching = 0
        for k in 0..<after.count {
            guard after[k] >= before[k], after[k] - before[k] <= UInt64(rows) else {
                throw .corrupt(catalog.path, "rows \(first) and \(last + 1) do not count partitions")
            }
            let magnitudeRows = Int(after[k] - before[k])
            total += magnitudeRows
            if k < catalog.values.count && interval.contains(catalog.values[k]) { matching += magnitudeRows }
        }
        guard total == rows else {
            throw .corrupt(catalog.path,
                           "counts \(total) rows in partitions \(first)...\(last); the manifest says \(rows)")
        }
        return (Set(covered), matching)
    }
}
