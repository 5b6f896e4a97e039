extension Catalog {
    /// Partition `index`'s magnitudes, as ``Histogram/init(_:)`` reads them from its file: the
    /// values its rows hold (those whose running count grows over it), their counts and its
    /// rows without one. A commit takes the histograms of the partitions it kept from here, and
    /// opens only the partitions it wrote.
    /// - Complexity: O(magnitudes); both rows' checksums are checked on first use.
    package func histogram(partition index: Int) throws(QuakeError) -> Histogram {
        guard index >= 0, index < partitions else { throw .corrupt(path, "no partition \(index)") }
        if let entry = delta?.entry(partition: index) {
            return Histogram(values: entry.valueIndexes.map { values[$0] }, counts: entry.counts, nulls: entry.nulls)
        }
        return try storedHistogram(partition: index)
    }

    /// Partition `index`'s magnitudes as the catalog's own rows give them (no delta).
    func storedHistogram(partition index: Int) throws(QuakeError) -> Histogram {
        guard index >= 0, index < partitions else { throw .corrupt(path, "no partition \(index)") }
        let before = try storedRow(index)
        let after = try storedRow(index + 1)
        var held: [Double] = []
        var counts: [UInt64] = []
        for valueIndex in 0...values.count {
            guard after[valueIndex] >= before[valueIndex] else {
                throw .corrupt(path, "running counts fall at partition \(index)")
            }
            let count = after[valueIndex] - before[valueIndex]
            if valueIndex == values.count || count == 0 { continue }
            held.append(values[valueIndex])
            counts.append(count)
        }
        return Histogram(values: held, counts: counts, nulls: after[values.count] - before[values.count])
    }
}
