import ArgumentParser
import Foundation
import QuakeStore

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List matching events, sorted and paged; prints a resume cursor on stderr."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var page: PageOptions
    @Option(help: "Fields to read and print, comma-separated (USGS names).") var fields: String?
    @Option(help: "table, csv, json, ndjson or geojson.") var format: ResultWriter.Format = .table

    func validate() throws { _ = try columns() }

    func columns() throws -> [Column]? {
        guard let fields else { return nil }
        return try fields.split(separator: ",").map { f in
            guard let c = Column(name: f.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--fields: unknown field '\(f)' (fields are USGS names: \(Column.csvColumns.map(\.name).joined(separator: ",")),...)")
            }
            return c
        }
    }

    func run() throws {
        let s = try store.open()
        let q = try page.spec(filter: try filters.filter(), defaultLimit: format == .table ? 100 : nil)
        let chosen = try columns()
        let shown: [Column]
        switch format {
        case .table: shown = chosen ?? ResultWriter.tableColumns
        case .geojson: shown = chosen.map { Array(Set($0).union([.latitude, .longitude, .depth, .id])) } ?? Column.csvColumns
        default: shown = chosen ?? Column.csvColumns
        }
        let writer = ResultWriter(format: format, columns: shown)
        let cols = format == .geojson && chosen == nil ? nil : shown
        var cursor: Cursor?
        if format == .table {
            let r = try s.query(q, columns: cols)
            writer.write(r, to: OutputSink())
            cursor = r.cursor
        } else {
            // rows stream out in chunks: memory holds one chunk, not the whole result
            let out = writer.stream(to: OutputSink())
            _ = try s.query(q, columns: cols, begin: { out.begin(count: $0, cursor: $1); cursor = $1 }, chunk: out.rows)
            out.end()
        }
        if format != .json, let c = cursor { printError("cursor: \(c.token)") }
    }
}

extension ResultWriter.Format: ExpressibleByArgument {}
