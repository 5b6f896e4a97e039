import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// Prints `agg` groups. CSV and JSON keep every value whole: each double in its shortest text
/// that reads back to the same double, counts as integers, instants as ISO 8601. JSON keys
/// keep their types (a year, a bin or a date part is a number). A table, for reading, shows
/// four decimals. A null key or metric is an empty CSV cell, `null` in JSON and `NULL` in a table.
struct AggregateWriter {
    let groups: [GroupBy]
    let metrics: [Metric]
    let format: ResultWriter.Format
    let header: Bool

    var names: [String] { groups.map(\.description) + metrics.map(\.description) }

    func print(_ rows: [AggregateRow], generation: Int? = nil) {
        switch format {
        case .csv: printCSV(rows)
        case .json, .ndjson: printJSON(rows, generation: generation)
        default: printTable(rows)
        }
    }

    /// A metric's value as text: whole, or to four decimals for a table.
    func text(_ value: Double, _ metric: Metric, rounded: Bool) -> String {
        if metric.isCount { return String(Int64(value)) }
        if metric.isTime { return Timestamp.string(Int64(saturating: value.rounded())) }
        if rounded { return AggregateWriter.fourDecimals(value) }
        return AggregateWriter.shortest(value)
    }

    /// The shortest text that reads back as `value` (integers without a fraction).
    static func shortest(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func fourDecimals(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.4f", value)
        while text.last == "0" { text.removeLast() }
        if text.last == "." { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    private func cells(_ row: AggregateRow, null: String, rounded: Bool) -> [String] {
        row.keys.map { $0 ?? null }
            + zip(row.values, metrics).map { value, metric in value.map { text($0, metric, rounded: rounded) } ?? null }
    }

    private func printCSV(_ rows: [AggregateRow]) {
        func quoted(_ cell: String) -> String {
            // bytes, not Foundation's text search: this runs once per cell
            guard cell.utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else { return cell }
            var out = "\""
            for character in cell {
                if character == "\"" { out.append("\"") }
                out.append(character)
            }
            return out + "\""
        }
        if header { writeLine(names.map(quoted).joined(separator: ",")) }
        for row in rows { writeLine(cells(row, null: "", rounded: false).map(quoted).joined(separator: ",")) }
    }

    /// One group as a JSON object, its members in column order.
    private func object(_ row: AggregateRow) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        func member(_ name: String, _ value: String?, quoted: Bool) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            FeedWriter.jsonString(Array(name.utf8), into: &out)
            out.append(UInt8(ascii: ":"))
            guard let value else {
                out.append(contentsOf: Array("null".utf8))
                return
            }
            if quoted {
                FeedWriter.jsonString(Array(value.utf8), into: &out)
            } else {
                out.append(contentsOf: Array(value.utf8))
            }
        }
        for (position, group) in groups.enumerated() {
            member(group.description, row.keys[position], quoted: !group.isNumeric)
        }
        for (position, metric) in metrics.enumerated() {
            member(metric.description, row.values[position].map { text($0, metric, rounded: false) },
                   quoted: metric.isTime)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private func printJSON(_ rows: [AggregateRow], generation: Int?) {
        let objects = rows.map(object)
        if format == .ndjson, let generation {
            writeLine("{\"generation\":\(generation),\"groups\":[" + objects.joined(separator: ",") + "]}")
        } else if format == .ndjson {
            for line in objects { writeLine(line) }
        } else {
            writeLine("{\"groups\":[" + objects.joined(separator: ",") + "]}")
        }
    }

    private func printTable(_ rows: [AggregateRow]) {
        let table = rows.map { cells($0, null: "NULL", rounded: true) }
        var widths = names.map(\.count)
        for cells in table {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                // Foundation's padding bridges each cell through NSString: a table of millions of groups
                // spent most of its time there
                column < groups.count ? cell + String(repeating: " ", count: max(0, widths[column] - cell.count))
                    : cell.leftPad(widths[column])
            }.joined(separator: "  ")
        }
        if header {
            writeLine(line(names))
            writeLine(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        }
        for cells in table { writeLine(line(cells)) }
        writeLine("(\(rows.count) group\(rows.count == 1 ? "" : "s"))")
    }
}
