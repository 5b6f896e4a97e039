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
        guard ["day", "month", "net", "magType"].contains(by) else { throw ValidationError("--by: expected day, month, net or magType") }
        if let l = limitPerSection, l < 0 { throw ValidationError("--limit-per-section must be >= 0") }
        _ = try keys()
        _ = try columns()
    }

    func keys() throws -> [SortKey] {
        if sort.isEmpty { return [SortKey(.time, ascending: false)] }
        return try sort.map { s in
            guard let k = SortKey(parsing: s) else { throw ValidationError("--sort: expected FIELD[:asc|desc], got '\(s)'") }
            return k
        }
    }

    func columns() throws -> [Column] {
        guard let fields else { return ResultWriter.tableColumns }
        return try fields.split(separator: ",").map { f in
            guard let c = Column(name: String(f)) else { throw ValidationError("--fields: unknown field '\(f)'") }
            return c
        }
    }

    func run() throws {
        let s = try store.open()
        let cols = try columns()
        let sections = try s.sections(try filters.filter(in: s), by: GroupBy(parsing: by)!, sort: try keys(),
                                      limitPerSection: limitPerSection ?? (format == .table ? 10 : nil), columns: cols)
        var writer = ResultWriter(format: format, columns: cols)
        writer.header = !noHeader
        writer.dimNulls = FileIO.isTerminal(1)
        writer.write(sections: sections, key: by, to: Console.out)
    }
}
