import QuakeFormat

/// The groups of an aggregate and their accumulators, in flat arrays indexed by slot: one
/// slot per distinct key, so that memory grows with the groups, never with the rows. Each
/// metric keeps only what it needs: counts and extremes and sums for every numeric metric, a
/// running mean and sum of squared deviations (Welford) for `stddev`, the values for medians
/// and percentiles, and a set of value codes for `count(distinct …)`.
package struct GroupTable {
    /// What a metric accumulates.
    package enum Need {
        case rows, values, moments, samples, distinct
    }

    package let width: Int
    package let needs: [Need]
    /// Whether each unit's rows are summed apart and then added, as a unit's stored aggregates are.
    package var sumsPerUnit = false
    private var slotMap: SlotMap
    /// Key parts: slot `s`, key `g` at `s * width + g`.
    package private(set) var keys: [Int64] = []
    /// Rows per slot.
    package var counts: [Int] = []
    /// Per metric, per slot: non-null values, least, greatest, sum.
    package var valueCounts: [[Int]]
    package var least: [[Double]]
    package var greatest: [[Double]]
    package var sums: [[Double]]
    /// Per `stddev` metric, per slot: the running mean and sum of squared deviations.
    package var means: [[Double]]
    package var squares: [[Double]]
    /// Per median or percentile metric, per slot: its values and their counts. Metrics of one
    /// column share the first one's (``tallySource``).
    package var samples: [[ValueTally]]
    /// Per metric, the metric whose values and tallies it reads (itself but for a second
    /// median or percentile of one column).
    package let tallySource: [Int]
    /// Per `count(distinct …)` metric, per slot: the value codes seen.
    package var distinct: [[Set<Int64>]]

    package init(width: Int, metrics: [Metric]) {
        self.width = width
        slotMap = SlotMap(width: width)
        needs = metrics.map { metric in
            switch metric {
            case .count: return .rows
            case .stddev: return .moments
            case .median, .percentile: return .samples
            case .countDistinct: return .distinct
            default: return .values
            }
        }
        tallySource = metrics.indices.map { index in
            guard GroupTable.readsValues(metrics[index]) else { return index }
            return metrics.firstIndex { GroupTable.readsValues($0) && $0.column == metrics[index].column } ?? index
        }
        let metricCount = metrics.count
        valueCounts = Array(repeating: [], count: metricCount)
        least = Array(repeating: [], count: metricCount)
        greatest = Array(repeating: [], count: metricCount)
        sums = Array(repeating: [], count: metricCount)
        means = Array(repeating: [], count: metricCount)
        squares = Array(repeating: [], count: metricCount)
        samples = Array(repeating: [], count: metricCount)
        distinct = Array(repeating: [], count: metricCount)
    }

    package var slotCount: Int { counts.count }

    /// Whether a metric keeps the values' tally (a median or a percentile).
    static func readsValues(_ metric: Metric) -> Bool {
        switch metric {
        case .median, .percentile: return true
        default: return false
        }
    }

    /// The slot of a one-part key, made on first sight.
    package mutating func slot(_ key: Int64) -> Int {
        let slot = slotMap.slot(key)
        addSlots()
        return slot
    }

    /// The slot of each key of `batch` (`width` parts per key, one after another), made on first sight.
    package mutating func slots(_ batch: [Int64]) -> [Int] {
        var slots = [Int](repeating: 0, count: batch.count / width)
        // SAFETY: the buffers are the arrays' own and do not leave the closures.
        batch.withUnsafeBufferPointer { keys in
            slots.withUnsafeMutableBufferPointer { out in slotMap.slots(keys, into: out) }
        }
        addSlots()
        return slots
    }

    /// Accumulators for the slots the map made since the last call.
    private mutating func addSlots() {
        guard slotMap.count > slotCount else { return }
        keys.append(contentsOf: slotMap.keys[(slotCount * width)...])
        for _ in slotCount..<slotMap.count { appendSlot() }
    }

    /// The slot of a key, made on first sight.
    package mutating func slot(_ key: GroupKey) -> Int {
        let slot = slotMap.slot((0..<width).map { key[$0] })
        addSlots()
        return slot
    }

    /// Part `position` of slot `slot`'s key.
    package func key(_ slot: Int, _ position: Int) -> Int64 { keys[slot * width + position] }

    /// The whole key of slot `slot`.
    package func groupKey(_ slot: Int) -> GroupKey {
        var key = GroupKey()
        for position in 0..<width { key[position] = keys[slot * width + position] }
        return key
    }

    private mutating func appendSlot() {
        counts.append(0)
        if needs.allSatisfy({ $0 == .rows }) { return }
        for (metric, need) in needs.enumerated() {
            switch need {
            case .rows: continue
            case .values, .samples, .distinct, .moments:
                valueCounts[metric].append(0)
                least[metric].append(.infinity)
                greatest[metric].append(-.infinity)
                sums[metric].append(0)
            }
            switch need {
            case .moments:
                means[metric].append(0)
                squares[metric].append(0)
            case .samples: samples[metric].append(ValueTally())
            case .distinct: distinct[metric].append([])
            default: break
            }
        }
    }

    /// Adds another table's groups, as if its rows had been folded here.
    package mutating func merge(_ other: GroupTable) {
        let targets = slots(other.keys)
        for otherSlot in 0..<other.slotCount {
            let slot = targets[otherSlot]
            counts[slot] += other.counts[otherSlot]
            for (metric, need) in needs.enumerated() where need != .rows {
                let otherCount = other.valueCounts[metric][otherSlot]
                let count = valueCounts[metric][slot]
                if need == .moments && otherCount > 0 && count == 0 {
                    // a group new here takes the other's moments as they are: `mean * n / n` can
                    // move the mean an ulp, and a later merge would read that as a deviation
                    means[metric][slot] = other.means[metric][otherSlot]
                    squares[metric][slot] = other.squares[metric][otherSlot]
                } else if need == .moments && otherCount > 0 {
                    // Chan et al.: the two groups' means and squared deviations combined
                    let total = Double(count + otherCount)
                    let delta = other.means[metric][otherSlot] - means[metric][slot]
                    means[metric][slot] += delta * Double(otherCount) / total
                    squares[metric][slot] += other.squares[metric][otherSlot]
                        + delta * delta * Double(count) * Double(otherCount) / total
                }
                valueCounts[metric][slot] = count + otherCount
                least[metric][slot] = Swift.min(least[metric][slot], other.least[metric][otherSlot])
                greatest[metric][slot] = Swift.max(greatest[metric][slot], other.greatest[metric][otherSlot])
                sums[metric][slot] += other.sums[metric][otherSlot]
                if need == .samples && tallySource[metric] == metric {
                    samples[metric][slot].merge(other.samples[metric][otherSlot])
                }
                if need == .distinct { distinct[metric][slot].formUnion(other.distinct[metric][otherSlot]) }
            }
        }
    }

    /// The value of metric `metric` of slot `slot`; nil when the group had no value for it.
    package func value(_ slot: Int, _ metricIndex: Int, _ metric: Metric) -> Double? {
        let source = tallySource[metricIndex]
        let count = needs[metricIndex] == .rows ? counts[slot] : valueCounts[source][slot]
        switch metric {
        case .count: return Double(counts[slot])
        case .countValues: return Double(count)
        case .countDistinct: return Double(distinct[metricIndex][slot].count)
        default: break
        }
        guard count > 0 else { return nil }
        switch metric {
        case .min: return least[metricIndex][slot]
        case .max: return greatest[metricIndex][slot]
        case .sum: return sums[metricIndex][slot]
        case .avg: return sums[metricIndex][slot] / Double(count)
        case .stddev:
            guard count > 1 else { return nil }
            return (squares[metricIndex][slot] / Double(count - 1)).squareRoot()
        case .median: return samples[source][slot].continuous(0.5)
        case .percentile(let fraction, _): return samples[source][slot].nearestRank(fraction)
        default: return nil
        }
    }
}

extension GroupTable {
    /// Adds entries `entries` of a unit's aggregates to slot `slot`, as folding the unit's rows would.
    mutating func fold(_ slot: Int, _ aggregates: UnitAggregates, _ entries: Range<Int>, _ columns: [Int?]) {
        for entry in entries {
            counts[slot] += aggregates.rows(entry)
            for (metric, column) in columns.enumerated() {
                guard let column else { continue }
                let folded = aggregates.fold(entry, column)
                valueCounts[metric][slot] += folded.values
                least[metric][slot] = Swift.min(least[metric][slot], folded.least)
                greatest[metric][slot] = Swift.max(greatest[metric][slot], folded.greatest)
                sums[metric][slot] += folded.sum
            }
        }
    }
}
