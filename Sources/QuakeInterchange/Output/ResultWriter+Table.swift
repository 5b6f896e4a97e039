import QuakeSupport
import QuakeFormat
import QuakeStore
extension ResultWriter {
    /// A cell's text, or nil for a null value.
    package static func cell(_ batch: RowBatch, _ column: Column, _ row: Int) -> String? {
        switch column.kind {
        case .timestamp:
            let value = batch.ints[column.rawValue][row]
            return value == RowBatch.null ? nil : Timestamp.string(value)
        case .decimal:
            return ScaledDecimal.string(batch.ints[column.rawValue][row])
        default:
            return batch.text[column.rawValue].string(row)
        }
    }

    /// Widest cell a table shows; longer values end in `…` (csv and json carry them whole).
    package static let maxCellWidth = 80

    /// What a table shows for a null value, as duckdb and sqlite3's `.nullvalue` do.
    package static let nullText = "NULL"

    /// A value cut to `maxCellWidth` characters, control characters shown as spaces.
    package static func tableCell(_ s: String) -> String {
        // printable ASCII that fits, the usual cell, is shown as it is, with no grapheme breaking
        if s.utf8.count <= maxCellWidth, s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return s }
        let cut = s.count > maxCellWidth
        var out = ""
        for ch in s.prefix(cut ? maxCellWidth - 1 : maxCellWidth) { out.append(ch.isNewline || ch == "\t" ? " " : ch) }
        if cut { out.append("…") }
        return out
    }

    /// How many characters `s` shows: its byte count when it is ASCII, with no grapheme breaking.
    static func shownWidth(_ s: String) -> Int {
        s.utf8.allSatisfy { $0 < 0x80 } ? s.utf8.count : s.count
    }

    /// Narrowest a shortened text column gets before columns are dropped instead.
    package static let minTextWidth = 16

    /// A table column: a stored field, or `distance_km`.
    struct TableColumn {
        let name: String
        /// Numbers are right-aligned.
        let rightAligned: Bool
        /// Free text, which may be shortened with `…` to fit.
        let shortens: Bool
        init(_ c: Column) {
            name = c.name
            rightAligned = c.kind == .decimal
            shortens = c.kind == .place || c.kind == .text
        }
        init(distance: ()) {
            name = DistanceField.name
            rightAligned = true
            shortens = false
        }
    }

    /// Fits a table into `maxWidth` characters, as DuckDB's CLI does: first the widest text
    /// column (the place) is shortened with `…`, down to ``minTextWidth``; then columns are
    /// dropped from the right (never the first) and named in `dropped`.
    static func fit(_ maxWidth: Int, _ columns: inout [TableColumn], _ widths: inout [Int], _ cells: inout [[String?]],
                    _ dropped: inout [TableColumn]) {
        func total() -> Int { widths.reduce(0, +) + 2 * max(0, widths.count - 1) }
        guard total() > maxWidth else { return }
        if let widest = columns.indices.filter({ columns[$0].shortens })
            .max(by: { widths[$0] < widths[$1] }), widths[widest] > minTextWidth {
            let target = max(minTextWidth, widths[widest] - (total() - maxWidth), columns[widest].name.count)
            if target < widths[widest] {
                widths[widest] = target
                for i in cells.indices {
                    if let cell = cells[i][widest], cell.count > target {
                        cells[i][widest] = String(cell.prefix(target - 1)) + "…"
                    }
                }
            }
        }
        while total() > maxWidth && columns.count > 1 {
            dropped.insert(columns.removeLast(), at: 0)
            widths.removeLast()
            for i in cells.indices { cells[i].removeLast() }
        }
    }

    /// An aligned table: numbers right-aligned, nulls as `NULL`, and a last line with the row
    /// count (and how many matched, when the table shows fewer).
    package func table(_ r: QueryResult, _ sink: OutputSink) {
        var columns = self.columns.map(TableColumn.init)
        var cells = (0..<r.count).map { i in
            self.columns.map { c in ResultWriter.cell(r.batch, c, i).map(ResultWriter.tableCell) }
        }
        if let distance {
            let at = min(distance.position, columns.count)
            columns.insert(TableColumn(distance: ()), at: at)
            for i in cells.indices { cells[i].insert(distance.text(r.batch, i), at: at) }
        }
        var widths = columns.map { header ? $0.name.count : 0 }
        for row in cells {
            for (k, s) in row.enumerated() {
                widths[k] = max(widths[k], ResultWriter.shownWidth(s ?? ResultWriter.nullText))
            }
        }
        var dropped: [TableColumn] = []
        if let maxWidth {
            ResultWriter.fit(maxWidth, &columns, &widths, &cells, &dropped)
        }
        // lines are built by appending, not with `joined(separator:)`, whose first use looks up an
        // associated type by name: a scan of every protocol conformance in the binary
        func line(_ values: [String?]) -> String {
            var out = ""
            for (k, s) in values.enumerated() {
                if k > 0 { out += "  " }
                let text = s ?? ResultWriter.nullText
                let pad = String(repeating: " ", count: max(0, widths[k] - ResultWriter.shownWidth(text)))
                let shown = s == nil && dimNulls ? "\u{1B}[2m\(text)\u{1B}[0m" : text
                out += columns[k].rightAligned ? pad + shown : shown + pad
            }
            while out.utf8.last == UInt8(ascii: " ") { out.removeLast() }
            return out
        }
        if header {
            sink.write(line(columns.map(\.name)) + "\n")
            sink.write(line(widths.map { String(repeating: "-", count: $0) }) + "\n")
        }
        for row in cells { sink.write(line(row) + "\n") }
        if !dropped.isEmpty {
            sink.write("(\(dropped.count) column\(dropped.count == 1 ? "" : "s") not shown to fit the terminal: "
                + dropped.map(\.name).joined(separator: ", ") + (droppedHint.map { "; " + $0 } ?? "") + ")\n")
        }
        if let matched, offset > 0, r.count > 0 {
            // a later page: which rows these are, of how many
            let first = (offset + 1).grouped, last = (offset + r.count).grouped
            sink.write("(rows \(first)–\(last) of \(matched.grouped))\n")
        } else if let matched, offset > 0 {
            sink.write("(0 rows: the page starts after all \(matched.grouped))\n")
        } else if let matched, matched > r.count {
            let hint = moreHint.map { "; " + $0 } ?? ""
            sink.write("(\(r.count.grouped) of \(matched.grouped) rows\(hint))\n")
        } else {
            sink.write("(\(r.count.grouped) row\(r.count == 1 ? "" : "s"))\n")
        }
        sink.flush()
    }
}
