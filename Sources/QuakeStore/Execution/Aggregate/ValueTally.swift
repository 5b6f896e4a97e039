/// The distinct values of one group's column and how often each occurs: what medians and
/// percentiles need, exactly, in memory bounded by the distinct values rather than the rows
/// (stored columns are scaled decimals, so a group of millions of events holds a few thousand).
package struct ValueTally {
    /// Values by their bit patterns, each with a slot into `counts`.
    private var values = SlotMap(capacity: 8)
    private var counts: [Int] = []

    package init() {}

    /// Adds one value.
    package mutating func add(_ value: Double) {
        let slot = values.slot(Int64(bitPattern: value.bitPattern))
        if slot == counts.count { counts.append(0) }
        counts[slot] += 1
    }

    /// Adds a batch of values, given as their bit patterns.
    package mutating func add(patterns: [Int64]) {
        var slots = [Int](repeating: 0, count: patterns.count)
        // SAFETY: both buffers have patterns.count elements and do not leave the closures.
        patterns.withUnsafeBufferPointer { batch in
            slots.withUnsafeMutableBufferPointer { out in values.slots(batch, into: out) }
        }
        if values.count > counts.count {
            counts.append(contentsOf: repeatElement(0, count: values.count - counts.count))
        }
        for slot in slots { counts[slot] += 1 }
    }

    package mutating func merge(_ other: ValueTally) {
        for (slot, pattern) in other.values.keys.enumerated() {
            let mine = values.slot(pattern)
            if mine == counts.count { counts.append(0) }
            counts[mine] += other.counts[slot]
        }
    }

    /// The values in ascending order with their counts.
    private func sorted() -> [(value: Double, count: Int)] {
        values.keys.enumerated()
            .map { (Double(bitPattern: UInt64(bitPattern: $0.element)), counts[$0.offset]) }
            .sorted { $0.value < $1.value }
    }

    /// The value of 0-based rank `rank` and of the next rank, from the ascending list.
    private static func ranked(_ list: [(value: Double, count: Int)], _ rank: Int) -> (Double, Double) {
        var seen = 0
        for (index, entry) in list.enumerated() {
            seen += entry.count
            if rank < seen {
                let next = rank + 1 < seen || index + 1 == list.count ? entry.value : list[index + 1].value
                return (entry.value, next)
            }
        }
        return (list.last?.value ?? .nan, list.last?.value ?? .nan)
    }

    /// Nearest rank (DuckDB's `quantile_disc`): the value at rank ⌈p/100 · n⌉, at least 1.
    package func nearestRank(_ percent: Double) -> Double? {
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int((percent / 100 * Double(total)).rounded(.up)))
        return ValueTally.ranked(sorted(), min(total, rank) - 1).0
    }

    /// Interpolated (DuckDB's `quantile_cont` and `median`, numpy's default): between the values
    /// at ranks ⌊(n − 1) q⌋ and ⌈(n − 1) q⌉.
    package func continuous(_ fraction: Double) -> Double? {
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let position = Double(total - 1) * fraction
        let lower = Int(position.rounded(.down))
        let (low, high) = ValueTally.ranked(sorted(), lower)
        guard position > Double(lower) else { return low }
        return low + (high - low) * (position - Double(lower))
    }
}
