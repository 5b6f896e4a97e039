import Foundation
import QuakeFormat
import Synchronization

/// Grouped aggregates over matching rows, without materializing rows: per block, group keys
/// are computed into plain `Int64` arrays (time buckets, global category ids, bins) and
/// metrics folded into per-group accumulators. Count-only time groupings take whole blocks
/// from zone maps when the block matches fully and lies in one bucket. Partitions run on
/// all cores and their partial groups are merged.
package final class Aggregator {
    package let executor: QueryExecutor
    package let filter: Filter
    package let groups: [GroupBy]
    package let metrics: [Metric]
    let names = Names()
    /// Whether units the filter covers whole are folded from the partitions' unit aggregates
    /// (off in the tests that compare the two paths).
    package var usesUnitAggregates = true

    package struct Key: Hashable {
        package var a: Int64 = 0, b: Int64 = 0, c: Int64 = 0
        package subscript(i: Int) -> Int64 {
            get { i == 0 ? a : i == 1 ? b : c }
            set { if i == 0 { a = newValue } else if i == 1 { b = newValue } else { c = newValue } }
        }
    }

    package struct Acc {
        package var count = 0
        package var n: [Int]
        package var mins: [Double]
        package var maxs: [Double]
        package var sums: [Double]
        package var values: [[Double]]

        package init(_ m: Int) {
            n = Array(repeating: 0, count: m)
            mins = Array(repeating: .infinity, count: m)
            maxs = Array(repeating: -.infinity, count: m)
            sums = Array(repeating: 0, count: m)
            values = Array(repeating: [], count: m)
        }

        package mutating func merge(_ o: Acc) {
            count += o.count
            for k in 0..<n.count {
                n[k] += o.n[k]; mins[k] = Swift.min(mins[k], o.mins[k]); maxs[k] = Swift.max(maxs[k], o.maxs[k]); sums[k] += o.sums[k]
                values[k].append(contentsOf: o.values[k])
            }
        }
    }

    /// Global ids for group values seen in block dictionaries (0 is null).
    package final class Names: Sendable {
        private struct State {
            var ids: [String: Int64] = [:]
            var list: [String] = [""]
        }
        private let state = Mutex(State())
        /// Every name so far, by id.
        package var list: [String] { state.locked { $0.list } }
        package func id(_ s: String) -> Int64 {
            state.locked { st in
                if let i = st.ids[s] { return i }
                st.list.append(s)
                st.ids[s] = Int64(st.list.count - 1)
                return Int64(st.list.count - 1)
            }
        }
        package func name(_ i: Int64) -> String { state.locked { $0.list[Int(i)] } }
    }

    /// Group keys a row key holds.
    package static let maxGroups = 3

    package init(executor: QueryExecutor, filter: Filter, groups: [GroupBy], metrics: [Metric]) {
        self.executor = executor
        self.filter = executor.prepared(filter)
        self.groups = groups
        self.metrics = metrics
    }

    package static func bucket(_ t: Int64, _ b: GroupBy.TimeBucket) -> Int64 {
        let day = (t >= 0 ? t : t - 86_399_999) / 86_400_000
        switch b {
        case .hour: return (t >= 0 ? t : t - 3_599_999) / 3_600_000 * 3_600_000
        case .day: return day * 86_400_000
        case .week:
            let d = Int(day)
            return Int64(d - ((d + 3) % 7 + 7) % 7) * 86_400_000
        case .month:
            let (y, m, _) = Timestamp.civil(days: Int(day))
            return Int64(Timestamp.days(year: y, month: m, day: 1)) * 86_400_000
        case .year:
            let (y, _, _) = Timestamp.civil(days: Int(day))
            return Int64(Timestamp.days(year: y, month: 1, day: 1)) * 86_400_000
        }
    }

    package func run() throws -> ([AggregateRow], QueryStats) {
        var stats = QueryStats()
        stats.strategy = "hash aggregate"
        let parts = executor.partitions(for: filter, stats: &stats)
        let countOnly = metrics.allSatisfy { $0 == .count }
        let timeOnly = groups.allSatisfy { if case .time = $0 { return true }; return false }
        let fromStatistics = countOnly && timeOnly
        let eligible = fromStatistics ? nil : unitPlan()
        let plan = usesUnitAggregates ? eligible : nil
        let partials = try parallelMap(parts) { p -> ([Key: Acc], QueryStats) in
            var local: [Key: Acc] = [:]
            var s = QueryStats()
            let r = self.executor.reader(p)
            let aggregates = try plan.flatMap { try r.unitAggregates(group: $0.value?.column) }
            var names: [Int: [Int64]] = [:]
            // units of single granules when the aggregates could serve, so that a unit folded
            // from its aggregates and one folded from its rows give the same sums
            let merge = !fromStatistics && eligible == nil
            for u in try self.executor.units(p, self.filter, merge: merge, stats: &s) {
                if let plan, let aggregates, u.verdict == .all,
                   try self.foldUnit(u, r, aggregates, plan, names: &names, into: &local) {
                    s.granulesFromStatistics += 1
                    s.rowsMatched += u.rows.count
                    continue
                }
                if fromStatistics, u.verdict == .all {
                    let zone = try u.granule.map { try r.zoneMap(granule: $0, block: u.block) } ?? r.zoneMap(block: u.block)
                    let t = try zone.stats(.time)
                    var lo = Key(), hi = Key()
                    for (g, by) in self.groups.enumerated() {
                        if case .time(let b) = by { lo[g] = Aggregator.bucket(t.min, b); hi[g] = Aggregator.bucket(t.max, b) }
                    }
                    if lo == hi {
                        s.granulesFromStatistics += 1
                        s.rowsMatched += u.rows.count
                        local[lo, default: Acc(self.metrics.count)].count += u.rows.count
                        continue
                    }
                }
                let (data, sel) = try self.executor.scan(u, self.filter, &s)
                if sel.isEmpty { continue }
                s.rowsMatched += sel.count
                try self.fold(data, sel, into: &local)
            }
            return (local, s)
        }
        var all: [Key: Acc] = [:]
        for (local, s) in partials {
            stats.merge(s)
            for (k, a) in local { all[k, default: Acc(metrics.count)].merge(a) }
        }
        var rows = all.map { (key, acc) in row(key, acc) }
        rows.sort { a, b in
            for k in 0..<a.keyValues.count {
                let c = SortValue.compare(a.keyValues[k], b.keyValues[k], ascending: true)
                if c != 0 { return c < 0 }
            }
            return false
        }
        return (rows, stats)
    }

    private func fold(_ data: BlockData, _ sel: Selection, into local: inout [Key: Acc]) throws {
        // the selected rows; a fully selected window is read in place
        let picked: [Int]? = { if case .rows(let r) = sel { return r.map { Int($0) } }; return nil }()
        let rows = RowList(picked: picked, count: sel.count)
        let denseColumn: Column? = {
            if groups.count == 1, case .value(let c) = groups[0], c.kind == .category { return c }
            return nil
        }()
        var keys = [Key](repeating: Key(), count: denseColumn == nil ? rows.count : 0)
        for (g, by) in groups.enumerated() where denseColumn == nil {
            switch by {
            case .time(let b):
                let t = try data.ints(.time)
                for (j, i) in rows.enumerated() { keys[j][g] = Aggregator.bucket(t[i], b) }
            case .bin(let c, let w):
                let v = try data.doubles(c)
                for (j, i) in rows.enumerated() { keys[j][g] = v[i].isNaN ? Int64.min : Int64(saturating: (v[i] / w).rounded(.down)) }
            case .value(let c):
                if c.kind == .category {
                    let cat = try data.category(c)
                    var table = [Int64](repeating: 0, count: cat.dictionary.count + 1)
                    for k in 0..<cat.dictionary.count { table[k + 1] = names.id(cat.dictionary.string(k) ?? "") }
                    for (j, i) in rows.enumerated() { keys[j][g] = table[Int(cat.codes[i])] }
                } else {
                    for (j, i) in rows.enumerated() { keys[j][g] = try data.string(c, i).map { names.id($0) } ?? 0 }
                }
            }
        }
        // one group slot per distinct key of this block, then flat per-slot accumulators
        var slotOf: [Key: Int] = [:]
        var slotKeys: [Key] = []
        var slot = [Int](repeating: 0, count: rows.count)
        var lastKey: Key?
        var lastSlot = 0
        var dense = false
        if let c = denseColumn {
            // slots straight from dictionary codes: no hashing per row
            let cat = try data.category(c)
            var slotOfCode = [Int](repeating: -1, count: cat.dictionary.count + 1)
            // SAFETY: every selected row is a row of the block, so below codes.count (asserted);
            // `codes` is the array's storage for the closure's span.
            assert(rows.fits(cat.codes.count))
            cat.codes.withUnsafeBufferPointer { codes in
                for (j, i) in rows.enumerated() {
                    let code = Int(codes[i])
                    if slotOfCode[code] < 0 {
                        slotOfCode[code] = slotKeys.count
                        slotKeys.append(Key(a: code == 0 ? 0 : names.id(cat.dictionary.string(code - 1) ?? "")))
                    }
                    slot[j] = slotOfCode[code]
                }
            }
            dense = true
        }
        for j in 0..<rows.count where !dense {
            let k = keys[j]
            if k == lastKey { slot[j] = lastSlot; continue }
            if let s = slotOf[k] { lastSlot = s } else {
                lastSlot = slotKeys.count
                slotOf[k] = lastSlot
                slotKeys.append(k)
            }
            lastKey = k
            slot[j] = lastSlot
        }
        var accs = Array(repeating: Acc(metrics.count), count: slotKeys.count)
        var counts = [Int](repeating: 0, count: slotKeys.count)
        for j in 0..<rows.count { counts[slot[j]] += 1 }
        for (m, metric) in metrics.enumerated() {
            guard let c = metric.column else { continue }
            let col = try data.doubles(c)
            var n = [Int](repeating: 0, count: slotKeys.count)
            var mins = [Double](repeating: .infinity, count: slotKeys.count)
            var maxs = [Double](repeating: -.infinity, count: slotKeys.count)
            var sums = [Double](repeating: 0, count: slotKeys.count)
            var values: [[Double]] = []
            let wantsValues: Bool = { if case .percentile = metric { return true }; return false }()
            if wantsValues { values = Array(repeating: [], count: slotKeys.count) }
            // SAFETY: every selected row is a row of the block, so below col.count (asserted);
            // `v` is the array's storage for the closure's span.
            assert(rows.fits(col.count))
            col.withUnsafeBufferPointer { v in
                for (j, i) in rows.enumerated() {
                    let x = v[i]
                    if x.isNaN { continue }
                    let g = slot[j]
                    n[g] += 1
                    if x < mins[g] { mins[g] = x }
                    if x > maxs[g] { maxs[g] = x }
                    sums[g] += x
                    if wantsValues { values[g].append(x) }
                }
            }
            for g in 0..<slotKeys.count {
                accs[g].n[m] = n[g]; accs[g].mins[m] = mins[g]; accs[g].maxs[m] = maxs[g]; accs[g].sums[m] = sums[g]
                if wantsValues { accs[g].values[m] = values[g] }
            }
        }
        for g in 0..<slotKeys.count {
            accs[g].count = counts[g]
            local[slotKeys[g], default: Acc(metrics.count)].merge(accs[g])
        }
    }

    /// Selected rows by position: a list, or every row of the window.
    package struct RowList {
        package let picked: [Int]?
        package let count: Int
        @inline(__always) package subscript(j: Int) -> Int { picked?[j] ?? j }
        package func enumerated() -> LazyMapSequence<Range<Int>, (offset: Int, element: Int)> {
            (0..<count).lazy.map { ($0, self[$0]) }
        }
        /// Whether every row lies in `0..<n` (for the asserts before unchecked reads).
        package func fits(_ n: Int) -> Bool {
            picked.map { $0.allSatisfy { $0 >= 0 && $0 < n } } ?? (count <= n)
        }
    }

    private func row(_ key: Key, _ acc: Acc) -> AggregateRow {
        var keys: [String?] = []
        var keyValues: [SortValue] = []
        for (g, by) in groups.enumerated() {
            let v = key[g]
            switch by {
            case .time(let b):
                let s = Timestamp.string(v)
                switch b {
                case .hour: keys.append(String(s.prefix(13)) + ":00Z")
                case .day, .week: keys.append(String(s.prefix(10)))
                case .month: keys.append(String(s.prefix(7)))
                case .year: keys.append(String(s.prefix(4)))
                }
                keyValues.append(.number(Double(v)))
            case .bin(_, let w):
                if v == Int64.min { keys.append(nil); keyValues.append(.null) } else {
                    let lo = Double(v) * w
                    keys.append(ScaledDecimal.trimmed((lo * 1e9).rounded() / 1e9))
                    keyValues.append(.number(lo))
                }
            case .value:
                if v == 0 { keys.append(nil); keyValues.append(.null) } else {
                    let s = names.name(v)
                    keys.append(s)
                    keyValues.append(.text(s))
                }
            }
        }
        let values: [Double?] = metrics.enumerated().map { m, metric in
            switch metric {
            case .count: return Double(acc.count)
            case .min: return acc.n[m] > 0 ? acc.mins[m] : nil
            case .max: return acc.n[m] > 0 ? acc.maxs[m] : nil
            case .sum: return acc.n[m] > 0 ? acc.sums[m] : nil
            case .avg: return acc.n[m] > 0 ? acc.sums[m] / Double(acc.n[m]) : nil
            case .percentile(let p, _):
                guard acc.n[m] > 0 else { return nil }
                return Aggregator.percentile(acc.values[m], p)
            }
        }
        return AggregateRow(keys: keys, keyValues: keyValues, values: values, groups: groups, metrics: metrics)
    }

    /// Nearest-rank percentile.
    package static func percentile(_ v: [Double], _ p: Double) -> Double {
        let s = v.sorted()
        let rank = max(1, Int((p / 100 * Double(s.count)).rounded(.up)))
        return s[min(s.count, rank) - 1]
    }
}

extension Store {
    /// Grouped aggregates of matching rows, sorted by group keys.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for more than three group keys.
    package func aggregate(_ filter: Filter = .all, by groups: [GroupBy], metrics: [Metric]) throws -> ([AggregateRow], QueryStats) {
        guard groups.count <= Aggregator.maxGroups else { throw QuakeError.argument("the number of group keys", "at most \(Aggregator.maxGroups), not \(groups.count)") }
        return try Aggregator(executor: QueryExecutor(store: self), filter: filter, groups: groups, metrics: metrics).run()
    }
}
