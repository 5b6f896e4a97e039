import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Grouped aggregates over matching rows, without materializing rows: per block, group keys
/// are computed into plain `Int64` arrays (time buckets and parts, global name ids of
/// dictionary codes, packed place codes, bins), each row finds its group's slot in a
/// ``GroupTable``, and metrics fold into the slots' flat accumulators. A key from a small
/// dictionary (a category, the place's region) maps codes to slots once per block, so no row
/// is hashed; a place hashes its packed code, never its text. Count-only time groupings take
/// whole blocks from zone maps when the block matches fully and lies in one bucket. Partitions
/// run on all cores and their tables are merged.
package final class Aggregator {
    package let executor: QueryExecutor
    package let filter: Filter
    package let groups: [GroupBy]
    package let metrics: [Metric]
    let names = Names()
    /// Whether units the filter covers whole are folded from the partitions' unit aggregates
    /// (off in the tests that compare the two paths).
    package var usesUnitAggregates = true

    /// Global ids for strings seen in block dictionaries: group keys and distinct values.
    package final class Names: Sendable {
        private struct State {
            var ids: [String: Int64] = [:]
            var list: [String] = [""]
        }
        private let state = Mutex(State())
        /// Every name so far, by id.
        package var list: [String] { state.locked { $0.list } }
        package func id(_ name: String) -> Int64 {
            state.locked { current in
                if let id = current.ids[name] { return id }
                current.list.append(name)
                let id = Int64(current.list.count - 1)
                current.ids[name] = id
                return id
            }
        }
        package func name(_ id: Int64) -> String { state.locked { $0.list[Int(id)] } }
    }

    /// Group keys a row key holds.
    package static let maxGroups = GroupKey.capacity
    /// The key of a null group value, and the code of a null value.
    package static let nullKey = Int64.min

    package init(executor: QueryExecutor, filter: Filter, groups: [GroupBy], metrics: [Metric]) throws(QuakeError) {
        self.executor = executor
        self.filter = try executor.prepared(filter)
        self.groups = groups
        self.metrics = metrics
    }

    package static func bucket(_ t: Int64, _ b: GroupBy.TimeBucket) -> Int64 {
        let day = (t >= 0 ? t : t - 86_399_999) / 86_400_000
        switch b {
        case .hour: return (t >= 0 ? t : t - 3_599_999) / 3_600_000 * 3_600_000
        case .day: return day * 86_400_000
        case .week:
            let dayNumber = Int(day)
            return Int64(dayNumber - ((dayNumber + 3) % 7 + 7) % 7) * 86_400_000
        case .month:
            let (year, month, _) = Timestamp.civil(days: Int(day))
            return Int64(Timestamp.days(year: year, month: month, day: 1)) * 86_400_000
        case .year:
            let (year, _, _) = Timestamp.civil(days: Int(day))
            return Int64(Timestamp.days(year: year, month: 1, day: 1)) * 86_400_000
        }
    }

    /// Whether every group key is a bucket of time, so that a unit within one bucket is one group.
    private var groupsAreTimeBuckets: Bool {
        groups.allSatisfy { group in
            switch group {
            case .time, .interval: return true
            default: return false
            }
        }
    }

    /// Whether a metric sums floating-point values. Such sums depend on the order of their
    /// additions: an aggregate with a sum, an average or a standard deviation folds each partition
    /// into its own table, in row order, and merges them in partition order, so that a question
    /// gets the same bits every time.
    private var metricsHaveFloatingSums: Bool {
        metrics.contains { metric in
            switch metric {
            case .sum, .avg, .stddev: return true
            default: return false
            }
        }
    }

    /// The groups of the matching rows, every one, unordered.
    package func table() throws -> (GroupTable, QueryStats) {
        var stats = QueryStats()
        stats.strategy = "hash aggregate"
        var clock = StageClock()
        let parts = try executor.partitions(for: filter, stats: &stats)
        clock.end("plan: prune partitions by time", into: &stats)
        let fromStatistics = metrics.allSatisfy { $0 == .count } && groupsAreTimeBuckets
        let eligible = fromStatistics ? nil : unitPlan()
        let plan = usesUnitAggregates ? eligible : nil
        // One table per worker, not per partition: a key seen in many partitions is merged once.
        // An aggregate the unit aggregates could answer keeps a table per partition instead,
        // merged in partition order, and sums each unit apart: whether a unit is folded from its
        // aggregates or from its rows, and whichever worker took it, the sums get the same bits.
        // So does an aggregate with floating-point sums (``metricsHaveFloatingSums``).
        let perPartition = eligible != nil || metricsHaveFloatingSums
        let histogram = fromStatistics || eligible != nil ? nil : magHistogramPlan()
        let pool = Mutex<[GroupTable]>([])
        var all = GroupTable(width: max(1, groups.count), metrics: metrics)
        var first = true
        func add(_ table: GroupTable) {
            if first { all = table } else { all.merge(table) }
            first = false
        }
        // per-partition tables are merged a run of partitions at a time, in order: the tables
        // alive at once are bounded by the run, not by the store
        let run = perPartition ? max(32, workerCount * 8) : max(1, parts.count)
        for runStart in stride(from: 0, to: parts.count, by: run) {
            let runParts = Array(parts[runStart..<min(parts.count, runStart + run)])
            let partials = try parallelMap(runParts) { partition -> (GroupTable?, QueryStats) in
                var table = (perPartition ? nil : pool.withLock { $0.popLast() })
                    ?? GroupTable(width: max(1, self.groups.count), metrics: self.metrics)
                table.sumsPerUnit = eligible != nil
                let partitionStats = try self.fold(partition, plan: plan, eligible: eligible != nil,
                                                   fromStatistics: fromStatistics, histogram: histogram,
                                                   into: &table)
                if perPartition { return (table, partitionStats) }
                pool.withLock { $0.append(table) }
                return (nil, partitionStats)
            }
            for (table, partitionStats) in partials {
                if let table { add(table) }
                stats.merge(partitionStats)
            }
        }
        clock.end("scan and fold \(parts.count) partitions on \(min(workerCount, max(1, parts.count))) workers",
                  into: &stats)
        let pooled = pool.withLock { pool in
            defer { pool.removeAll() }
            return pool
        }
        for table in pooled { add(table) }
        // with no key, SQL answers one row even when no row matches: a count of 0, the rest null
        if groups.isEmpty && all.slotCount == 0 { _ = all.slot(GroupKey()) }
        clock.end("merge the workers' groups", into: &stats)
        return (all, stats)
    }

    /// Folds the matching rows of one partition into `local`: units its unit aggregates answer
    /// from those, count-only time buckets from zone maps, and the rest from their rows.
    private func fold(_ partition: Int, plan: UnitPlan?, eligible: Bool, fromStatistics: Bool,
                      histogram: MagHistogramPlan?, into local: inout GroupTable) throws -> QueryStats {
        var partitionStats = QueryStats()
        let reader = self.executor.reader(partition)
        let aggregates = try plan.flatMap { try reader.unitAggregates(group: $0.value?.column) }
        var nameTables: [Int: [Int64]] = [:]
        // units of single granules when the aggregates could serve, so that a unit folded
        // from its aggregates and one folded from its rows give the same sums
        let merge = !fromStatistics && !eligible && histogram == nil
        var histogramTally: [Int] = []
        for unit in try self.executor.units(partition, self.filter, merge: merge, stats: &partitionStats) {
            if let plan, let aggregates, unit.verdict == .all,
               try self.foldUnit(unit, reader, aggregates, plan, names: &nameTables, into: &local) {
                partitionStats.granulesFromStatistics += 1
                partitionStats.unitsFromAggregates += 1
                partitionStats.rowsMatched += unit.rows.count
                continue
            }
            if let histogram, usesUnitAggregates, unit.verdict == .all,
               try self.foldHistogram(unit, reader, histogram, tally: &histogramTally, into: &local) {
                partitionStats.granulesFromStatistics += 1
                partitionStats.unitsFromHistograms += 1
                partitionStats.rowsMatched += unit.rows.count
                continue
            }
            if fromStatistics, unit.verdict == .all, let key = try self.bucketKey(unit, reader) {
                partitionStats.granulesFromStatistics += 1
                partitionStats.unitsFromZoneMaps += 1
                partitionStats.rowsMatched += unit.rows.count
                local.counts[local.slot(key)] += unit.rows.count
                continue
            }
            let (data, selection) = try self.executor.scan(unit, self.filter, &partitionStats)
            if selection.isEmpty { continue }
            partitionStats.rowsMatched += selection.count
            partitionStats.rowsFolded += selection.count
            try self.fold(data, selection, into: &local)
            partitionStats.noteColumns(data.decodedColumns)
        }
        if let histogram { try foldTally(&histogramTally, reader, histogram, into: &local) }
        return partitionStats
    }

    /// The key of a unit whose rows all lie in one bucket of every (time) group key, from its
    /// zone map; nil when they span more than one.
    func bucketKey(_ unit: ScanUnit, _ reader: PartitionReader, skipping skipped: Int? = nil) throws -> GroupKey? {
        let zone = try unit.granule.map { try reader.zoneMap(granule: $0, block: unit.block) }
            ?? reader.zoneMap(block: unit.block)
        let time = try zone.stats(.time)
        var key = GroupKey()
        for (position, group) in groups.enumerated() where position != skipped {
            let low = Aggregator.timeKey(time.min, group)
            guard let low, low == Aggregator.timeKey(time.max, group) else { return nil }
            key[position] = low
        }
        return key
    }

    /// The bucket of `t` for a time bucket or interval key; nil for any other key.
    static func timeKey(_ t: Int64, _ group: GroupBy) -> Int64? {
        switch group {
        case .time(let calendar): return bucket(t, calendar)
        case .interval(let length): return intervalStart(t, length)
        default: return nil
        }
    }

    /// The start of the `length`-millisecond bucket holding `t`, counted from DuckDB's origin.
    static func intervalStart(_ t: Int64, _ length: Int64) -> Int64 {
        let offset = t &- GroupBy.intervalOrigin
        let index = offset >= 0 ? offset / length : -((-offset + length - 1) / length)
        return GroupBy.intervalOrigin &+ index &* length
    }

    /// Every group, sorted by its keys.
    package func run() throws -> ([AggregateRow], QueryStats) {
        try run(AggregateOrder())
    }

    /// The groups `order.having` keeps, in `order`'s order (then by key), at most `order.limit`.
    package func run(_ order: AggregateOrder) throws -> ([AggregateRow], QueryStats) {
        var (groupTable, stats) = try self.table()
        var clock = StageClock()
        let rows = try rows(groupTable, order)
        clock.end("having, order, limit and keys' text: \(rows.count) of \(groupTable.slotCount) groups",
                  into: &stats)
        stats.rowsReturned = rows.count
        return (rows, stats)
    }
}

extension Store {
    /// Grouped aggregates of matching rows, sorted by group keys.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for more than eight group keys.
    package func aggregate(_ filter: Filter = .all, by groups: [GroupBy], metrics: [Metric],
                           order: AggregateOrder = AggregateOrder()) throws -> ([AggregateRow], QueryStats) {
        guard groups.count <= Aggregator.maxGroups else {
            throw QuakeError.argument("the number of group keys",
                                      "at most \(Aggregator.maxGroups), not \(groups.count)")
        }
        for group in groups { try group.validate() }
        for metric in metrics { try metric.validate() }
        // the metrics the condition reads but the caller did not ask for, computed and left out
        let hidden = (order.having?.metrics ?? []).filter { !metrics.contains($0) }
        for metric in hidden { try metric.validate() }
        let aggregator = try Aggregator(executor: QueryExecutor(store: self), filter: filter, groups: groups,
                                    metrics: metrics + hidden)
        var (rows, stats) = try aggregator.run(order)
        if !hidden.isEmpty {
            for index in rows.indices {
                rows[index].values.removeLast(hidden.count)
                rows[index].metrics = metrics
            }
        }
        return (rows, stats)
    }
}
