/// Fine zone maps inside a partition: min, max and null count per granule of
/// ``GranuleIndex/granuleRows`` rows for the columns queries range over, and an exact histogram
/// of `mag` values per granule (counts per distinct value), so that a day or a box touches only
/// its granules and a magnitude range count needs no decoding.
package struct GranuleIndex: Sendable, Equatable {
    package static let granuleRows = 4096
    /// The columns with per-granule statistics.
    package static let columns: [Column] = [.time, .latitude, .longitude, .depth, .mag]
    /// Where a column sits in ``columns`` (nil when it has no granule statistics).
    package static func slot(_ c: Column) -> Int? {
        switch c {
        case .time: return 0
        case .latitude: return 1
        case .longitude: return 2
        case .depth: return 3
        case .mag: return 4
        default: return nil
        }
    }

    package struct Stats: Sendable, Equatable {
        /// `Int64` for time, `Double` bit pattern for decimals (NaN when all null).
        package var min: Int64
        package var max: Int64
        package var nulls: UInt32
        package var minDouble: Double { Double(bitPattern: UInt64(bitPattern: min)) }
        package var maxDouble: Double { Double(bitPattern: UInt64(bitPattern: max)) }
    }

    package var rows: Int
    /// `stats[slot][granule]`.
    package var stats: [[Stats]]
    /// Distinct non-null mag values, ascending (`-0.0` counts as `0.0`).
    package var magValues: [Double]
    /// Per granule, (index into ``magValues``, count) pairs, each packed as `value | count << 16`:
    /// granule `g`'s at `magEntries[magStarts[g]..<magStarts[g + 1]]`. Two flat arrays, not an
    /// array per granule: a one-shot query opening a hundred partitions reads them all.
    package var magEntries: [UInt32]
    package var magStarts: [Int]

    /// Granule `g`'s (value, count) pairs, packed as in ``magEntries``.
    @inlinable package func magCounts(_ g: Int) -> ArraySlice<UInt32> { magEntries[magStarts[g]..<magStarts[g + 1]] }

    @inlinable package var granules: Int { (rows + GranuleIndex.granuleRows - 1) / GranuleIndex.granuleRows }

    @inlinable package func range(_ g: Int) -> Range<Int> {
        (g * GranuleIndex.granuleRows)..<Swift.min(rows, (g + 1) * GranuleIndex.granuleRows)
    }


    /// Computes the index of a partition's sorted rows.
    package init(_ batch: RowBatch) {
        rows = batch.count
        let granules = (rows + GranuleIndex.granuleRows - 1) / GranuleIndex.granuleRows
        stats = []
        for c in GranuleIndex.columns {
            let values = batch.ints[c.rawValue]
            var out: [Stats] = []
            out.reserveCapacity(granules)
            for k in 0..<granules {
                let granuleRows = (k * GranuleIndex.granuleRows)..<Swift.min(rows, (k + 1) * GranuleIndex.granuleRows)
                if c.kind == .timestamp {
                    out.append(Self.timestampStats(values, granuleRows))
                } else {
                    out.append(Self.decimalStats(values, granuleRows))
                }
            }
            stats.append(out)
        }
        (magValues, magEntries, magStarts) = Self.histogram(batch.ints[Column.mag.rawValue], rows: rows)
    }

    /// The exact mag histogram of a partition's magnitudes (scaled decimals, every row's): the
    /// distinct values, then each granule's (value, count) pairs; all empty past 65,535 values.
    static func histogram(_ mags: [Int64], rows: Int) -> (values: [Double], entries: [UInt32], starts: [Int]) {
        let granules = (rows + GranuleIndex.granuleRows - 1) / GranuleIndex.granuleRows
        var table = MagnitudeTable()
        for x in mags where x != RowBatch.null { table.insert(MagnitudeTable.key(x)) }
        let values = table.assignCodes()
        guard values.count <= Int(UInt16.max) else { return ([], [], []) }
        var entries: [UInt32] = []
        var starts = [0]
        var counts = [UInt16](repeating: 0, count: values.count)
        for k in 0..<granules {
            let granuleRows = (k * GranuleIndex.granuleRows)..<Swift.min(rows, (k + 1) * GranuleIndex.granuleRows)
            var used: [UInt16] = []
            for i in granuleRows where mags[i] != RowBatch.null {
                guard let found = table.code(MagnitudeTable.key(mags[i])) else { continue }
                let magCode = UInt16(truncatingIfNeeded: found)
                if counts[Int(magCode)] == 0 { used.append(magCode) }
                counts[Int(magCode)] += 1
            }
            used.sort()
            for c in used { entries.append(UInt32(c) | UInt32(counts[Int(c)]) << 16) }
            starts.append(entries.count)
            for c in used { counts[Int(c)] = 0 }
        }
        return (values, entries, starts)
    }

    /// The least, greatest and null count of the timestamps of rows `granuleRows` (0 and 0 when all are null).
    static func timestampStats(_ values: [Int64], _ granuleRows: Range<Int>) -> Stats {
        var nulls: UInt32 = 0
        var lo = Int64.max, hi = Int64.min
        for i in granuleRows {
            let value = values[i]
            if value == RowBatch.null {
                nulls += 1
            } else {
                lo = Swift.min(lo, value)
                hi = Swift.max(hi, value)
            }
        }
        return Int(nulls) == granuleRows.count
            ? Stats(min: 0, max: 0, nulls: nulls)
            : Stats(min: lo, max: hi, nulls: nulls)
    }

    /// The least and greatest (as double bit patterns, NaN when all are null) and the null count
    /// of the decimals of rows `granuleRows`.
    static func decimalStats(_ values: [Int64], _ granuleRows: Range<Int>) -> Stats {
        var nulls: UInt32 = 0
        var lo = Double.infinity, hi = -Double.infinity
        for i in granuleRows {
            if values[i] == RowBatch.null {
                nulls += 1
                continue
            }
            let decoded = ScaledDecimal.double(values[i])
            lo = Swift.min(lo, decoded)
            hi = Swift.max(hi, decoded)
        }
        if Int(nulls) == granuleRows.count {
            lo = .nan
            hi = .nan
        }
        return Stats(min: Int64(bitPattern: lo.bitPattern), max: Int64(bitPattern: hi.bitPattern), nulls: nulls)
    }

    /// True when the mag histogram is present (it is unless a partition holds over 65,535
    /// distinct magnitudes).
    @inlinable package var hasMagHistogram: Bool { magStarts.count == granules + 1 }

    /// Rows of granule `g` whose mag passes `range`, from the histogram alone.
    @inlinable
    package func magCount(granule g: Int, _ range: RangePredicate) -> Int {
        var total = 0
        for e in magCounts(g) where range.contains(magValues[Int(e & 0xFFFF)]) { total += Int(e >> 16) }
        return total
    }

    package func write(into w: inout ByteWriter) {
        w.u32(UInt32(granules))
        for slot in stats {
            for s in slot {
                w.i64(s.min)
                w.i64(s.max)
                w.u32(s.nulls)
            }
        }
        w.u32(hasMagHistogram ? UInt32(magValues.count) : UInt32.max)
        guard hasMagHistogram else { return }
        for v in magValues { w.u64(v.bitPattern) }
        for g in 0..<granules {
            let list = magCounts(g)
            w.u32(UInt32(list.count))
            for e in list { w.u32(e) }
        }
    }

    package init(reading r: inout ByteReader, rows: Int) throws(QuakeError) {
        self.rows = rows
        let granules = Int(try r.u32())
        guard granules == (rows + GranuleIndex.granuleRows - 1) / GranuleIndex.granuleRows else {
            throw .corrupt("granule index holds \(granules) granules for \(rows) rows")
        }
        try r.need(granules * 20 * GranuleIndex.columns.count)
        stats = []
        for _ in GranuleIndex.columns {
            var out: [Stats] = []
            out.reserveCapacity(granules)
            for _ in 0..<granules { out.append(Stats(min: try r.i64(), max: try r.i64(), nulls: try r.u32())) }
            stats.append(out)
        }
        let distinct = try r.u32()
        magValues = []
        magEntries = []
        magStarts = []
        if distinct == UInt32.max { return }
        guard Int(distinct) <= r.remaining / 8 else { throw .corrupt("mag histogram holds \(distinct) values") }
        magValues = try r.raw(Int(distinct), as: UInt64.self).map { Double(bitPattern: UInt64(littleEndian: $0)) }
        magStarts.reserveCapacity(granules + 1)
        magEntries.reserveCapacity(Swift.min(r.remaining / 4, granules * magValues.count))
        magStarts.append(0)
        for k in 0..<granules {
            let entries = Int(try r.u32())
            guard entries <= magValues.count else {
                throw .corrupt("mag histogram granule \(k) lists \(entries) values")
            }
            let list = try r.take(entries * 4)
            var total = 0
            for j in 0..<entries {
                // take(n * 4) checked the list and j < n, so the 4 bytes at 4 * j lie in it
                let entry = list.load(UInt32.self, at: 4 * j)
                guard Int(entry & 0xFFFF) < magValues.count else {
                    throw .corrupt("mag histogram granule \(k): value \(entry & 0xFFFF)")
                }
                total += Int(entry >> 16)
                magEntries.append(entry)
            }
            guard total <= GranuleIndex.granuleRows else {
                throw .corrupt("mag histogram granule \(k) counts \(total) rows")
            }
            magStarts.append(magEntries.count)
        }
    }
}
