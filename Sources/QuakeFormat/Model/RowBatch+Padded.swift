/// Rows built the parser's way: the number columns are filled with nulls ahead of the rows, a
/// few thousand at a time, so that starting a row touches only the text columns. A row then
/// writes its numbers in place (``setInt(_:_:)``), as it does after ``beginRow()``.
///
/// Between ``padInts(to:)`` and ``trimInts()`` the number columns are longer than ``count``;
/// nothing else may read the batch in that state.
extension RowBatch {
    /// The number columns, and the text columns, in column order.
    package static let intColumns = Column.allCases.filter(isInt).map(\.rawValue)
    package static let textColumns = Column.allCases.filter { !isInt($0) }.map(\.rawValue)

    /// Makes every number column at least `n` rows long, the new rows null.
    package mutating func padInts(to n: Int) {
        for c in RowBatch.intColumns where ints[c].count < n {
            ints[c].append(contentsOf: repeatElement(RowBatch.null, count: n - ints[c].count))
        }
    }

    /// Starts a row whose number columns ``padInts(to:)`` already holds: only the text columns
    /// get their null. Finish it with ``endRow(present:seq:)`` or ``abandonPaddedRow()``.
    @inline(__always)
    package mutating func beginPaddedRow() {
        for c in RowBatch.textColumns { text[c].appendNull() }
    }

    /// Drops a row begun with ``beginPaddedRow()``: its numbers back to null, its text removed.
    package mutating func abandonPaddedRow() {
        for c in RowBatch.intColumns where count < ints[c].count { ints[c][count] = RowBatch.null }
        for c in RowBatch.textColumns {
            text[c].ends.removeLast()
            let keep = text[c].ends.last ?? 0
            text[c].bytes.removeLast(text[c].bytes.count - keep)
        }
    }

    /// Cuts the number columns back to ``count`` rows (the padding past the last row).
    package mutating func trimInts() {
        for c in RowBatch.intColumns where ints[c].count > count {
            ints[c].removeLast(ints[c].count - count)
        }
    }
}
