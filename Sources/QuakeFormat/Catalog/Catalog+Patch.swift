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
        var index: [Double: Int] = [:]
        for (valueIndex, value) in values.enumerated() { index[value] = valueIndex }
        // per replaced partition, its change of counts; row `i` counts partitions 0..<i, so
        // rows up to the first replaced partition's own stay as stored
        var moves: [(partition: Int, delta: [Int64])] = []
        for partition in changes.keys.sorted() {
            guard let change = changes[partition], try oldPlaces.summary(partition: partition) == change.places else {
                return nil
            }
            var delta = [Int64](repeating: 0, count: width)
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
            moves.append((partition, delta))
        }
        guard let first = moves.first?.partition else { return nil }
        var rowBytes = storedRowBytes()
        var checksums = rowChecksums
        var running = [Int64](repeating: 0, count: width)
        var next = 0
        for row in (first + 1)...partitions {
            // the changes of the partitions before this row
            while next < moves.count && moves[next].partition < row {
                for valueIndex in 0..<width {
                    try move(&running[valueIndex], by: moves[next].delta[valueIndex])
                }
                next += 1
            }
            checksums[row] = try shift(row, of: &rowBytes, by: running, width: width)
        }
        // a value no row holds any more leaves the list: the whole encode drops it
        let last = try rowCounts(partitions, of: rowBytes, width: width)
        guard (0..<values.count).allSatisfy({ last[$0] > 0 }) else { return nil }
        return Catalog.encode(files: newFiles, values: values, rowBytes: rowBytes, rowChecksums: checksums,
                              section: section)
    }

    /// Adds `amount` to `total`; a sum past what 63 bits hold is damage.
    private func move(_ total: inout Int64, by amount: Int64) throws(QuakeError) {
        let (moved, overflow) = total.addingReportingOverflow(amount)
        guard !overflow else { throw .corrupt(path, "running counts overflow") }
        total = moved
    }

    /// Row `row` of `rowBytes` checked against its stored checksum, then each count moved by
    /// `delta`; returns the new row's checksum. A count that would fall under zero is damage.
    private func shift(_ row: Int, of rowBytes: inout [UInt8], by delta: [Int64],
                       width: Int) throws(QuakeError) -> UInt64 {
        let start = row * width * 8
        // SAFETY: rowBytes holds (partitions + 1) rows of `width` u64s and 0 <= row <= partitions, so the
        // row's bytes lie inside it; the loads and stores stay inside them and `raw` does not escape.
        let result = rowBytes.withUnsafeMutableBytes { raw in Result { () throws(QuakeError) -> UInt64 in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + width * 8)])
            guard Checksum.hash(UnsafeRawBufferPointer(bytes)) == rowChecksums[row] else {
                throw .corrupt(path, "row \(row): checksum mismatch")
            }
            for valueIndex in 0..<width where delta[valueIndex] != 0 {
                let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: valueIndex * 8, as: UInt64.self))
                let (moved, overflow) = Int64(bitPattern: stored).addingReportingOverflow(delta[valueIndex])
                guard !overflow, moved >= 0, stored <= UInt64(Int64.max) else {
                    throw .corrupt(path, "running counts fall at partition \(row)")
                }
                bytes.storeBytes(of: UInt64(moved).littleEndian, toByteOffset: valueIndex * 8, as: UInt64.self)
            }
            return Checksum.hash(UnsafeRawBufferPointer(bytes))
        } }
        return try result.get()
    }

    /// The counts of row `row` of `rowBytes`.
    private func rowCounts(_ row: Int, of rowBytes: [UInt8], width: Int) throws(QuakeError) -> [UInt64] {
        try rowBytes.withStoreBytes { (raw) throws(QuakeError) -> [UInt64] in
            var reader = ByteReader(raw, at: row * width * 8)
            return try reader.raw(width, as: UInt64.self).map { UInt64(littleEndian: $0) }
        }
    }

    /// Adds (or takes) `count` to `total`; a count past what 63 bits hold is damage.
    private func move(_ total: inout Int64, by count: UInt64, adding: Bool) throws(QuakeError) {
        guard let amount = Int64(exactly: count) else { throw .corrupt(path, "a count of \(count) rows") }
        let (moved, overflow) = adding ? total.addingReportingOverflow(amount)
            : total.subtractingReportingOverflow(amount)
        guard !overflow else { throw .corrupt(path, "a count of \(count) rows") }
        total = moved
    }
}
