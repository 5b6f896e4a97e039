import HeapModule
import Synchronization
import QuakeFormat

/// Top-N (or a full sort) on one numeric key with fixed-width keys and no per-row allocation.
/// Granules are visited best zone-map bound first from one shared cursor by every thread; each
/// thread keeps its own heap of the best keys, and the best K-th key any thread has seen is a
/// shared cut-off: a granule whose bound is worse is never read, and within a granule only rows
/// whose key can still place are passed to the filter. Rows that tie on the key are ordered by
/// id at the end, fetching ids for those rows only.
package struct KeyTopN {
    package let executor: QueryExecutor
    package let spec: QuerySpec
    package let filter: Filter

    private struct Entry {
        package var key: UInt64
        package var ref: RowRef
    }

    /// State the threads share: the unit cursor and the cut-off.
    private final class Shared: Sendable {
        package let next = Atomic<Int>(0)
        package let cutoff = Atomic<UInt64>(UInt64.max)

        package func lower(to k: UInt64) {
            var current = cutoff.load(ordering: .relaxed)
            while k < current {
                let (done, now) = cutoff.compareExchange(expected: current, desired: k, ordering: .relaxed)
                if done { return }
                current = now
            }
        }
    }

    package func run(_ stats: inout QueryStats) throws -> ([RowRef], QueryStats) {
        let key = spec.sort[0]
        let topCount = spec.limit.map { spec.offset.saturatingAdd($0) }
        let place = key.column == .mag && topCount != nil ? PlaceBound(filter) : nil
        let parts = try executor.partitions(for: filter, stats: &stats)
        var shared = Shared()
        var fromCatalog = false
        var found: [Entry] = []
        var lanes = 1
        let projected = try topCount.flatMap { topCount in try fromTopRows(place: place, K: topCount, &stats) }
        if let projected {
            (found, lanes, shared) = projected
            stats.partitionsSkippedByTopN += parts.count
        } else if let place, let topCount,
                  let (kept, cut) = try catalogPartitions(parts, place, K: topCount, ascending: key.ascending, &stats) {
            fromCatalog = true
            // the catalog's K-th best guaranteed key bounds the answer's K-th key: rows worse than
            // it are never passed to the filter, from the first granule on
            if let cut { shared.lower(to: cut) }
            // with the catalog's own cut-off the partitions left are about those the answer needs:
            // one search over all of them on every core; without it, rounds best bound first
            (found, lanes) = cut != nil ? try search(kept.map(\.p), place: place, K: topCount, shared: shared, &stats)
                : try searchInRounds(kept, place: place, K: topCount, shared: shared, &stats)
        } else {
            (found, lanes) = try search(parts, place: place, K: topCount, shared: shared, &stats)
        }
        var all = found
        let cut = shared.cutoff.load(ordering: .relaxed)
        if topCount != nil { all.removeAll { $0.key > cut } }
        StableSort.byKey(&all) { $0.key }
        if let topCount, all.count > topCount {
            // keep the whole tie group at the K-th key; ids decide inside it
            let lastKey = all[topCount - 1].key
            var end = topCount
            while end < all.count && all[end].key == lastKey { end += 1 }
            all.removeLast(all.count - end)
        }
        try orderTies(&all)
        if let topCount, all.count > topCount { all.removeLast(all.count - topCount) }
        let page = all.dropFirst(spec.offset)
        stats.rowsReturned = page.count
        let lanesNote = lanes > 1 ? ", one cut-off shared by \(lanes) threads" : ""
        var catalogNote = fromCatalog ? ", partitions chosen by the catalog's place bounds" : ""
        if projected != nil, let top = executor.manifest.top {
            catalogNote = ", on the magnitude projection alone "
                + "(\(top.rows) rows of magnitude \(top.threshold) or more), no partition opened"
        }
        stats.strategy = topCount.map {
            "top-\($0) by \(key.column.name) on fixed-width keys: granules best bound first\(lanesNote)\(catalogNote)"
        } ?? "full sort by \(key.column.name) on fixed-width keys"
        return (page.map(\.ref), stats)
    }

    /// The search on the magnitude projection alone (``TopRows``), when its answer is the
    /// answer: a top-`K` by magnitude descending that finds `K` matches there, as every row
    /// outside it is weaker than every row in it. Nil when the store has no projection or the
    /// projection holds fewer than `K` matches.
    private func fromTopRows(place: PlaceBound?, K topCount: Int, _ stats: inout QueryStats) throws
        -> ([Entry], Int, Shared)? {
        let key = spec.sort[0]
        guard topCount > 0, key.column == .mag, !key.ascending, let top = executor.topRows else { return nil }
        // a narrow time range (a day's map) cannot find K rows there: not worth opening the file
        let (lo, hi) = filter.timeBounds
        if lo != nil || hi != nil {
            let from = Swift.max(lo ?? top.minTime, top.minTime)
            let to = Swift.min(hi ?? top.maxTime, top.maxTime)
            let share = Double(to) - Double(from) + 1
            let span = Double(top.maxTime) - Double(top.minTime) + 1
            guard share > 0, Double(top.rows) * share / span >= Double(topCount) else { return nil }
        }
        let shared = Shared()
        var searchStats = QueryStats()
        let (found, lanes) = try search([executor.topRowsIndex], place: place, K: topCount, shared: shared,
                                        &searchStats)
        stats.merge(searchStats)
        // every row of the projection is at least as strong as any row outside it: K matches in
        // it are the K strongest matches of the store (ties at the K-th key included, as a tie
        // is as strong as the threshold too)
        let cut = shared.cutoff.load(ordering: .relaxed)
        guard found.lazy.filter({ $0.key <= cut }).count >= topCount else { return nil }
        return (found, lanes, shared)
    }

    /// Plans partitions `parts` on all cores, then walks their units best bound first on all
    /// cores under `shared`'s cut-off; returns the entries found and the lanes used.
    private func search(_ parts: [Int], place: PlaceBound?, K topCount: Int?, shared: Shared,
                        _ stats: inout QueryStats) throws -> ([Entry], Int) {
        let key = spec.sort[0]
        // partitions planned on all cores: a one-shot query opens and checks each on first touch
        let planned = try parallelMap(parts) { partition in
            var partStats = QueryStats()
            var out: [(u: ScanUnit, bound: UInt64)] = []
            let partitionReader = self.executor.reader(partition)
            let index = try place.flatMap { _ in try partitionReader.placeIndex() }
            let values = index == nil ? [] : try partitionReader.granules().magValues
            // one table per block: a partition's units share it
            var tableBlock = -1
            var table: [Bool]?
            for unit in try self.executor.units(partition, self.filter, merge: topCount == nil, stats: &partStats) {
                if let place, let index {
                    if unit.block != tableBlock {
                        table = try place.table(partitionReader, block: unit.block)
                        tableBlock = unit.block
                    }
                    switch try place.bound(unit, index, table: table, values: values, path: partitionReader.path,
                                           ascending: key.ascending) {
                    case .none:
                        break
                    case .some(nil):
                        partStats.granulesPrunedByPlace += 1
                        continue
                    case .some(let bound?):
                        out.append((unit, bound))
                        continue
                    }
                }
                let zone = try unit.granule.map { try partitionReader.zoneMap(granule: $0, block: unit.block) }
                    ?? partitionReader.zoneMap(block: unit.block)
                let bound = NormalizedKey.bound(try zone.stats(key.column), key.column, ascending: key.ascending)
                out.append((unit, bound))
            }
            return (out, partStats)
        }
        var units: [(u: ScanUnit, bound: UInt64)] = []
        for (out, partStats) in planned {
            units.append(contentsOf: out)
            stats.merge(partStats)
        }
        if topCount != nil { units.sort { $0.bound < $1.bound } }
        shared.next.store(0, ordering: .relaxed)
        let lanes = units.count >= 2 ? workerCount : 1
        let results = try parallelMap(Array(0..<lanes)) { _ -> ([Entry], QueryStats) in
            var laneStats = QueryStats()
            let entries = try self.lane(units, K: topCount, shared: shared, stats: &laneStats)
            return (entries, laneStats)
        }
        var all: [Entry] = []
        for (entries, laneStats) in results {
            all.append(contentsOf: entries)
            stats.merge(laneStats)
        }
        return (all, lanes)
    }

    /// Searches partitions `bounded` best catalog bound first, a few at a time (twice as many
    /// each round): after each round the K-th best key found so far is the cut-off, and a
    /// partition whose bound is worse is never opened. A one-shot query opens only the
    /// partitions that can still place.
    private func searchInRounds(_ bounded: [(p: Int, bound: UInt64)], place: PlaceBound, K topCount: Int,
                                shared: Shared, _ stats: inout QueryStats) throws -> ([Entry], Int) {
        let order = bounded.sorted { $0.bound < $1.bound || ($0.bound == $1.bound && $0.p < $1.p) }
        var found: [Entry] = []
        var lanes = 1
        var next = 0
        var size = 4 * workerCount
        while next < order.count {
            let cut = shared.cutoff.load(ordering: .relaxed)
            // ties at the cut-off still count: their ids decide the last places
            if order[next].bound > cut {
                stats.partitionsSkippedByTopN += order.count - next
                break
            }
            var round: [Int] = []
            while next < order.count && round.count < size && order[next].bound <= cut {
                round.append(order[next].p)
                next += 1
            }
            let (roundFound, roundLanes) = try search(round, place: place, K: topCount, shared: shared, &stats)
            found.append(contentsOf: roundFound)
            lanes = Swift.max(lanes, roundLanes)
            if topCount > 0, found.count >= topCount {
                var keys = found.map(\.key)
                keys.sort()
                shared.lower(to: keys[topCount - 1])
            }
            size *= 2
        }
        return (found, lanes)
    }

    /// The partitions of `parts` that can hold a row of the top `K` of a place search, from the
    /// catalog's place section alone, each with its bound, and the catalog's own cut-off when it
    /// chose them; nil when the store has no catalog place section.
    ///
    /// A partition without a matching locality is left out. When the place search is the whole
    /// filter, each matching locality of a partition holds a matching row at its greatest
    /// magnitude and one at its least, so these keys are keys of distinct matching rows; their
    /// K-th best is a cut-off the answer's K-th key cannot be worse than, and a partition whose
    /// bound is worse than that cut-off is never opened.
    /// - Complexity: O(the store's localities + the partitions' locality lists + matches log matches).
    private func catalogPartitions(_ parts: [Int], _ place: PlaceBound, K topCount: Int, ascending: Bool,
                                   _ stats: inout QueryStats) throws -> ([(p: Int, bound: UInt64)], cut: UInt64?)? {
        guard let catalog = try executor.store.catalog(executor.manifest),
              let places = try catalog.places() else { return nil }
        let matches = place.matcher.table(places.localities)
        func key(_ magnitude: Double) -> UInt64 {
            let bits = Int64(bitPattern: magnitude.bitPattern)
            return NormalizedKey.bound(ZoneStats(min: bits, max: bits, nulls: 0, rows: 1), .mag, ascending: ascending)
        }
        var bounded: [(p: Int, bound: UInt64)] = []
        var guaranteed: [UInt64] = []
        for p in parts {
            switch try places.bound(partition: p, matches: matches, rows: { lo, hi in
                guaranteed.append(key(lo))
                if lo != hi { guaranteed.append(key(hi)) }
            }) {
            case .unknown:
                bounded.append((p, 0))
            case .none:
                stats.partitionsPrunedByPlace += 1
            case .some(let lo?, let hi?):
                bounded.append((p, Swift.min(key(lo), key(hi))))
            case .some:
                bounded.append((p, NormalizedKey.null))
            }
        }
        // other terms of the filter may rule those rows out
        guard place.alone, topCount > 0, guaranteed.count >= topCount else { return (bounded, nil) }
        guaranteed.sort()
        let cut = guaranteed[topCount - 1]
        let kept = bounded.filter { $0.bound <= cut }
        stats.partitionsSkippedByTopN += bounded.count - kept.count
        return (kept, cut)
    }

    /// One thread: claims units in bound order until the next bound cannot beat the cut-off.
    private func lane(_ units: [(u: ScanUnit, bound: UInt64)], K topCount: Int?, shared: Shared,
                      stats: inout QueryStats) throws -> [Entry] {
        let key = spec.sort[0]
        var heap = Heap<UInt64>()
        var out: [Entry] = []
        var localCut = UInt64.max
        while true {
            let claimed = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
            if claimed >= units.count { break }
            if claimed & 63 == 0 { try executor.cancel?.check() }
            let (unit, bound) = units[claimed]
            if topCount != nil {
                localCut = Swift.min(localCut, shared.cutoff.load(ordering: .relaxed))
                if bound > localCut {
                    // units are in bound order: every later one is as bad. Close the cursor; the
                    // units no thread claimed yet are counted once, here
                    let unclaimed = shared.next.wrappingAdd(units.count, ordering: .relaxed).oldValue
                    stats.granulesSkippedByTopN += 1 + Swift.max(0, units.count - unclaimed)
                    break
                }
            }
            let data = executor.data(unit)
            guard let sel = try selection(unit, data, key, localCut: localCut, &stats) else { continue }
            let (keys, base) = try self.keys(data, key, sel)
            stats.noteColumns(data.decodedColumns.union([key.column]))
            stats.rowsMatched += sel.count
            sel.forEach { row in
                let rowKey = keys[row - base]
                if rowKey > localCut { return }
                if let topCount {
                    if rowKey > localCut { return }
                    if heap.count < topCount {
                        heap.insert(rowKey)
                    } else if let worst = heap.max, rowKey < worst {
                        _ = heap.replaceMax(with: rowKey)
                    }
                    if heap.count == topCount, let worst = heap.max, worst < localCut {
                        localCut = worst
                        shared.lower(to: worst)
                    }
                }
                out.append(Entry(key: rowKey, ref: RowRef(partition: unit.partition, row: data.firstRow + row)))
            }
            if let topCount, out.count > 2 * topCount + 4096 { out.removeAll { $0.key > localCut } }
        }
        return out
    }

    /// The rows of `unit` that pass the filter and whose key can still place under `localCut`
    /// (found on encoded values first, then the filter on those only); nil when none.
    private func selection(_ unit: ScanUnit, _ data: BlockData, _ key: SortKey, localCut: UInt64,
                           _ stats: inout QueryStats) throws -> Selection? {
        stats.rowsEstimated += data.rows
        var sel: Selection = .all(data.rows)
        if let range = NormalizedKey.range(upTo: localCut, key.column, ascending: key.ascending),
           let hits = try data.reader.select(key.column, block: unit.block, rows: unit.rows, range) {
            let base = UInt32(unit.rows.lowerBound)
            sel = hits.count == data.rows ? sel : .rows(hits.map { $0 - base })
            if sel.isEmpty {
                stats.granulesScanned += 1
                return nil
            }
        }
        if unit.verdict != .all {
            stats.granulesScanned += 1
            sel = try data.select(filter, sel)
        } else {
            stats.granulesFromStatistics += 1
        }
        return sel.isEmpty ? nil : sel
    }

    /// The keys of the window's rows from the first selected to the last, and the first's row:
    /// a few matching rows decode their stretch of the chunk, not the whole window.
    private func keys(_ d: BlockData, _ key: SortKey, _ sel: Selection) throws -> ([UInt64], Int) {
        let asc = key.ascending
        var base = 0
        if case .rows(let list) = sel, let lo = list.first, let hi = list.last, !d.isDecoded(key.column),
           lo <= hi, Int(hi) - Int(lo) + 1 < d.rows / 2 {
            base = Int(lo)
            let rows = (d.window.lowerBound + base)..<(d.window.lowerBound + Int(hi) + 1)
            switch try d.reader.decode(key.column, block: d.block, rows: rows, as: .doubles) {
            case .doubles(let values):
                // SAFETY: map visits exactly the buffer's count values; `p` does not escape the closure.
                let keys = values.withUnsafeBufferPointer { p in p.map { NormalizedKey.double($0, ascending: asc) } }
                return (keys, base)
            case .ints(let values) where key.column.kind == .timestamp:
                // SAFETY: map visits exactly the buffer's count values; `p` does not escape the closure.
                return (values.withUnsafeBufferPointer { p in p.map { NormalizedKey.time($0, ascending: asc) } }, base)
            case .ints(let values):
                // SAFETY: map visits exactly the buffer's count values; `p` does not escape the closure.
                return (values.withUnsafeBufferPointer { p in
                    p.map {
                        NormalizedKey.double($0 == RowBatch.null ? .nan : ScaledDecimal.double($0), ascending: asc)
                    }
                }, base)
            default:
                throw QuakeError.corrupt(d.reader.path, "column \(key.column) is not numeric")
            }
        }
        if key.column.kind == .timestamp {
            let times = try d.ints(key.column)
            // SAFETY: map visits exactly the buffer's count values; `p` does not escape the closure.
            return (times.withUnsafeBufferPointer { p in p.map { NormalizedKey.time($0, ascending: asc) } }, base)
        }
        let values = try d.doubles(key.column)
        // SAFETY: map visits exactly the buffer's count values; `p` does not escape the closure.
        return (values.withUnsafeBufferPointer { p in p.map { NormalizedKey.double($0, ascending: asc) } }, base)
    }

    /// Positions `range` of `ids` in the order `String`s sort (then by position): ASCII ids by
    /// their first eight bytes as one integer, then by bytes; anything else as `String`s. Ties
    /// break as cursors and the other sorts break them.
    static func idOrder(_ ids: ByteArena, _ range: Range<Int>) -> [Int] {
        let lo = range.isEmpty ? 0 : ids.range(range.lowerBound).lowerBound
        let hi = range.isEmpty ? 0 : ids.range(range.upperBound - 1).upperBound
        // SAFETY: `range` lies in 0..<ids.count (callers' contract), so lo..<hi lies in the arena's bytes.
        let ascii = ids.bytes.withUnsafeBufferPointer { p in !p[lo..<hi].contains { $0 >= 0x80 } }
        guard ascii else {
            let strings = range.map { ids.string($0) ?? "" }
            return range.sorted { a, b in
                let left = strings[a - range.lowerBound]
                let right = strings[b - range.lowerBound]
                return left < right || (left == right && a < b)
            }
        }
        // SAFETY: each range(i) lies in the arena's bytes and j < idRange.count guards
        // p[idRange.lowerBound + j].
        let keys: [UInt64] = ids.bytes.withUnsafeBufferPointer { p in
            range.map { i in
                var prefix: UInt64 = 0
                let idRange = ids.range(i)
                for j in 0..<8 { prefix = prefix << 8 | UInt64(j < idRange.count ? p[idRange.lowerBound + j] : 0) }
                return prefix
            }
        }
        return range.sorted { a, b in
            let left = keys[a - range.lowerBound]
            let right = keys[b - range.lowerBound]
            if left != right { return left < right }
            let comparison = ids.compare(a, ids, b)
            return comparison < 0 || (comparison == 0 && a < b)
        }
    }

    /// Orders each run of equal keys by event id (ascending), reading ids only for those rows.
    private func orderTies(_ all: inout [Entry]) throws {
        var tied: [Int] = []
        var start = 0
        while start < all.count {
            var end = start + 1
            while end < all.count && all[end].key == all[start].key { end += 1 }
            if end - start > 1 { tied.append(contentsOf: start..<end) }
            start = end
        }
        if tied.isEmpty { return }
        let ids = try IdFetcher(executor: executor).ids(tied.map { all[$0].ref }, spanning: all.map(\.ref))
        var runStart = 0
        while runStart < tied.count {
            var runEnd = runStart + 1
            while runEnd < tied.count && tied[runEnd] == tied[runEnd - 1] + 1
                    && all[tied[runEnd]].key == all[tied[runStart]].key {
                runEnd += 1
            }
            let slots = Array(tied[runStart..<runEnd])
            let order = KeyTopN.idOrder(ids, runStart..<runEnd)
            let sorted = order.map { all[tied[$0]] }
            for (k, slot) in slots.enumerated() { all[slot] = sorted[k] }
            runStart = runEnd
        }
    }
}
