import HeapModule

/// Runs filters, counts and sorted, paged queries over one snapshot: prunes partitions by
/// the time index and blocks by zone maps, evaluates column kernels block by block, keeps a
/// bounded heap for top-N (whose threshold skips blocks by their zone maps), and reads time
/// order straight from the partitions' (time, id) order.
final class QueryExecutor {
    let store: Store
    let manifest: Manifest

    init(store: Store) {
        self.store = store
        self.manifest = store.manifest
    }

    /// Partitions whose time span can hold matches.
    func partitions(for f: Filter, stats: inout QueryStats) -> [Int] {
        let (lo, hi) = f.timeBounds
        stats.partitionsTotal = manifest.partitions.count
        var out: [Int] = []
        for (i, e) in manifest.partitions.enumerated() {
            if let lo, e.maxTime < lo { continue }
            if let hi, e.minTime >= hi { continue }
            if case .none = f { continue }
            out.append(i)
        }
        stats.partitionsPruned = stats.partitionsTotal - out.count
        return out
    }

    func blockData(_ p: Int, _ k: Int) throws -> BlockData {
        let r = store.reader(manifest.partitions[p])
        let info = try r.blocks(.time)[k]
        return BlockData(reader: r, block: k, rows: Int(info.rows), firstRow: k * manifest.blockRows)
    }

    func blockCount(_ p: Int) throws -> Int { try store.reader(manifest.partitions[p]).blocks(.time).count }

    /// Matching rows (block-relative) of block `k` of partition `p`, or nil when pruned.
    func scan(_ p: Int, _ k: Int, _ f: Filter, _ stats: inout QueryStats) throws -> (BlockData, [Int])? {
        let r = store.reader(manifest.partitions[p])
        let verdict = try r.verdict(f, block: k)
        stats.blocksTotal += 1
        if verdict == .none { stats.blocksPruned += 1; return nil }
        let data = try blockData(p, k)
        stats.rowsEstimated += data.rows
        if verdict == .all {
            stats.blocksFromStatistics += 1
            return (data, Array(0..<data.rows))
        }
        stats.blocksScanned += 1
        let m = try data.mask(f)
        var rows: [Int] = []
        rows.reserveCapacity(m.count / 4)
        for i in 0..<m.count where m[i] { rows.append(i) }
        stats.columnsRead = Array(Set(stats.columnsRead).union(data.decodedColumns.map(\.name))).sorted()
        return (data, rows)
    }

    // MARK: count

    /// Number of matching rows, answered from zone maps where a block matches fully.
    func count(_ f: Filter) throws -> (Int, QueryStats) {
        var stats = QueryStats()
        stats.strategy = "count"
        let parts = partitions(for: f, stats: &stats)
        let results = try parallelMap(parts) { p -> (Int, QueryStats) in
            var s = QueryStats()
            var n = 0
            for k in 0..<(try self.blockCount(p)) {
                // scan answers fully matching blocks from zone maps without decoding
                if let (_, rows) = try self.scan(p, k, f, &s) { n += rows.count }
            }
            s.rowsMatched = n
            return (n, s)
        }
        var total = 0
        for (n, s) in results { total += n; stats.merge(s) }
        stats.rowsMatched = total
        return (total, stats)
    }

    // MARK: sorted queries

    func run(_ q: QuerySpec) throws -> ([RowRef], QueryStats) {
        let f = q.effectiveFilter
        var stats = QueryStats()
        if let l = q.limit, l <= 0 { return ([], stats) }
        if q.sort.count == 1 && q.sort[0].column == .time {
            return try readInOrder(q, f, &stats)
        }
        return try topN(q, f, &stats)
    }

    /// Time order read straight from the partitions: skip whole partitions for the offset.
    private func readInOrder(_ q: QuerySpec, _ f: Filter, _ stats: inout QueryStats) throws -> ([RowRef], QueryStats) {
        stats.strategy = "read in time order"
        let asc = q.sort[0].ascending
        var parts = partitions(for: f, stats: &stats)
        if !asc { parts.reverse() }
        var skip = q.offset
        var need = q.limit ?? Int.max
        var out: [RowRef] = []
        let trivial: Bool = { if case .all = f { return true }; return false }()
        for p in parts where need > 0 {
            let entry = manifest.partitions[p]
            if trivial && skip >= entry.rows {
                skip -= entry.rows
                stats.blocksFromStatistics += try blockCount(p)
                continue
            }
            var rows: [Int] = []
            for k in 0..<(try blockCount(p)) {
                if let (data, r) = try scan(p, k, f, &stats) { rows.append(contentsOf: r.map { $0 + data.firstRow }) }
            }
            stats.rowsMatched += rows.count
            if skip >= rows.count { skip -= rows.count; continue }
            if !asc { rows = try reversedKeepingIdOrder(rows, partition: p) }
            let take = min(need, rows.count - skip)
            out.append(contentsOf: rows[skip..<(skip + take)].map { RowRef(partition: p, row: $0) })
            need -= take
            skip = 0
        }
        stats.rowsReturned = out.count
        return (out, stats)
    }

