import ArgumentParser
import Foundation
import QuakeStore

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write the store back out as USGS CSV or GeoJSON, loadable again.")

    @OptionGroup var store: StoreOptions
    @Option(help: "csv or geojson.") var format: FeedWriter.Format = .csv
    @Option(help: "Output file (default: standard output).") var out: String?

    func run() throws {
        let s = try store.open()
        let sink = try out.map { try OutputSink(path: $0) } ?? OutputSink()
        try s.export(format: format, to: sink)
        sink.close()
    }
}

extension FeedWriter.Format: ExpressibleByArgument {}
