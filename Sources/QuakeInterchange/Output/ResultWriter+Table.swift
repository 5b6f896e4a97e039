import QuakeFormat
import QuakeStore
extension ResultWriter {
    /// A cell's text, or nil for a null value.
    package static func cell(_ b: RowBatch, _ c: Column, _ i: Int) -> String? {
        switch c.kind {
        case .timestamp: let v = b.ints[c.rawValue][i]; return v == RowBatch.null ? nil : Timestamp.string(v)
        case .decimal: return ScaledDecimal.string(b.ints[c.rawValue][i])
        default: return b.text[c.rawValue].string(i)
        }
    }

    /// Widest cell a table shows; longer values end in `…` (csv and json carry them whole).
    package static let maxCellWidth = 80

    /// What a table shows for a null value, as duckdb and sqlite3's `.nullvalue` do.
    package static let nullText = "NULL"

    /// A value cut to `maxCellWidth` characters, control characters shown as spaces.
    package static func tableCell(_ s: String) -> String {
        let cut = s.count > maxCellWidth
        var out = ""
        for ch in s.prefix(cut ? maxCellWidth - 1 : maxCellWidth) { out.append(ch.isNewline || ch == "\t" ? " " : ch) }
        if cut { out.append("…") }
        return out
    }

    /// `1746` as `1,746`.
    package static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, ch) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return n < 0 ? "-" + out : out
    }

    /// An aligned table: numbers right-aligned, nulls as `NULL`, and a last line with the row
    /// count (and how many matched, when the table shows fewer).
    package func table(_ r: QueryResult, _ sink: OutputSink) {
        let cells = (0..<r.count).map { i in
            columns.map { c in ResultWriter.cell(r.batch, c, i).map(ResultWriter.tableCell) }
        }
        var widths = columns.map { header ? $0.name.count : 0 }
        for row in cells {
            for (k, s) in row.enumerated() { widths[k] = max(widths[k], (s ?? ResultWriter.nullText).count) }
        }
        func line(_ values: [String?]) -> String {
            var out = values.enumerated().map { k, s in
                let text = s ?? ResultWriter.nullText
                let pad = String(repeating: " ", count: widths[k] - text.count)
                let shown = s == nil && dimNulls ? "\u{1B}[2m\(text)\u{1B}[0m" : text
                return columns[k].kind == .decimal ? pad + shown : shown + pad
            }.joined(separator: "  ")
            while out.last == " " { out.removeLast() }
            return out
        }
        if header {
            sink.write(line(columns.map(\.name)) + "\n")
            sink.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        }
        for row in cells { sink.write(line(row) + "\n") }
        if let matched, matched > r.count {
            sink.write("(\(ResultWriter.grouped(r.count)) of \(ResultWriter.grouped(matched)) rows\(moreHint.map { "; " + $0 } ?? ""))\n")
        } else {
            sink.write("(\(ResultWriter.grouped(r.count)) row\(r.count == 1 ? "" : "s"))\n")
        }
        sink.flush()
    }
}
