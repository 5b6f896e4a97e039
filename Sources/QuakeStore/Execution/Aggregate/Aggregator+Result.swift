import QuakeFormat

extension Aggregator {
    /// The groups `order` keeps, sorted and limited, as rows. Only the rows returned get their
    /// keys' text; a top-N keeps its best rows in one pass, without sorting every group.
    func rows(_ table: GroupTable, _ order: AggregateOrder) throws -> [AggregateRow] {
        var keyCache = KeyCache(aggregator: self, table: table)
        var kept = keptSlots(table, order)
        // the sort metrics' values, once per kept group
        let sortValues = sortMetricValues(table, order, kept)
        func precedes(_ left: Int, _ right: Int) -> Bool {
            for (target, ascending) in order.keys {
                let comparison: Int
                switch target {
                case .metric(let index):
                    let values = sortValues[index] ?? []
                    comparison = SortValue.compare(values[left].map { .number($0) } ?? .null,
                                                   values[right].map { .number($0) } ?? .null, ascending: ascending)
                case .key(let position):
                    comparison = SortValue.compare(keyCache.value(left, position), keyCache.value(right, position),
                                                   ascending: ascending)
                }
                if comparison != 0 { return comparison < 0 }
            }
            for position in 0..<groups.count {
                let comparison = SortValue.compare(keyCache.value(left, position), keyCache.value(right, position),
                                                   ascending: true)
                if comparison != 0 { return comparison < 0 }
            }
            return false
        }
        if let limit = order.limit, limit < kept.count / 4 {
            // a few rows: keys compared (and their text made) only on ties
            kept = Aggregator.best(kept, limit, by: precedes)
        } else {
            sortByRanks(&kept, order, sortValues, &keyCache)
            if let limit = order.limit { kept = Array(kept.prefix(max(0, limit))) }
        }
        return kept.map { slot in
            var row = AggregateRow(keys: [], keyValues: [], values: [], groups: groups, metrics: metrics)
            for position in 0..<groups.count {
                row.keys.append(keyCache.text(slot, position))
                row.keyValues.append(keyCache.value(slot, position))
            }
            row.values = metrics.enumerated().map { index, metric in table.value(slot, index, metric) }
            return row
        }
    }

    /// The slots of the table that the order's `having` condition keeps (all of them without one).
    private func keptSlots(_ table: GroupTable, _ order: AggregateOrder) -> [Int] {
        var kept = Array(0..<table.slotCount)
        if let having = order.having {
            // the condition's metrics by position; the closure reads the table through one reference
            let positions = having.metrics.map { metric in (metric, metrics.firstIndex(of: metric)) }
            let shared = SharedTable(table)
            kept = kept.filter { slot in
                having.holds { metric in
                    guard let position = positions.first(where: { $0.0 == metric })?.1 else { return nil }
                    return shared.table.value(slot, position, metric)
                } == true
            }
        }
        return kept
    }

    /// Per metric the order sorts by, its value in each kept slot (nil elsewhere).
    private func sortMetricValues(_ table: GroupTable, _ order: AggregateOrder, _ kept: [Int]) -> [Int: [Double?]] {
        var sortValues: [Int: [Double?]] = [:]
        for (target, _) in order.keys {
            guard case .metric(let index) = target, sortValues[index] == nil else { continue }
            var values = [Double?](repeating: nil, count: table.slotCount)
            for slot in kept { values[slot] = table.value(slot, index, metrics[index]) }
            sortValues[index] = values
        }
        return sortValues
    }

    /// Sorts every kept slot: each key as an integer rank made once, so that the sort compares integers.
    private func sortByRanks(_ kept: inout [Int], _ order: AggregateOrder, _ sortValues: [Int: [Double?]],
                             _ keyCache: inout KeyCache) {
        let ranks = (0..<groups.count).map { keyRanks(kept, $0, &keyCache) }
        let metricValues = sortValues
        kept.sort { left, right in
            for (target, ascending) in order.keys {
                let comparison: Int
                switch target {
                case .metric(let index):
                    let values = metricValues[index] ?? []
                    comparison = SortValue.compare(values[left].map { .number($0) } ?? .null,
                                                   values[right].map { .number($0) } ?? .null, ascending: ascending)
                case .key(let position):
                    comparison = Aggregator.compareRanks(ranks[position][left], ranks[position][right], ascending)
                }
                if comparison != 0 { return comparison < 0 }
            }
            for position in 0..<ranks.count where ranks[position][left] != ranks[position][right] {
                return ranks[position][left] < ranks[position][right]
            }
            return false
        }
    }

