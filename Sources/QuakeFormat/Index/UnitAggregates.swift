/// Small materialised aggregates of a partition: for every scan unit (a granule cut at block
/// edges, as in ``PlaceIndex``), for each code of the block dictionary of each group column
/// (`net`, `magType`, `type`, `status`, with 0 for null), the row count and, for each metric
/// column (`mag`, `depth`, `latitude`, `longitude`), the count of non-null values, their sum,
/// least and greatest value; then the same over all the unit's rows, as one more list of one entry
/// (code 0). A grouped aggregate over units its filter covers whole folds these instead of the
/// rows.
///
/// Sums, least and greatest are the doubles the query path decodes, folded in row order from
/// 0, +inf and -inf: folding a unit's entry gives bit for bit what folding its rows gives.
///
/// Stored in the partition file's data area, named by the directory (offset, length, checksum):
/// ```
/// u32 units, u8 group columns G, u8 metric columns M, u8 0, u8 0, G + M column numbers (u8 each),
/// u32 (units × (G + 1) + 1) entry offsets, in unit order then list order, then per entry:
/// u32 code, u32 rows, and per metric column: u32 values, f64 sum, f64 least, f64 greatest
/// ```
/// Entries of a unit and group column are sorted by code; their rows add up to the unit's.
package struct UnitAggregates: Sendable {
    package static let groupColumns: [Column] = [.net, .magType, .type, .status]
    package static let metricColumns: [Column] = [.mag, .depth, .latitude, .longitude]

    /// One metric column's fold over a unit's rows of one code.
    package struct Fold: Sendable, Equatable {
        package var values: Int
        package var sum: Double
        package var least: Double
        package var greatest: Double
        package static let empty = Fold(values: 0, sum: 0, least: .infinity, greatest: -.infinity)
    }

    package let unitCount: Int
    /// The list parsed: an index into ``groupColumns``, or nil for the entries of all rows.
    package let group: Int?
    static var lists: Int { groupColumns.count + 1 }
    /// Per unit, the first of its entries in the list; one more at the end.
    private let offsets: [Int]
    private let codes: [UInt32]
    private let rows: [UInt32]
    /// Per entry, ``metricColumns``.count folds.
    private let folds: [Fold]
    private let blockFirstUnit: [Int]
    private let blockRows: Int

    static var entrySize: Int { 8 + 28 * metricColumns.count }

    /// The aggregates of a partition's rows (sorted as stored), given every row's code of each
    /// group column as its block dictionary assigns them.
    package static func encode(_ batch: RowBatch, codes: [[UInt32]], blockRows: Int) -> [UInt8] {
        let units = PlaceIndex.units(rows: batch.count, blockRows: blockRows)
        var writer = header(units: units.count)
        var body = ByteWriter()
        var offset: UInt32 = 0
        writer.u32(0)
        let values = metricColumns.map { batch.ints[$0.rawValue] }
        var encoder = UnitEncoder()
        for u in units {
            for count in encoder.encode(u.rows, values: values, codes: codes, codesStart: 0, into: &body) {
                offset += UInt32(count)
                writer.u32(offset)
            }
        }
        writer.bytes.append(contentsOf: body.bytes)
        return writer.bytes
    }

    /// The region's head up to its entry offsets: unit count, column counts and column numbers.
    static func header(units: Int) -> ByteWriter {
        var writer = ByteWriter()
        writer.u32(UInt32(units))
        writer.u8(UInt8(groupColumns.count))
        writer.u8(UInt8(metricColumns.count))
        writer.u8(0)
        writer.u8(0)
        for c in groupColumns + metricColumns { writer.u8(UInt8(c.rawValue)) }
        return writer
    }

    /// Writes the entries of one scan unit at a time, with scratch kept from unit to unit.
    package struct UnitEncoder {
        private var slot: [Int] = []
        private var touched: [UInt32] = []
        private var count: [Int] = []
        private var acc: [Fold] = []
        /// The unit's metric values as the query path decodes them (NaN for null), metric-major.
        private var doubles: [Double] = []
        private var rowSlot: [Int] = []

        package init() {}

        /// Appends the entries of the unit of rows `rows` to `body`, list by list (each group
        /// column's, then all rows'), and returns each list's entry count. `values` holds the
        /// metric columns (indexed by row); `codes` each group column's codes, row `r`'s at
        /// `r - codesStart`.
        package mutating func encode(_ rows: Range<Int>, values: [[Int64]], codes: [[UInt32]], codesStart: Int,
                                     into body: inout ByteWriter) -> [Int] {
            let unitRows = rows.count
            let metrics = UnitAggregates.metricColumns.count
            doubles.removeAll(keepingCapacity: true)
            for k in 0..<metrics {
                values[k].withUnsafeBufferPointer { v in
                    // SAFETY: the unit's rows lie inside the batch, so inside each of its columns
                    for x in UnsafeBufferPointer(rebasing: v[rows]) { doubles.append(ScaledDecimal.double(x)) }
                }
            }
            var counts: [Int] = []
            for g in 0..<UnitAggregates.lists {
                // the entry of each row, in order of first appearance (the last list: all rows, code 0)
                slotRows(g < codes.count ? codes[g] : nil, rows.count, from: rows.lowerBound - codesStart)
                acc = Array(repeating: Fold.empty, count: touched.count * metrics)
                UnitAggregates.foldRows(into: &acc, doubles: doubles, rowSlot: rowSlot, metrics: metrics, unitRows: unitRows)
                UnitAggregates.writeEntries(into: &body, touched: touched, count: count, acc: acc, metrics: metrics)
                for c in touched { slot[Int(c)] = -1 }
                counts.append(touched.count)
                touched.removeAll(keepingCapacity: true)
                count.removeAll(keepingCapacity: true)
            }
            return counts
        }

        /// Gives each of `rows` rows (codes `codes[first...]`; all code 0 when nil) its entry in
        /// `rowSlot`, the entries in order of first appearance in `touched`, with their row
        /// counts in `count`.
        private mutating func slotRows(_ codes: [UInt32]?, _ rows: Int, from first: Int) {
            var greatest: UInt32 = 0
            if let codes {
                for row in first..<(first + rows) where codes[row] > greatest { greatest = codes[row] }
            }
            if Int(greatest) >= slot.count {
                slot.append(contentsOf: repeatElement(-1, count: Int(greatest) + 1 - slot.count))
            }
            rowSlot.removeAll(keepingCapacity: true)
            rowSlot.append(contentsOf: repeatElement(0, count: rows))
            guard let codes else {
                // the list of all rows: one entry
                if rows > 0 {
                    touched.append(0)
                    count.append(rows)
                    slot[0] = 0
                }
                return
            }
            var slots: [Int] = []
            var rowSlots: [Int] = []
            swap(&slots, &slot)
            swap(&rowSlots, &rowSlot)
            defer {
                swap(&slots, &slot)
                swap(&rowSlots, &rowSlot)
            }
            // SAFETY: `codes` holds rows first..<first + rows (the caller's unit, checked by the
            // loop above), every code is at most `greatest`, below slots.count, and rowSlots holds
            // `rows` entries.
            codes.withUnsafeBufferPointer { unitCodes in
                slots.withUnsafeMutableBufferPointer { slotOfCode in
                    rowSlots.withUnsafeMutableBufferPointer { slotOfRow in
                        for position in 0..<rows {
                            let code = Int(unitCodes[first + position])
                            var entry = slotOfCode[code]
                            if entry < 0 {
                                entry = touched.count
                                slotOfCode[code] = entry
                                touched.append(UInt32(code))
                                count.append(0)
                            }
                            count[entry] += 1
                            slotOfRow[position] = entry
                        }
                    }
                }
            }
        }
    }

    /// Folds a unit's metric values (`doubles`, metric-major, NaN for null) into the folds of
    /// `acc`, `metrics` per entry, each row into the entry `rowSlot` gives it.
    private static func foldRows(into acc: inout [Fold], doubles: [Double], rowSlot: [Int], metrics: Int,
                                 unitRows: Int) {
        // each entry's folds take its rows in row order, one metric at a time
        // SAFETY: rowSlot holds unitRows slots below acc.count / metrics; doubles holds metrics * unitRows
        // values; every index is slot * metrics + k < acc.count or k * unitRows + j < metrics * unitRows.
        acc.withUnsafeMutableBufferPointer { a in
            doubles.withUnsafeBufferPointer { d in
                rowSlot.withUnsafeBufferPointer { rs in
                    for k in 0..<metrics {
                        if a.count == metrics {
                            // one entry (the list of all rows, or one code): a fold in
                            // registers, not one through memory per row
                            var fold = a[k]
                            for j in 0..<unitRows where !d[k * unitRows + j].isNaN {
                                fold.fold(d[k * unitRows + j])
                            }
                            a[k] = fold
                            continue
                        }
                        // a run of rows of one entry folds in registers, and is stored once
                        var position = 0
                        while position < unitRows {
                            let slot = rs[position]
                            var fold = a[slot * metrics + k]
                            repeat {
                                let value = d[k * unitRows + position]
                                if !value.isNaN { fold.fold(value) }
                                position += 1
                            } while position < unitRows && rs[position] == slot
                            a[slot * metrics + k] = fold
                        }
                    }
                }
            }
        }
    }

    /// Appends the entries of one list of a unit, in order of code: code, row count and folds.
    private static func writeEntries(into body: inout ByteWriter, touched: [UInt32], count: [Int], acc: [Fold],
                                     metrics: Int) {
        let order = touched.indices.sorted { touched[$0] < touched[$1] }
        for s in order {
            body.u32(touched[s])
            body.u32(UInt32(count[s]))
            for k in 0..<metrics {
                let fold = acc[s * metrics + k]
                body.u32(UInt32(fold.values))
                body.u64(fold.sum.bitPattern)
                body.u64(fold.least.bitPattern)
                body.u64(fold.greatest.bitPattern)
            }
        }
    }

    /// Parses the list of group column `group` (nil: of all rows) from a region (already
    /// checksum-checked) of a partition of `rows` rows, checking that each unit's entries add up
    /// to its rows and each fold's values to at most its entry's.
    /// - Complexity: O(units + the list's entries); the other lists are not read.
    package init(_ b: UnsafeRawBufferPointer, rows total: Int, blockRows: Int, group: Int?) throws(QuakeError) {
        // SAFETY: every read of `b` goes through ByteReader, which throws before reading past b.count.
        var reader = ByteReader(b)
        let listed = Int(try reader.u32()), groupCount = Int(try reader.u8()), metricCount = Int(try reader.u8())
        _ = try reader.u8()
        _ = try reader.u8()
        let groups = UnitAggregates.groupColumns, metrics = UnitAggregates.metricColumns
        guard groupCount == groups.count, metricCount == metrics.count else {
            throw .corrupt("unit aggregates list \(groupCount) and \(metricCount) columns")
        }
        for c in groups + metrics {
            let stored = Int(try reader.u8())
            guard stored == c.rawValue else { throw .corrupt("unit aggregates name column \(stored) for \(c)") }
        }
        let units = PlaceIndex.units(rows: total, blockRows: blockRows)
        guard listed == units.count else { throw .corrupt("unit aggregates list \(listed) units for \(units.count)") }
        let lists = UnitAggregates.lists
        let offs = try reader.raw(listed * lists + 1, as: UInt32.self).map { UInt32(littleEndian: $0) }
        guard offs.first == 0, zip(offs, offs.dropFirst()).allSatisfy({ $0 <= $1 }),
              Int(offs[listed * lists]) * UnitAggregates.entrySize == reader.remaining else {
            throw .corrupt("unit aggregate offsets are out of order")
        }
        guard group.map({ $0 >= 0 && $0 < groupCount }) ?? true else {
            throw .corrupt("no unit aggregate list \(group ?? -1)")
        }
        let groupIndex = group ?? groupCount
        let base = reader.pos
        var codes: [UInt32] = [], counts: [UInt32] = [], folds: [Fold] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(listed + 1)
        for (i, u) in units.enumerated() {
            reader.pos = base + Int(offs[i * lists + groupIndex]) * UnitAggregates.entrySize
            let covered = try Self.readEntries(&reader, offs[i * lists + groupIndex]..<offs[i * lists + groupIndex + 1],
                                               grouped: groupIndex < groupCount, metricCount: metricCount,
                                               codes: &codes, counts: &counts, folds: &folds)
            guard covered == u.rows.count else {
                throw .corrupt("unit \(i) aggregates \(covered) rows of \(u.rows.count)")
            }
            starts.append(codes.count)
        }
        self.group = group
        offsets = starts
        self.codes = codes
        self.rows = counts
        self.folds = folds
        unitCount = listed
        self.blockRows = blockRows
        var first: [Int] = []
        for (i, u) in units.enumerated() where first.count == u.block { first.append(i) }
        blockFirstUnit = first
    }

    /// Reads the `entries` of one unit's list at the reader's position, appending their codes,
    /// row counts and folds, and returns the rows they cover.
    private static func readEntries(_ reader: inout ByteReader, _ entries: Range<UInt32>, grouped: Bool,
                                    metricCount: Int, codes: inout [UInt32], counts: inout [UInt32],
                                    folds: inout [Fold]) throws(QuakeError) -> Int {
        var covered = 0
        var last: UInt32?
        for _ in entries {
            let code = try reader.u32(), count = try reader.u32()
            guard last.map({ $0 < code }) ?? true, count >= 1, grouped || code == 0 else {
                throw .corrupt("unit aggregate entries are out of order")
            }
            last = code
            covered += Int(count)
            codes.append(code)
            counts.append(count)
            for _ in 0..<metricCount {
                let values = Int(try reader.u32())
                let sum = Double(bitPattern: try reader.u64()), least = Double(bitPattern: try reader.u64())
                let fold = Fold(values: values, sum: sum, least: least,
                                greatest: Double(bitPattern: try reader.u64()))
                guard values <= Int(count), values == 0 ? fold == .empty : fold.least <= fold.greatest else {
                    throw .corrupt("unit aggregate entry holds \(values) values of \(count) rows")
                }
                folds.append(fold)
            }
        }
        return covered
    }

    /// The ordinal of the unit that starts at row `row` of block `k`; nil when none does.
    package func unit(block k: Int, row: Int) -> Int? {
        guard k >= 0, k < blockFirstUnit.count, row >= 0 else { return nil }
        let start = k * blockRows, granule = GranuleIndex.granuleRows
        let unit = blockFirstUnit[k] + (start + row) / granule - start / granule
        let end = k + 1 < blockFirstUnit.count ? blockFirstUnit[k + 1] : unitCount
        guard unit >= blockFirstUnit[k], unit < end else { return nil }
        return unit
    }

    /// The entries of unit `u` in the parsed list, as positions for ``code(_:)``, ``rows(_:)``
    /// and ``fold(_:_:)``.
    package func entries(unit u: Int) -> Range<Int> { offsets[u]..<offsets[u + 1] }

    package func code(_ e: Int) -> UInt32 { codes[e] }
    package func rows(_ e: Int) -> Int { Int(rows[e]) }
    /// The fold of metric column number `m` (an index into ``metricColumns``) of entry `e`.
    package func fold(_ e: Int, _ m: Int) -> Fold { folds[e * UnitAggregates.metricColumns.count + m] }
}

extension UnitAggregates.Fold {
    /// Adds one value, as the row path does: `<` and `>` against the running bounds.
    @inline(__always)
    package mutating func fold(_ x: Double) {
        values += 1
        sum += x
        if x < least { least = x }
        if x > greatest { greatest = x }
    }
}
