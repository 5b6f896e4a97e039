extension Catalog {
    /// The catalog of the same partitions with some files replaced, from this one's bytes: the
    /// running counts after each replaced partition moved by its change of histogram, the rows
    /// before it and the place section copied (the replaced partitions' place summaries patched
    /// in, ``Places/patched(_:)``). A magnitude new to the store, or one no row holds any more,
    /// changes the value list: every row is then laid out again from the stored ones. The bytes
    /// are those ``encode(files:histograms:places:)`` writes for the new partitions.
    ///
    /// Nil when the patch cannot give those bytes: another number of partitions, a catalog
    /// without a place section, a place summary naming a locality the section lacks (or leaving
    /// one unheld), or a catalog past ``sizeLimit``.
    /// - Parameters:
    ///   - files: the new snapshot's partition files, in manifest order.
    ///   - changes: per replaced partition (its index), its new histogram and place summary.
    /// - Complexity: O(rows × magnitudes) additions and one pass of checksums; no partition is
    ///   opened but the replaced ones, by the caller.
    package func patched(files newFiles: [String],
                         changes: [Int: (histogram: Histogram, places: PlaceSummary?)]) throws(QuakeError)
        -> (bytes: [UInt8], checksum: UInt64)? {
        guard newFiles.count == partitions, !changes.isEmpty, let storedSection = try storedPlaceSection(),
              let oldPlaces = try storedPlaces() else { return nil }
        var placeChanges: [Int: PlaceSummary?] = [:]
        for (partition, change) in changes where try oldPlaces.summary(partition: partition) != change.places {
            placeChanges[partition] = change.places
        }
        var section = storedSection
        if !placeChanges.isEmpty {
            // a section written without summaries (past the size limit) is the whole encode's to decide
            guard oldPlaces.summarized.contains(true) else { return nil }
            guard let patchedSection = try oldPlaces.patched(placeChanges) else { return nil }
            section = patchedSection
        }
        var held = Set(values)
        for change in changes.values { held.formUnion(change.histogram.values) }
        let newValues = held.count == values.count ? values : held.sorted()
        let moves = try moves(changes, values: newValues)
        guard let first = moves.first?.partition else { return nil }
        // u64 counts (an older catalog, or a very large store) are laid out again, so that the
        // count width is the one the whole encode chooses
        if newValues.count == values.count && countBytes == 4 {
            var rowBytes = storedRowBytes()
            var checksums = rowChecksums
            let width = values.count + 1
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
                guard let checksum = try shift(row, of: &rowBytes, by: running, width: width) else {
                    // a count past what a u32 holds: the whole encode writes u64 counts
                    return try relaidOut(files: newFiles, values: newValues, moves: moves, section: section)
                }
                checksums[row] = checksum
            }
            // a value no row holds any more leaves the list, as the whole encode drops it
            let last = try rowCounts(partitions, of: rowBytes, width: width)
            if (0..<values.count).allSatisfy({ last[$0] > 0 }) {
                return Catalog.finish(files: newFiles, values: values, section: section) { section in
                    Catalog.encode(files: newFiles, values: values, rowBytes: rowBytes, countBytes: countBytes,
                                   rowChecksums: checksums, section: section)
                }
            }
        }
        return try relaidOut(files: newFiles, values: newValues, moves: moves, section: section)
    }

    /// Per replaced partition in order, its change of counts over `newValues` (then nulls).
    private func moves(_ changes: [Int: (histogram: Histogram, places: PlaceSummary?)],
                       values newValues: [Double]) throws(QuakeError) -> [(partition: Int, delta: [Int64])] {
        var index: [Double: Int] = [:]
        for (valueIndex, value) in newValues.enumerated() { index[value] = valueIndex }
        let width = newValues.count + 1
        var moves: [(partition: Int, delta: [Int64])] = []
        for partition in changes.keys.sorted() {
            guard let change = changes[partition] else { continue }
            var delta = [Int64](repeating: 0, count: width)
            let old = try storedHistogram(partition: partition)
            for (value, count) in zip(old.values, old.counts) {
                guard let valueIndex = index[value] else { throw .corrupt(path, "magnitude \(value) not listed") }
                try move(&delta[valueIndex], by: count, adding: false)
            }
            for (value, count) in zip(change.histogram.values, change.histogram.counts) {
                guard let valueIndex = index[value] else { throw .corrupt(path, "magnitude \(value) not listed") }
                try move(&delta[valueIndex], by: count, adding: true)
            }
            try move(&delta[newValues.count], by: change.histogram.nulls, adding: true)
            try move(&delta[newValues.count], by: old.nulls, adding: false)
            moves.append((partition, delta))
        }
        return moves
    }

    /// Every row laid out again over `newValues` (a superset of the stored values) from the
    /// stored rows (each checksum-checked) and `moves`; the values no row holds then dropped.
    private func relaidOut(files newFiles: [String], values newValues: [Double],
                           moves: [(partition: Int, delta: [Int64])],
                           section: [UInt8]) throws(QuakeError) -> (bytes: [UInt8], checksum: UInt64)? {
        var position: [Double: Int] = [:]
        for (valueIndex, value) in newValues.enumerated() { position[value] = valueIndex }
        let oldWidth = values.count + 1
        let width = newValues.count + 1
        var target = [Int](repeating: newValues.count, count: oldWidth)
        for (valueIndex, value) in values.enumerated() {
            guard let at = position[value] else { return nil }
            target[valueIndex] = at
        }
        guard (partitions + 1) * width * 8 <= Catalog.sizeLimit * 2 else { return nil }
        var rows = [UInt64](repeating: 0, count: (partitions + 1) * width)
        var running = [Int64](repeating: 0, count: width)
        var next = 0
        for row in 0...partitions {
            while next < moves.count && moves[next].partition < row {
                for valueIndex in 0..<width { try move(&running[valueIndex], by: moves[next].delta[valueIndex]) }
                next += 1
            }
            let stored = try self.storedRow(row)
            let base = row * width
            for valueIndex in 0..<oldWidth { rows[base + target[valueIndex]] = stored[valueIndex] }
            for valueIndex in 0..<width where running[valueIndex] != 0 {
                let stored = Int64(bitPattern: rows[base + valueIndex])
                let (moved, overflow) = stored.addingReportingOverflow(running[valueIndex])
                guard !overflow, moved >= 0, stored >= 0 else {
                    throw .corrupt(path, "running counts fall at partition \(row)")
                }
                rows[base + valueIndex] = UInt64(moved)
            }
        }
        // the values some row holds (running counts only grow, so the last row tells), and nulls
        let lastRow = partitions * width
        let kept = (0..<newValues.count).filter { rows[lastRow + $0] > 0 }
        let keptValues = kept.map { newValues[$0] }
        var keptRows = rows
        if kept.count < newValues.count {
            let columns = kept + [newValues.count]
            keptRows = []
            keptRows.reserveCapacity((partitions + 1) * columns.count)
            for row in 0...partitions {
                for column in columns { keptRows.append(rows[row * width + column]) }
            }
        }
        guard (partitions + 1) * (keptValues.count + 1) * 8 <= Catalog.sizeLimit else { return nil }
        return Catalog.finish(files: newFiles, values: keptValues, section: section) { section in
            Catalog.encode(files: newFiles, values: keptValues, rows: keptRows, section: section)
        }
    }

    /// The catalog `encode` writes with `section`, or with no place summaries when the section
    /// would take it past ``sizeLimit`` (the whole encode and the patch both end here).
    static func finish(files: [String], values: [Double], section: [UInt8],
                               _ encode: ([UInt8]) -> (bytes: [UInt8], checksum: UInt64))
        -> (bytes: [UInt8], checksum: UInt64) {
        let rowsLength = (files.count + 1) * (values.count + 1) * 8
        if section.count + rowsLength > sizeLimit {
            return encode(Places.encode(Array(repeating: nil, count: files.count)))
        }
        return encode(section)
    }

    /// Adds `amount` to `total`; a sum past what 63 bits hold is damage.
    private func move(_ total: inout Int64, by amount: Int64) throws(QuakeError) {
        let (moved, overflow) = total.addingReportingOverflow(amount)
        guard !overflow else { throw .corrupt(path, "running counts overflow") }
        total = moved
    }

    /// Row `row` of `rowBytes` (u32 counts) checked against its stored checksum, then each count
    /// moved by `delta`; returns the new row's checksum, or nil when a count passes what a u32
    /// holds. A count that would fall under zero is damage.
    private func shift(_ row: Int, of rowBytes: inout [UInt8], by delta: [Int64],
                       width: Int) throws(QuakeError) -> UInt64? {
        let start = row * width * 4
        // SAFETY: rowBytes holds (partitions + 1) rows of `width` u32s and 0 <= row <= partitions, so the
        // row's bytes lie inside it; the loads and stores stay inside them and `raw` does not escape.
        let result = rowBytes.withUnsafeMutableBytes { raw in Result { () throws(QuakeError) -> UInt64? in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + width * 4)])
            guard Checksum.hash(UnsafeRawBufferPointer(bytes)) == rowChecksums[row] else {
                throw .corrupt(path, "row \(row): checksum mismatch")
            }
            for valueIndex in 0..<width where delta[valueIndex] != 0 {
                let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: valueIndex * 4, as: UInt32.self))
                let (moved, overflow) = Int64(stored).addingReportingOverflow(delta[valueIndex])
                guard !overflow, moved >= 0 else { throw .corrupt(path, "running counts fall at partition \(row)") }
                guard moved <= Int64(UInt32.max) else { return nil }
                bytes.storeBytes(of: UInt32(moved).littleEndian, toByteOffset: valueIndex * 4, as: UInt32.self)
            }
            return Checksum.hash(UnsafeRawBufferPointer(bytes))
        } }
        return try result.get()
    }

    /// The counts of row `row` of `rowBytes` (u32 counts).
    private func rowCounts(_ row: Int, of rowBytes: [UInt8], width: Int) throws(QuakeError) -> [UInt64] {
        try rowBytes.withStoreBytes { (raw) throws(QuakeError) -> [UInt64] in
            var reader = ByteReader(raw, at: row * width * 4)
            return try reader.raw(width, as: UInt32.self).map { UInt64(UInt32(littleEndian: $0)) }
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