    /// Rows in (time desc, id asc) order from rows in (time asc, id asc) order.
    private func reversedKeepingIdOrder(_ rows: [Int], partition p: Int) throws -> [Int] {
        var times: [Int64] = []
        for k in 0..<(try blockCount(p)) { times.append(contentsOf: try store.reader(manifest.partitions[p]).ints(.time, block: k)) }
        var out: [Int] = []
        out.reserveCapacity(rows.count)
        var end = rows.count
        while end > 0 {
            var start = end - 1
            while start > 0 && times[rows[start - 1]] == times[rows[end - 1]] { start -= 1 }
            out.append(contentsOf: rows[start..<end])
            end = start
        }
        return out
    }

    /// A bounded heap of the best `offset + limit` rows; blocks are visited best zone-map bound
    /// first, and once the heap is full a block whose bound cannot beat its worst row is skipped.
    private func topN(_ q: QuerySpec, _ f: Filter, _ stats: inout QueryStats) throws -> ([RowRef], QueryStats) {
        let K = q.limit.map { q.offset + $0 }
        let primary = q.sort[0]
        let numeric = primary.column.kind == .decimal || primary.column.kind == .timestamp
        var descMask: UInt64 = 0
        for (k, s) in q.sort.enumerated() where !s.ascending { descMask |= 1 << UInt64(k) }
        stats.strategy = K == nil ? "full sort" : "top-\(K!) heap"
        // every candidate block with the best value it can hold for the primary key
        var blocks: [(p: Int, k: Int, bound: SortValue)] = []
        for p in partitions(for: f, stats: &stats) {
            let r = store.reader(manifest.partitions[p])
            for k in 0..<(try blockCount(p)) {
                var bound = SortValue.null
                if numeric {
                    let b = try r.blocks(primary.column)[k]
                    if b.nulls < b.rows {
                        if primary.column.kind == .timestamp { bound = .number(Double(primary.ascending ? b.min : b.max)) }
                        else { bound = .number(primary.ascending ? b.minDouble : b.maxDouble) }
                    }
                } else {
                    bound = .text("")
                }
                blocks.append((p, k, bound))
            }
        }
        if numeric && K != nil {
            blocks.sort { SortValue.compare($0.bound, $1.bound, ascending: primary.ascending) < 0 }
        }
        // both cores: blocks dealt alternately (each half stays in bound order), one heap each
        let lanes = blocks.count >= 4 ? workerCount : 1
        let parts = try parallelMap(Array(0..<lanes)) { lane -> ([Candidate], QueryStats) in
            var s = QueryStats()
            let mine = stride(from: lane, to: blocks.count, by: lanes).map { blocks[$0] }
            let c = try self.collect(mine, q, f, K: K, numeric: numeric, descMask: descMask, stats: &s)
            return (c, s)
        }
        var merged: [Candidate] = []
        for (c, s) in parts {
            merged.append(contentsOf: c)
            stats.merge(s)
        }
        var sorted = merged.sorted()
        if let K, sorted.count > K { sorted.removeLast(sorted.count - K) }
        let page = sorted.dropFirst(q.offset)
        stats.rowsReturned = page.count
        return (page.map(\.ref), stats)
    }

    /// The best `K` candidates (all when `K` is nil) of `blocks`, visited in order.
    private func collect(_ blocks: [(p: Int, k: Int, bound: SortValue)], _ q: QuerySpec, _ f: Filter, K: Int?, numeric: Bool,
                         descMask: UInt64, stats: inout QueryStats) throws -> [Candidate] {
        let primary = q.sort[0]
        var heap = Heap<Candidate>()
        var all: [Candidate] = []
        for (n, b) in blocks.enumerated() {
            if let K, heap.count >= K, numeric, let worst = heap.max,
               SortValue.compare(b.bound, worst.values[0], ascending: primary.ascending) > 0 {
                stats.blocksSkippedByTopN += blocks.count - n
                break
            }
            guard let (data, rows) = try scan(b.p, b.k, f, &stats), !rows.isEmpty else { continue }
            stats.rowsMatched += rows.count
            let prim: [Double]? = numeric ? try data.doubles(primary.column) : nil
            var idArena: ByteArena?
            for i in rows {
                let v0: SortValue
                if let prim { v0 = prim[i].isNaN ? .null : .number(prim[i]) } else { v0 = try data.sortValue(primary.column, i) }
                if let K, heap.count >= K, let worst = heap.max,
                   SortValue.compare(v0, worst.values[0], ascending: primary.ascending) > 0 { continue }
                var values = [v0]
                for s in q.sort.dropFirst() { values.append(try data.sortValue(s.column, i)) }
                if idArena == nil { idArena = try data.text(.id) }
                let c = Candidate(values: values, id: idArena!.string(i) ?? "", ref: RowRef(partition: b.p, row: data.firstRow + i), descending: descMask)
                if let K {
                    if heap.count < K { heap.insert(c) } else if c < heap.max! { _ = heap.replaceMax(with: c) }
                } else {
                    all.append(c)
                }
            }
        }
        return K == nil ? all : Array(heap.unordered)
    }
}
