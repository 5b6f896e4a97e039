/// A batch of events held column by column, as plain arrays.
///
/// The loader parses into batches, spills them, merges them with stored partitions and writes
/// them back out; a partition read for export decodes into one. Decimal and timestamp columns
/// are `Int64` (see ``ScaledDecimal``; `Int64.min` is null); string columns are ``ByteArena``s.
package struct RowBatch: Sendable, Equatable {
    package var count = 0
    package var ints: [[Int64]]
    package var text: [ByteArena]
    /// Per row, the columns its source format carries (a CSV row lacks `felt`, `tz`, ...).
    package var present: [UInt64] = []
    /// Per row, load order: on equal `updated`, the higher sequence wins.
    package var seq: [Int64] = []
    /// The rows some of whose fields came from versions older than the row's `updated`, with
    /// those versions' `updated` (see ``FieldOrigin``). Rows of one version have none, so a
    /// bulk load's batches leave this empty.
    package var origins: [Int: [FieldOrigin]] = [:]

    package static let null = Int64.min

    package init() {
        ints = Array(repeating: [], count: Column.count)
        text = Array(repeating: ByteArena(), count: Column.count)
    }

    package static func isInt(_ c: Column) -> Bool {
        switch c.kind {
        case .timestamp, .decimal: return true
        default: return false
        }
    }

    /// The number columns, and the text columns, in column order.
    package static let intColumns = Column.allCases.filter(isInt).map(\.rawValue)
    package static let textColumns = Column.allCases.filter { !isInt($0) }.map(\.rawValue)

    /// Appends row `i` of `other`.
    package mutating func append(from other: RowBatch, row i: Int) {
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].append(other.ints[c.rawValue][i]) }
            else { text[c.rawValue].append(from: other.text[c.rawValue], row: i) }
        }
        present.append(other.present[i])
        seq.append(other.seq[i])
        if let origin = other.origins[i] { origins[count] = origin }
        count += 1
    }

    /// Appends rows `range` of `other` (contiguous copies, no per-row work).
    package mutating func append(contentsOf other: RowBatch, range: Range<Int>) {
        if range.isEmpty { return }
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].append(contentsOf: other.ints[c.rawValue][range]) } else {
                let src = other.text[c.rawValue]
                let lo = range.lowerBound == 0 ? 0 : src.ends[range.lowerBound - 1]
                let hi = src.ends[range.upperBound - 1]
                let shift = text[c.rawValue].bytes.count - lo
                text[c.rawValue].bytes.append(contentsOf: src.bytes[lo..<hi])
                text[c.rawValue].ends.append(contentsOf: src.ends[range].lazy.map { $0 + shift })
            }
        }
        present.append(contentsOf: other.present[range])
        seq.append(contentsOf: other.seq[range])
        for (row, origin) in other.origins where range.contains(row) {
            origins[count + row - range.lowerBound] = origin
        }
        count += range.count
    }

    /// Appends every row of `other`.
    package mutating func append(contentsOf other: RowBatch) {
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].append(contentsOf: other.ints[c.rawValue]) } else {
                let base = text[c.rawValue].bytes.count
                text[c.rawValue].bytes.append(contentsOf: other.text[c.rawValue].bytes)
                text[c.rawValue].ends.append(contentsOf: other.text[c.rawValue].ends.lazy.map { $0 + base })
            }
        }
        present.append(contentsOf: other.present)
        seq.append(contentsOf: other.seq)
        for (row, origin) in other.origins { origins[count + row] = origin }
        count += other.count
    }

    /// True when row `i` and row `j` of `other` hold the same field values and the same
    /// provenance (fields carried, and the origins of those from older versions).
    package func sameProvenance(_ i: Int, _ other: RowBatch, _ j: Int) -> Bool {
        present[i] == other.present[j] && (origins[i] ?? []) == (other.origins[j] ?? [])
    }

    /// True when row `i` and row `j` of `other` hold the same field values.
    package func sameContent(_ i: Int, _ other: RowBatch, _ j: Int) -> Bool {
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                if ints[c.rawValue][i] != other.ints[c.rawValue][j] { return false }
            } else if !text[c.rawValue].equal(i, other.text[c.rawValue], j) {
                return false
            }
        }
        return true
    }

    /// The rows at `order`, in that order.
    package func gather(_ order: [Int]) -> RowBatch {
        var out = RowBatch()
        out.count = order.count
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                let src = ints[c.rawValue]
                out.ints[c.rawValue] = order.map { src[$0] }
            } else {
                out.text[c.rawValue] = text[c.rawValue].gather(order)
            }
        }
        out.present = order.map { present[$0] }
        out.seq = order.map { seq[$0] }
        out.origins = remappedOrigins(order)
        return out
    }

    /// Reorders the rows to `order` (a permutation of the rows) one column at a time, so that
    /// at most one column is held twice: a partition's batch is not copied whole to be sorted.
    package mutating func permute(_ order: [Int]) {
        precondition(order.count == count, "permute: not a permutation of the rows")
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                let src = ints[c.rawValue]
                ints[c.rawValue] = []
                ints[c.rawValue] = order.map { src[$0] }
            } else {
                let src = text[c.rawValue]
                text[c.rawValue] = ByteArena()
                text[c.rawValue] = src.gather(order)
            }
        }
        present = order.map { present[$0] }
        seq = order.map { seq[$0] }
        origins = remappedOrigins(order)
    }

    /// The origins of the rows at `order`, under their new positions.
    package func remappedOrigins(_ order: [Int]) -> [Int: [FieldOrigin]] {
        guard !origins.isEmpty else { return [:] }
        var moved: [Int: [FieldOrigin]] = [:]
        for (position, row) in order.enumerated() {
            if let origin = origins[row] { moved[position] = origin }
        }
        return moved
    }

    /// True when the rows are already in (time, id) order.
    package func isTimeIdOrdered() -> Bool {
        let times = ints[Column.time.rawValue]
        let ids = text[Column.id.rawValue]
        for i in stride(from: 1, to: count, by: 1) where times[i - 1] > times[i]
            || (times[i - 1] == times[i] && ids.compare(i - 1, ids, i) >= 0) {
            return false
        }
        return true
    }

    /// Row indices sorted by (time, id): the order rows take inside a partition.
    package func timeIdOrder() -> [Int] { timeIdOrder(of: Array(0..<count)) }

    /// `rows` sorted by (time, id).
    package func timeIdOrder(of rows: [Int]) -> [Int] {
        let times = ints[Column.time.rawValue]
        let ids = text[Column.id.rawValue]
        return rows.sorted { a, b in
            if times[a] != times[b] { return times[a] < times[b] }
            return ids.compare(a, ids, b) < 0
        }
    }

    // MARK: building rows

    /// Sizes every column for `rows` rows (and text columns for `textBytes[c]` bytes), so that a
    /// parser filling a batch row by row never regrows (and copies) a column.
    package mutating func reserveCapacity(rows: Int, textBytes: [Int]? = nil) {
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].reserveCapacity(rows) } else {
                text[c.rawValue].ends.reserveCapacity(rows)
                if let sizes = textBytes, c.rawValue < sizes.count {
                    text[c.rawValue].bytes.reserveCapacity(sizes[c.rawValue])
                }
            }
        }
        present.reserveCapacity(rows)
        seq.reserveCapacity(rows)
    }

    /// Starts a row; every column is null until set. Call ``endRow(present:seq:)`` to finish.
    package mutating func beginRow() {
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].append(RowBatch.null) } else { text[c.rawValue].appendNull() }
        }
    }

    /// Begins a row of which only `columns` will be set: the other columns are left short until
    /// ``padRows()``, so a row costs the columns a query asked for, not all of them.
    package mutating func beginRow(only columns: [Column]) {
        for c in columns {
            if RowBatch.isInt(c) { ints[c.rawValue].append(RowBatch.null) } else { text[c.rawValue].appendNull() }
        }
    }

    /// Gives every column that ``beginRow(only:)`` left short nulls up to ``count`` rows.
    package mutating func padRows() {
        for c in Column.allCases {
            if RowBatch.isInt(c) {
                let missing = count - ints[c.rawValue].count
                if missing > 0 { ints[c.rawValue].append(contentsOf: repeatElement(RowBatch.null, count: missing)) }
            } else {
                let missing = count - text[c.rawValue].ends.count
                if missing > 0 {
                    text[c.rawValue].ends.append(contentsOf: repeatElement(text[c.rawValue].bytes.count,
                                                                           count: missing))
                }
            }
        }
    }

    @inline(__always)
    package mutating func setInt(_ c: Column, _ v: Int64) { ints[c.rawValue][count] = v }

    package mutating func setText(_ c: Column, _ bytes: UnsafeRawBufferPointer) {
        // SAFETY: append copies bytes.count bytes out of `bytes`, borrowed for this call.
        text[c.rawValue].bytes.append(contentsOf: bytes)
        text[c.rawValue].ends[count] = text[c.rawValue].bytes.count
    }

    package mutating func setText(_ c: Column, _ bytes: [UInt8]) {
        // SAFETY: `$0` is used only inside the closure; setText copies the bytes out.
        bytes.withUnsafeBytes { setText(c, $0) }
    }

    package func int(_ c: Column, _ row: Int) -> Int64 { ints[c.rawValue][row] }

    package mutating func endRow(present mask: UInt64, seq s: Int64) {
        present.append(mask)
        seq.append(s)
        count += 1
    }

    /// Drops a row begun with ``beginRow()`` (a rejected row).
    package mutating func abandonRow() {
        for c in Column.allCases {
            if RowBatch.isInt(c) { ints[c.rawValue].removeLast() } else {
                // no copy of the arena is held while it changes (that would copy its arrays)
                text[c.rawValue].ends.removeLast()
                let keep = text[c.rawValue].ends.last ?? 0
                text[c.rawValue].bytes.removeLast(text[c.rawValue].bytes.count - keep)
            }
        }
    }
}
