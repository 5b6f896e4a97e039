extension Catalog {
    /// The catalog of the same partitions with some files replaced, from this one's bytes: the
    /// running counts after each replaced partition moved by its change of histogram, the rows
    /// before it and the place section copied. The bytes are those ``encode(files:histograms:places:)``
    /// writes for the new partitions.
    ///
    /// Nil when the patch cannot give those bytes: another number of partitions, a magnitude
    /// the catalog does not list or one no row holds any more (the value list changes), a
    /// replaced partition whose place summary changed, or a catalog without a place section.
    /// - Parameters:
    ///   - files: the new snapshot's partition files, in manifest order.
    ///   - changes: per replaced partition (its index), its new histogram and place summary.
    /// - Complexity: O(rows × magnitudes) additions and one pass of checksums; no partition is
    ///   opened but the replaced ones, by the caller.
    package func patched(files newFiles: [String],
                         changes: [Int: (histogram: Histogram, places: PlaceSummary?)]) throws(QuakeError)
        -> (bytes: [UInt8], checksum: UInt64)? {
        guard newFiles.count == partitions, !changes.isEmpty, let section = try storedPlaceSection(),
              let oldPlaces = try places() else { return nil }
        let width = values.count + 1
        var rows = try storedRows()
        var delta = [Int64](repeating: 0, count: width)
        var index: [Double: Int] = [:]
        for (valueIndex, value) in values.enumerated() { index[value] = valueIndex }
        var next = 0
        for partition in changes.keys.sorted() {
            guard let change = changes[partition], try oldPlaces.summary(partition: partition) == change.places else {
                return nil
            }
            // rows up to this partition's own carry the changes before it
            try apply(delta, to: &rows, rows: next...partition, width: width)
            next = partition + 1
            let old = try histogram(partition: partition)
            for (value, count) in zip(old.values, old.counts) {
                guard let valueIndex = index[value] else { return nil }
                try move(&delta[valueIndex], by: count, adding: false)
            }
            for (value, count) in zip(change.histogram.values, change.histogram.counts) {
                guard let valueIndex = index[value] else { return nil }
                try move(&delta[valueIndex], by: count, adding: true)
            }
            try move(&delta[values.count], by: change.histogram.nulls, adding: true)
            try move(&delta[values.count], by: old.nulls, adding: false)
        }
        try apply(delta, to: &rows, rows: next...partitions, width: width)
        // a value no row holds any more leaves the list: the whole encode drops it
        let last = partitions * width
        guard (0..<values.count).allSatisfy({ rows[last + $0] > 0 }) else { return nil }
        return Catalog.encode(files: newFiles, values: values, rows: rows, section: section)
    }

    /// Adds (or takes) `count` to `total`; a count past what 63 bits hold is damage.
    private func move(_ total: inout Int64, by count: UInt64, adding: Bool) throws(QuakeError) {
        guard let amount = Int64(exactly: count) else { throw .corrupt(path, "a count of \(count) rows") }
        let (moved, overflow) = adding ? total.addingReportingOverflow(amount)
            : total.subtractingReportingOverflow(amount)
        guard !overflow else { throw .corrupt(path, "a count of \(count) rows") }
        total = moved
    }

    /// Adds `delta` to each row of `range`; a count that would fall under zero is damage.
    private func apply(_ delta: [Int64], to rows: inout [UInt64], rows range: ClosedRange<Int>,
                       width: Int) throws(QuakeError) {
        guard delta.contains(where: { $0 != 0 }) else { return }
        for row in range {
            for valueIndex in 0..<width where delta[valueIndex] != 0 {
                let at = row * width + valueIndex
                let (moved, overflow) = Int64(bitPattern: rows[at]).addingReportingOverflow(delta[valueIndex])
                guard !overflow, moved >= 0, rows[at] <= UInt64(Int64.max) else {
                    throw .corrupt(path, "running counts fall at partition \(row)")
                }
                rows[at] = UInt64(moved)
            }
        }
    }
}