    /// Per slot, key `position` as a rank that orders as its value does, nulls last (Int64.max):
    /// the key itself for times, parts and bins, and the place in the sorted texts for text keys.
    func keyRanks(_ slots: [Int], _ position: Int, _ keyCache: inout KeyCache) -> [Int64] {
        let table = keyCache.table
        var ranks = [Int64](repeating: Int64.max, count: table.slotCount)
        switch groups[position] {
        case .time, .interval, .part, .bin:
            for slot in slots {
                let key = table.key(slot, position)
                ranks[slot] = key == Aggregator.nullKey ? Int64.max : key
            }
        case .value, .region:
            var distinct: [Int64: Int64] = [:]
            for slot in slots { distinct[table.key(slot, position)] = 0 }
            distinct[Aggregator.nullKey] = nil
            let texts = distinct.keys.map { key in (key, keyCache.text(forKey: key, position)) }
            for (rank, entry) in texts.sorted(by: { $0.1 < $1.1 }).enumerated() {
                distinct[entry.0] = Int64(rank)
            }
            for slot in slots { ranks[slot] = distinct[table.key(slot, position)] ?? Int64.max }
        }
        return ranks
    }

    static func compareRanks(_ left: Int64, _ right: Int64, _ ascending: Bool) -> Int {
        if left == right { return 0 }
        // nulls (Int64.max) last whatever the direction, as SortValue orders them
        if left == Int64.max { return 1 }
        if right == Int64.max { return -1 }
        return (left < right) == ascending ? -1 : 1
    }

    /// The first `limit` of `items` under `precedes`, in order: one pass, binary insertion into
    /// the kept list, linear in the items for a small limit.
    static func best(_ items: [Int], _ limit: Int, by precedes: (Int, Int) -> Bool) -> [Int] {
        guard limit > 0 else { return [] }
        var kept: [Int] = []
        kept.reserveCapacity(limit + 1)
        for item in items {
            if kept.count == limit, let last = kept.last, !precedes(item, last) { continue }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(item, kept[middle]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(item, at: low)
            if kept.count > limit { kept.removeLast() }
        }
        return kept
    }

    /// A table behind one reference, so that closures share it rather than copy it.
    final class SharedTable {
        let table: GroupTable
        init(_ table: GroupTable) { self.table = table }
    }

    /// The group keys' sort values and text, made on first use.
    struct KeyCache {
        let aggregator: Aggregator
        let table: GroupTable
        /// Per key position, the text of each value seen.
        private var texts: [Int: [Int64: String]] = [:]

        init(aggregator: Aggregator, table: GroupTable) {
            self.aggregator = aggregator
            self.table = table
        }

        mutating func value(_ slot: Int, _ position: Int) -> SortValue {
            let key = table.key(slot, position)
            switch aggregator.groups[position] {
            case .time, .interval, .part: return .number(Double(key))
            case .bin(_, let width): return key == Aggregator.nullKey ? .null : .number(Aggregator.binStart(key, width))
            case .value, .region: return text(slot, position).map { .text($0) } ?? .null
            }
        }

        mutating func text(_ slot: Int, _ position: Int) -> String? {
            let key = table.key(slot, position)
            let group = aggregator.groups[position]
            switch group {
            case .time(let bucket):
                let text = Timestamp.string(key)
                switch bucket {
                case .hour: return String(text.prefix(19)) + "Z"
                case .day, .week: return String(text.prefix(10))
                case .month: return String(text.prefix(7))
                case .year: return String(text.prefix(4))
                }
            case .interval: return String(Timestamp.string(key).prefix(19)) + "Z"
            case .part: return String(key)
            case .bin(_, let width):
                guard key != Aggregator.nullKey else { return nil }
                return ScaledDecimal.trimmed(Aggregator.binStart(key, width))
            case .value, .region:
                guard key != Aggregator.nullKey else { return nil }
                return text(forKey: key, position)
            }
        }

        /// The text of a text key's value, made once per value.
        mutating func text(forKey key: Int64, _ position: Int) -> String {
            if let text = texts[position]?[key] { return text }
            let text: String
            if case .value(let column) = aggregator.groups[position], column.kind == .place {
                text = aggregator.placeText(key)
            } else {
                text = aggregator.names.name(key)
            }
            texts[position, default: [:]][key] = text
            return text
        }
    }
}
