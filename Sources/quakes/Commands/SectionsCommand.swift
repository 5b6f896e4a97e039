import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct SectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sections", _superCommandName: "quakes",
        abstract: "Group matching events into sections (like SwiftData's sectionBy): each section's id, count and rows."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @Option(help: "day, month, net or magType.") var by: String
    @Option(help: "FIELD[:asc|desc] within sections, repeatable.") var sort: [String] = []
    @Option(help: "Rows shown per section.") var limitPerSection: Int?
    @Option(help: "Fields to print, comma-separated.") var fields: String?
    @Option(name: .customLong("format"), help: "Output format (ndjson: one section per line).")
    var output: SectionsFormat = .table
    var format: ResultWriter.Format { output.format }
    @Flag(help: "Leave out each table's header line.") var noHeader = false

    func validate() throws {
        guard ["day", "month", "net", "magType"].contains(by) else {
            throw ValidationError("--by: expected day, month, net or magType")
        }
        if let limit = limitPerSection, limit < 0 { throw ValidationError("--limit-per-section must be >= 0") }
        _ = try keys()
        _ = try columns()
    }

    func keys() throws -> [SortKey] {
        if sort.isEmpty { return [SortKey(.time, ascending: false)] }
        return try sort.map { text in
            guard let key = SortKey(parsing: text) else {
                throw ValidationError("--sort: expected FIELD[:asc|desc], got '\(text)'")
            }
            return key
        }
    }

    func columns() throws -> [Column] {
        guard let fields else { return ResultWriter.tableColumns }
        return try fields.split(separator: ",").map { field in
            guard let column = Column(name: String(field)) else {
                throw ValidationError("--fields: unknown field '\(field)'")
            }
            return column
        }
    }

    func run() throws {
        let opened = try store.open()
        let cols = try columns()
        let sections = try opened.sections(try filters.filter(in: opened), by: GroupBy(parsing: by)!, sort: try keys(),
                                      limitPerSection: limitPerSection ?? (format == .table ? 10 : nil), columns: cols)
        var writer = ResultWriter(format: format, columns: cols)
        writer.header = !noHeader
        writer.dimNulls = FileIO.isTerminal(1)
        writer.write(sections: sections, key: by, to: Console.out)
    }
}
