import QuakeFormat
/// A query: filter, order and page. The event id always breaks ties last.
package struct QuerySpec: Sendable {
    package var filter: Filter = .all
    package var sort: [SortKey] = [SortKey(.time)]
    package var limit: Int?
    package var offset = 0
    /// Resume after this keyset cursor (its sort must equal `sort`).
    package var after: Cursor?
    /// More rows than any store holds: limits and offsets at or above it are clamped.
    package static let rowsBound = 1 << 48

    package init(filter: Filter = .all, sort: [SortKey] = [SortKey(.time)], limit: Int? = nil, offset: Int = 0,
                 after: Cursor? = nil) {
        self.filter = filter
        self.sort = sort.isEmpty ? [SortKey(.time)] : sort
        self.limit = limit
        self.offset = offset
        self.after = after
    }

    /// The filter as executed: `filter` with the cursor condition folded in.
    package var effectiveFilter: Filter {
        guard let cursor = after else { return filter }
        var parts = [filter, .after(cursor)]
        // let the time index prune partitions before the cursor
        if cursor.sort.first?.column == .time, case .number(let time)? = cursor.values.first {
            parts.append(cursor.sort[0].ascending ? .timeRange(.time, lower: Int64(time), upper: nil)
                         : .timeRange(.time, lower: nil, upper: Int64(time) + 1))
        }
        return .conjunction(parts)
    }
}

/// A row of a snapshot: partition index in the manifest and row within the partition.
package struct RowRef: Sendable, Hashable {
    package var partition: Int
    package var row: Int
}

/// What the planner and executor did, for `explain`.
package struct QueryStats: Sendable {
    package var partitionsTotal = 0
    package var partitionsPruned = 0
    /// Partitions the catalog showed to hold no matching locality (place search top-N).
    package var partitionsPrunedByPlace = 0
    /// Partitions the top-N walk never opened: the cut-off beat their catalog bound.
    package var partitionsSkippedByTopN = 0
    package var blocksTotal = 0
    /// Blocks skipped because their zone maps rule every row out.
    package var blocksPruned = 0
    /// Blocks answered from zone maps alone (every row matches).
    package var blocksFromStatistics = 0
    package var blocksScanned = 0
    /// Blocks skipped by the top-N threshold.
    package var blocksSkippedByTopN = 0
    package var granulesTotal = 0
    /// Granules skipped because their zone maps or mag histograms rule every row out.
    package var granulesPruned = 0
    /// Granules the place index showed to hold no matching locality (place search top-N).
    package var granulesPrunedByPlace = 0
    /// Granules answered from statistics alone (every row matches, or a histogram counts them).
    package var granulesFromStatistics = 0
    package var granulesScanned = 0
    /// Granules whose rows all match by their zone maps, so that the filter did no work, but
    /// whose rows were read for the answer.
    package var granulesMatchedWhole = 0
    /// Rows an aggregate folded from decoded columns.
    package var rowsFolded = 0
    /// Units an aggregate folded from the stored unit aggregates, and from zone maps alone.
    package var unitsFromAggregates = 0
    package var unitsFromZoneMaps = 0
    /// Granules an aggregate keyed by magnitude folded from their exact mag histograms.
    package var unitsFromHistograms = 0
    /// Partitions the id index ruled out for a filter that requires one of a list of ids.
    package var partitionsPrunedByIdIndex = 0
    /// Wall-clock time per stage, in order (milliseconds).
    package var stages: [(name: String, milliseconds: Double)] = []
    /// Granules the top-N walk never read: its shared cut-off beat their best value.
    package var granulesSkippedByTopN = 0
    /// Rows in the partitions and blocks left after pruning.
    package var rowsEstimated = 0
    package var rowsMatched = 0
    package var rowsReturned = 0
    /// Predicates that ran as column kernels.
    package var kernels: [String] = []
    /// Predicates evaluated row by row (exact slow path).
    package var slowPath: [String] = []
    package var strategy = ""
    package var columnsRead: [String] = []
    /// The columns ``columnsRead`` names, as bits: a top-N notes its columns once per granule,
    /// and a column already noted costs no string work.
    private var columnsNoted: UInt64 = 0

    package mutating func noteColumns(_ cs: ColumnSet) {
        if cs.bits & ~columnsNoted == 0 { return }
        columnsNoted |= cs.bits
        let names = cs.map(\.name)
        if names.allSatisfy(columnsRead.contains) { return }
        columnsRead = QueryStats.union(columnsRead, names)
    }

    /// The names in `a` (sorted) or `b`, sorted, each once: inserted in place, with no `Set<String>`
    /// or sort, since a one-shot query pays for each new generic type it instantiates.
    static func union(_ a: [String], _ b: [String]) -> [String] {
        var out = a
        for n in b where !out.contains(n) {
            out.insert(n, at: out.firstIndex { $0 > n } ?? out.count)
        }
        return out
    }

    package mutating func merge(_ o: QueryStats) {
        blocksTotal += o.blocksTotal
        blocksPruned += o.blocksPruned
        blocksFromStatistics += o.blocksFromStatistics
        blocksScanned += o.blocksScanned
        blocksSkippedByTopN += o.blocksSkippedByTopN
        granulesTotal += o.granulesTotal
        granulesPruned += o.granulesPruned
        granulesPrunedByPlace += o.granulesPrunedByPlace
        granulesFromStatistics += o.granulesFromStatistics
        granulesScanned += o.granulesScanned
        granulesMatchedWhole += o.granulesMatchedWhole
        rowsFolded += o.rowsFolded
        unitsFromAggregates += o.unitsFromAggregates
        unitsFromZoneMaps += o.unitsFromZoneMaps
        unitsFromHistograms += o.unitsFromHistograms
        partitionsPrunedByIdIndex += o.partitionsPrunedByIdIndex
        granulesSkippedByTopN += o.granulesSkippedByTopN
        rowsEstimated += o.rowsEstimated
        rowsMatched += o.rowsMatched
        columnsRead = QueryStats.union(columnsRead, o.columnsRead)
        columnsNoted |= o.columnsNoted
    }
}
