import HeapModule
import QuakeFormat

/// Runs filters, counts and sorted, paged queries over one snapshot. Partitions are pruned by
/// the time index, then granules (4,096 rows) by their zone maps and mag histograms; kernels
/// narrow a ``Selection`` over each remaining window of granules, decoding only those rows.
/// Counts come from statistics where a granule matches fully or its histogram decides it,
/// time order is read straight from the partitions' (time, id) order, and top-N by a numeric
/// key walks granules best bound first (``KeyTopN``).
package final class QueryExecutor {
    package let store: Store
    package let manifest: Manifest
    /// Ids this query decoded while ordering ties, for the page it builds next.
    package let idWindows = IdWindows()

    /// An executor over `snapshot`, or the store's current manifest.
    package init(store: Store, snapshot: Manifest? = nil) {
        self.store = store
        self.manifest = snapshot ?? store.freshManifest()
        cancel = CancelFlag.current
        holdsDeleted = manifest.holdsDeleted
    }

    /// The cancellation of the async call running this query, asked per partition scanned.
    package let cancel: CancelFlag?

    /// Whether the snapshot holds tombstones (events whose status is `deleted`).
    private let holdsDeleted: Bool

    /// `f` as this snapshot runs it: with no tombstone in the snapshot, the check that leaves
    /// them out (``Filter/notDeleted``) matches every row and is dropped, so the catalog,
    /// histogram and projection shortcuts still see the filter's own shape; an `eventid` the
    /// snapshot holds as an event's own id is that event (``resolvingEventIds(_:)``); a filter that
    /// requires one of a list of ids reads only where the id index puts them (``withIdWindows(_:)``).
    package func prepared(_ f: Filter) throws(QuakeError) -> Filter {
        try withIdWindows(resolvingEventIds(holdsDeleted ? f : f.droppingTombstoneCheck))
    }

    /// A reader for partition `p`, or for the magnitude projection at ``topRowsIndex``.
    package func reader(_ p: Int) -> PartitionReader {
        p < manifest.partitions.count ? store.reader(manifest.partitions[p])
            : store.reader(manifest.top?.entry ?? manifest.partitions[p])
    }

    /// The snapshot's magnitude projection, when it was built from the snapshot's partitions
    /// (checked here: the queries that can use it ask once, the others never pay for it).
    package var topRows: TopRows? {
        manifest.top.flatMap { $0.partitionsHash == TopRows.hash(files: manifest.partitions.map(\.file)) ? $0 : nil }
    }

    /// The partition number that stands for the magnitude projection in ``RowRef``s and units.
    package var topRowsIndex: Int { manifest.partitions.count }

    /// Partitions whose time span can hold matches: within the filter's time bounds, and meeting
    /// its id-index windows when it has them (``prepared(_:)``).
    package func partitions(for f: Filter, stats: inout QueryStats) throws(QuakeError) -> [Int] {
        // the filter's own bounds first: what the id index's windows leave out is counted apart
        let (lo, hi) = QueryExecutor.withoutIdWindows(f).timeBounds
        stats.partitionsTotal = manifest.partitions.count
        var out: [Int] = []
        if case .none = f {
            stats.partitionsPruned = stats.partitionsTotal
            return out
        }
        for (i, entry) in manifest.partitions.enumerated() {
            if let lo, entry.maxTime < lo { continue }
            if let hi, entry.minTime >= hi { continue }
            out.append(i)
        }
        stats.partitionsPruned = stats.partitionsTotal - out.count
        if let windows = QueryExecutor.idWindows(f) {
            let before = out.count
            out.removeAll { !windows.meets(manifest.partitions[$0].minTime, manifest.partitions[$0].maxTime) }
            stats.partitionsPrunedByIdIndex = before - out.count
        }
        return out
    }

    // MARK: count

    /// Number of matching rows: granules that match fully count from the directory, granules
    /// whose only undecided terms are mag ranges count from their histograms, the rest run
    /// the kernels over their rows.
    /// Counts the rows `f` matches; with `cap`, stops once `cap` are found and gives
    /// `min(count, cap)`, so that whether more rows than a page exist costs about the page.
    package func count(_ f: Filter, cap: Int = .max) throws -> (Int, QueryStats) {
        let filter = try prepared(f)
        var stats = QueryStats()
        var parts = try partitions(for: filter, stats: &stats)
        let fromCatalog = try catalogCount(filter, parts)
        if let catalogCounted = fromCatalog { parts.removeAll { catalogCounted.partitions.contains($0) } }
        let found = CountCap(cap: cap, start: fromCatalog?.rows ?? 0)
        let results = try parallelMap(parts) { partition -> (Int, Int, QueryStats) in
            try self.countRows(partition, filter, found)
        }
        var total = fromCatalog?.rows ?? 0
        var histograms = 0
        for (matched, fromHistogram, partStats) in results {
            total += matched
            histograms += fromHistogram
            stats.merge(partStats)
        }
        total = min(total, cap)
        stats.rowsMatched = total
        let catalog = fromCatalog.map { "\($0.partitions.count) partitions counted from the store catalog" } ?? ""
        if parts.isEmpty && fromCatalog != nil {
            stats.strategy = "count: " + catalog + ", no partition opened"
            return (total, stats)
        }
        stats.strategy = (catalog.isEmpty ? "" : catalog + "; ") + (histograms > 0
            ? "count: granule zone maps, mag histograms (\(histograms) granules counted without decoding), "
                + "kernels on the rest"
            : "count: granule zone maps, kernels on encoded values")
        return (total, stats)
    }

    /// Rows of `partition` that `f` matches (until `found` reaches its cap), the granules counted
    /// from their histograms, and the partition's stats.
    private func countRows(_ partition: Int, _ f: Filter, _ found: CountCap) throws -> (Int, Int, QueryStats) {
        var partStats = QueryStats()
        var matched = 0
        var fromHistogram = 0
        if found.reached { return (0, 0, partStats) }
        let partitionReader = reader(partition)
        let granuleIndex = try partitionReader.granules()
        // granules the statistics cannot decide are scanned in runs, one window per run
        var run: ScanUnit?
        defer { found.add(matched) }
        for unit in try units(partition, f, merge: false, stats: &partStats) {
            if found.reached(adding: matched) { break }
            if unit.verdict == .all {
                matched += unit.rows.count
                partStats.granulesFromStatistics += 1
                continue
            }
            if let granule = unit.granule,
               let histogramCount = try partitionReader.zoneMap(granule: granule, block: unit.block)
                   .histogramCount(f, index: granuleIndex, granule: granule) {
                matched += histogramCount
                fromHistogram += 1
                partStats.granulesFromStatistics += 1
                continue
            }
            if let pending = run, pending.block == unit.block, pending.rows.upperBound == unit.rows.lowerBound {
                run = ScanUnit(partition: partition, block: unit.block,
                               rows: pending.rows.lowerBound..<unit.rows.upperBound,
                               blockStart: unit.blockStart, verdict: .some, granule: nil)
                continue
            }
            if let pending = run { matched += try scan(pending, f, &partStats).1.count }
            run = unit
        }
        if let pending = run { matched += try scan(pending, f, &partStats).1.count }
        return (matched, fromHistogram, partStats)
    }

    // MARK: sorted queries

    package func run(_ q: QuerySpec) throws -> ([RowRef], QueryStats) {
        var spec = q
        spec.filter = try prepared(spec.filter)
        let filter = spec.effectiveFilter
        var stats = QueryStats()
        if let limit = spec.limit, limit <= 0 { return ([], stats) }
        // no store holds 2^48 rows: a larger limit is none, a larger offset skips everything, and
        // the top-N arithmetic on `offset + limit` never nears overflow
        if let limit = spec.limit, limit >= QuerySpec.rowsBound { spec.limit = nil }
        if spec.offset >= QuerySpec.rowsBound { return ([], stats) }
        spec.offset = max(0, spec.offset)
        if spec.sort.count == 1 && spec.sort[0].column == .time {
            return try readInOrder(spec, filter, &stats)
        }
        if spec.sort.count == 1 && (spec.sort[0].column.kind == .decimal || spec.sort[0].column.kind == .timestamp) {
            return try KeyTopN(executor: self, spec: spec, filter: filter).run(&stats)
        }
        return try topN(spec, filter, &stats)
    }

    /// Time order read straight from the partitions, granule by granule: whole partitions are
    /// skipped for the offset, and a partition is read only until the page is full.
    private func readInOrder(_ q: QuerySpec, _ f: Filter,
                             _ stats: inout QueryStats) throws -> ([RowRef], QueryStats) {
        stats.strategy = "read in time order: granules of the time index, rows fetched for the page only"
        let asc = q.sort[0].ascending
        var parts = try partitions(for: f, stats: &stats)
        if !asc { parts.reverse() }
        var skip = q.offset
        var need = q.limit ?? Int.max
        var out: [RowRef] = []
        let trivial: Bool = {
            if case .all = f { return true }
            return false
        }()
        let early = try rowsOfIdList(parts, f, want: need == Int.max ? Int.max : skip + need, ascending: asc,
                                     &stats)
        for p in parts where need > 0 {
            let entry = manifest.partitions[p]
            if trivial && skip >= entry.rows {
                skip -= entry.rows
                stats.blocksFromStatistics += try reader(p).directory().blockSizes.count
                continue
            }
            if trivial, need != Int.max {
                // every row matches: the page is a run of storage rows, found without reading the rest
                let page = try trivialPage(p, skip: skip, take: min(need, entry.rows - skip), ascending: asc)
                stats.rowsMatched += page.count
                out.append(contentsOf: page.map { RowRef(partition: p, row: $0) })
                need -= page.count
                skip = 0
                continue
            }
            let want = need == Int.max ? Int.max : skip + need
            let rows = try early[p] ?? rowsInTimeOrder(p, f, want: want, ascending: asc, &stats)
            stats.rowsMatched += rows.count
            if skip >= rows.count {
                skip -= rows.count
                continue
            }
            let take = min(need, rows.count - skip)
            out.append(contentsOf: rows[skip..<(skip + take)].map { RowRef(partition: p, row: $0) })
            need -= take
            skip = 0
        }
        stats.rowsReturned = out.count
        return (out, stats)
    }

    /// When `f` requires one of a list of ids, the matching rows of each of `parts` (as
    /// ``rowsInTimeOrder(_:_:want:ascending:_:)`` gives them), read on the cores at once: the list
    /// bounds what every partition can give, so none is read far past the page, and the reads
    /// of a long list (a thousand ids in as many granules) no longer wait on one core. Empty for
    /// any other filter, or one partition.
    private func rowsOfIdList(_ parts: [Int], _ f: Filter, want: Int, ascending: Bool,
                              _ stats: inout QueryStats) throws -> [Int: [Int]] {
        guard parts.count > 1, QueryExecutor.requiredIds(f) != nil else { return [:] }
        let found = try parallelMap(parts) { p -> ([Int], QueryStats) in
            var partStats = QueryStats()
            let rows = try self.rowsInTimeOrder(p, f, want: want, ascending: ascending, &partStats)
            return (rows, partStats)
        }
        var rowsByPartition: [Int: [Int]] = [:]
        for (k, (rows, partStats)) in found.enumerated() {
            rowsByPartition[parts[k]] = rows
            stats.merge(partStats)
        }
        return rowsByPartition
    }

    /// The matching storage rows of partition `p` in time order (ties in id order), read unit by
    /// unit until `want` rows and any that tie on time with the last of them are in.
    private func rowsInTimeOrder(_ p: Int, _ f: Filter, want: Int, ascending asc: Bool,
                                 _ stats: inout QueryStats) throws -> [Int] {
        var rows: [Int] = []
        var times: [Int64] = []
        var units = try self.units(p, f, merge: true, stats: &stats)
        if !asc { units.reverse() }
        for unit in units {
            // a tie on time across the cut must be read whole before it is ordered by id
            if rows.count >= want && (asc || times.last != times[want - 1]) { break }
            let (data, sel) = try scan(unit, f, &stats)
            if sel.isEmpty { continue }
            var list = sel.list
            // the rows still wanted (their number is the page's, whatever the day's size), then
            // any that tie on time with the last of them, which restoreIdOrder orders by id
            let left = want == Int.max ? list.count : Swift.max(0, want - rows.count)
            if asc {
                rows.append(contentsOf: list.prefix(left).lazy.map { data.firstRow + Int($0) })
            } else {
                if left < list.count, data.isDecoded(.time) {
                    let all = try data.ints(.time)
                    guard let top = list.last, Int(top) < all.count else {
                        throw QuakeError.corrupt(data.reader.path, "time column block \(data.block)")
                    }
                    // the cut's time: the last row this unit gives, or the page's last row so far
                    var first = list.count - left
                    let cut = left > 0 ? all[Int(list[first])] : times[want - 1]
                    while first > 0, all[Int(list[first - 1])] == cut { first -= 1 }
                    list.removeFirst(first)
                    // no tie reaches this unit: its rows, and every earlier unit's, are earlier
                    if list.isEmpty { break }
                }
                // times of the selected stretch only, unless the filter decoded the window's already
                let lo = Int(list[0])
                let hi = Int(list[list.count - 1]) + 1
                let windowStart = data.window.lowerBound
                let stretchTimes = data.isDecoded(.time) ? Array(try data.ints(.time)[lo..<hi])
                    : try data.reader.ints(.time, block: data.block, rows: (windowStart + lo)..<(windowStart + hi))
                guard stretchTimes.count == hi - lo else {
                    throw QuakeError.corrupt(data.reader.path, "time column block \(data.block)")
                }
                for i in list.reversed() {
                    rows.append(data.firstRow + Int(i))
                    times.append(stretchTimes[Int(i) - lo])
                }
            }
        }
        if !asc { Self.restoreIdOrder(&rows, times) }
        return rows
    }

    /// Storage rows at positions `skip..<skip + take` of partition `p` in time order, when every
    /// row matches. Ascending, storage order is the order. Descending, position `j` is storage row
    /// `rowCount - 1 - j` except inside runs of equal times, which stay in id order: the run is widened to
    /// whole runs at both ends (times read for those rows only), reordered, then cut.
    /// - Complexity: O(take + the equal-time runs at the ends), whatever the partition's size.
    private func trivialPage(_ p: Int, skip: Int, take: Int, ascending: Bool) throws -> [Int] {
        if take <= 0 { return [] }
        if ascending { return Array(skip..<(skip + take)) }
        let rowCount = manifest.partitions[p].rows
        var lo = rowCount - skip - take
        var hi = rowCount - skip
        let partitionReader = reader(p)
        let blockRows = try partitionReader.directory().blockRows
        // times of storage rows `range`, decoded block by block for those rows only
        func times(_ range: Range<Int>) throws -> [Int64] {
            var out: [Int64] = []
            var row = range.lowerBound
            while row < range.upperBound {
                let block = row / blockRows
                let start = block * blockRows
                let end = min(range.upperBound, start + blockRows)
                let blockTimes = try partitionReader.ints(.time, block: block, rows: (row - start)..<(end - start))
                out.append(contentsOf: blockTimes)
                row = end
            }
            return out
        }
        func time(_ row: Int) throws -> Int64 {
            guard let time = try times(row..<(row + 1)).first else {
                throw QuakeError.corrupt(partitionReader.path, "no time for row \(row)")
            }
            return time
        }
        // widen to whole runs of equal times, reading times a miniblock at a time
        let first = try time(lo)
        let last = try time(hi - 1)
        while lo > 0 {
            let from = max(0, lo - 1024)
            let before = try times(from..<lo)
            if let changed = before.lastIndex(where: { $0 != first }) {
                lo = from + changed + 1
                break
            }
            lo = from
        }
        while hi < rowCount {
            let to = min(rowCount, hi + 1024)
            let after = try times(hi..<to)
            if let changed = after.firstIndex(where: { $0 != last }) {
                hi += changed
                break
            }
            hi = to
        }
        var rows = Array((lo..<hi).reversed())
        let runTimes = try times(lo..<hi)
        Self.restoreIdOrder(&rows, Array(runTimes.reversed()))
        let start = skip - (rowCount - hi)
        return Array(rows[start..<(start + take)])
    }

    /// Rows read in (time desc) order from (time asc, id asc) storage: each run of equal times
    /// is turned back to id ascending.
    package static func restoreIdOrder(_ rows: inout [Int], _ times: [Int64]) {
        var start = 0
        while start < rows.count {
            var end = start + 1
            while end < rows.count && times[end] == times[start] { end += 1 }
            if end - start > 1 { rows[start..<end].reverse() }
            start = end
        }
    }

    /// Top-N on any sort keys (text keys, several keys): a bounded heap of the best
    /// `offset + limit` rows; units are visited best block bound first, and once the heap is
    /// full a unit whose bound cannot beat its worst row is skipped.
    private func topN(_ q: QuerySpec, _ f: Filter, _ stats: inout QueryStats) throws -> ([RowRef], QueryStats) {
        let topCount = q.limit.map { q.offset.saturatingAdd($0) }
        let primary = q.sort[0]
        let numeric = primary.column.kind == .decimal || primary.column.kind == .timestamp
        var descMask: UInt64 = 0
        for (k, sortKey) in q.sort.enumerated() where !sortKey.ascending { descMask |= 1 << UInt64(k) }
        stats.strategy = topCount.map { "top-\($0) heap over sort values" } ?? "full sort"
        var units: [(u: ScanUnit, bound: SortValue)] = []
        for p in try partitions(for: f, stats: &stats) {
            let partitionReader = reader(p)
            for unit in try self.units(p, f, merge: true, stats: &stats) {
                var bound = SortValue.text("")
                if numeric {
                    bound = .null
                    let blockStats = try partitionReader.blocks(primary.column)[unit.block]
                    if blockStats.nulls < blockStats.rows {
                        if primary.column.kind == .timestamp {
                            bound = .number(Double(primary.ascending ? blockStats.min : blockStats.max))
                        } else {
                            bound = .number(primary.ascending ? blockStats.minDouble : blockStats.maxDouble)
                        }
                    }
                }
                units.append((unit, bound))
            }
        }
        if numeric && topCount != nil {
            units.sort { SortValue.compare($0.bound, $1.bound, ascending: primary.ascending) < 0 }
        }
        let lanes = units.count >= 4 ? workerCount : 1
        let parts = try parallelMap(Array(0..<lanes)) { lane -> ([Candidate], QueryStats) in
            var laneStats = QueryStats()
            let mine = stride(from: lane, to: units.count, by: lanes).map { units[$0] }
            let candidates = try self.collect(mine, q, f, K: topCount, numeric: numeric, descMask: descMask,
                                              stats: &laneStats)
            return (candidates, laneStats)
        }
        var merged: [Candidate] = []
        for (candidates, laneStats) in parts {
            merged.append(contentsOf: candidates)
            stats.merge(laneStats)
        }
        var sorted = merged.sorted()
        if let topCount, sorted.count > topCount { sorted.removeLast(sorted.count - topCount) }
        let page = sorted.dropFirst(q.offset)
        stats.rowsReturned = page.count
        return (page.map(\.ref), stats)
    }

    /// The best `K` candidates (all when `K` is nil) of `units`, visited in order.
    private func collect(_ units: [(u: ScanUnit, bound: SortValue)], _ q: QuerySpec, _ f: Filter,
                         K topCount: Int?, numeric: Bool, descMask: UInt64,
                         stats: inout QueryStats) throws -> [Candidate] {
        let primary = q.sort[0]
        var heap = Heap<Candidate>()
        var all: [Candidate] = []
        for (n, entry) in units.enumerated() {
            if n & 63 == 0 { try cancel?.check() }
            if let topCount, heap.count >= topCount, numeric, let worst = heap.max,
               SortValue.compare(entry.bound, worst.values[0], ascending: primary.ascending) > 0 {
                stats.granulesSkippedByTopN += units.count - n
                break
            }
            let (data, sel) = try scan(entry.u, f, &stats)
            if sel.isEmpty { continue }
            stats.rowsMatched += sel.count
            let ids = try data.text(.id)
            try sel.forEach { i in
                let primaryValue = try data.sortValue(primary.column, i)
                if let topCount, heap.count >= topCount, let worst = heap.max,
                   SortValue.compare(primaryValue, worst.values[0], ascending: primary.ascending) > 0 { return }
                var values = [primaryValue]
                for sortKey in q.sort.dropFirst() { values.append(try data.sortValue(sortKey.column, i)) }
                let candidate = Candidate(values: values, id: ids.string(i) ?? "",
                                          ref: RowRef(partition: entry.u.partition, row: data.firstRow + i),
                                          descending: descMask)
                if let topCount {
                    if heap.count < topCount {
                        heap.insert(candidate)
                    } else if let worst = heap.max, candidate < worst {
                        _ = heap.replaceMax(with: candidate)
                    }
                } else {
                    all.append(candidate)
                }
            }
        }
        return topCount == nil ? all : Array(heap.unordered)
    }
}
