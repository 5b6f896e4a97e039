import QuakeSupport
import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", _superCommandName: "quakes",
        abstract: "Write the store (or the events the filters match) as USGS CSV or GeoJSON, loadable again, "
            + "or as a hive-partitioned Parquet data set."
    )

    enum Format: String, CaseIterable, ExpressibleByArgument { case csv, geojson, parquet, kml }

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @Option(help: "Output format.") var format: Format = .csv
    @Option(help: "Output file (csv, geojson; default or '-': standard output) or directory (parquet, new or empty).")
    var out: String?
    @Option(help: "Parquet layout: DIR/year=YYYY/month=M/part-0.parquet, DIR/year=YYYY/..., or one file.")
    var partitionBy: ParquetLayout = .month

    func validate() throws {
        if format == .parquet && out == nil { throw ValidationError("--format parquet needs --out DIR") }
        if format == .parquet && out == "-" {
            throw ValidationError("--format parquet writes a directory; for one Parquet file on stdout use "
                + "'quakes query --format parquet --out -'")
        }
    }

    func run() throws {
        let opened = try store.open()
        let filter = try filters.filter(in: opened)
        switch format {
        case .parquet:
            let exported = try opened.exportParquet(to: out ?? ".", layout: partitionBy, filter: filter)
            let files = "\(exported.files.count.grouped) file\(exported.files.count == 1 ? "" : "s")"
            let rows = "\(exported.rows.grouped) row\(exported.rows == 1 ? "" : "s")"
            printError("exported \(rows) as parquet to \(out ?? ".") (\(files), \(exported.bytes.grouped) bytes)")
        case .csv, .geojson, .kml:
            let toStdout = out == nil || out == "-"
            let sink = try toStdout ? Console.out : OutputSink(path: out ?? "-")
            let rows: Int
            do {
                if format == .kml { rows = try opened.exportKML(to: sink, filter: filter) } else {
                    rows = try opened.export(format: format == .csv ? .csv : .geojson, to: sink, filter: filter)
                }
                try sink.finish()
            } catch {
                sink.discard()
                throw error
            }
            let dest = toStdout ? "stdout" : out ?? ""
            printError("exported \(rows.grouped) row\(rows == 1 ? "" : "s") as \(format.rawValue) to \(dest)")
        }
    }
}

extension ParquetLayout: ExpressibleByArgument {}
extension FeedWriter.Format: ExpressibleByArgument {}
