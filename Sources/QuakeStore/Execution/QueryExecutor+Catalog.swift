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
        case .and(let fs): terms = fs
        case .all: terms = []
        default: terms = [f]
        }
        for t in terms {
            switch t {
            case .numberRange(.mag, let lo, let hi): ranges.append(.number(lower: lo, upper: hi))
            case .timeRange(.time, _, _): continue
            default: return nil
            }
        }
        let (lo, hi) = f.timeBounds
        let covered = parts.filter { p in
            let e = manifest.partitions[p]
            return lo.map { e.minTime >= $0 } ?? true && hi.map { e.maxTime < $0 } ?? true
        }
        guard let a = covered.first, let b = covered.last, b - a + 1 == covered.count else { return nil }
        let rows = manifest.partitions[a...b].reduce(0) { $0 + $1.rows }
        if ranges.isEmpty { return (Set(covered), rows) }
        guard let cat = try store.catalog(manifest) else { return nil }
        let before = try cat.row(a), after = try cat.row(b + 1)
        let interval = MagInterval(ranges)
        var total = 0, n = 0
        for k in 0..<after.count {
            guard after[k] >= before[k], after[k] - before[k] <= UInt64(rows) else {
                throw .corrupt(cat.path, "rows \(a) and \(b + 1) do not count partitions")
            }
            let d = Int(after[k] - before[k])
            total += d
            if k < cat.values.count && interval.contains(cat.values[k]) { n += d }
        }
        guard total == rows else {
            throw .corrupt(cat.path, "counts \(total) rows in partitions \(a)...\(b); the manifest says \(rows)")
        }
        return (Set(covered), n)
    }
}
