import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", _superCommandName: "quakes",
        abstract: "List matching events, sorted and paged; prints a resume cursor on stderr."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    @OptionGroup var page: PageOptions
    @Option(help: "Fields to read and print, comma-separated (USGS names).") var fields: String?
    @Option(help: ArgumentHelp("Output format: text is the FDSN event service's pipe-separated text; "
        + "parquet writes --out FILE; arrow is an Arrow IPC stream; svg draws a map (or --plot magtime); "
        + "kml is for Google Earth."))
    var format: ResultWriter.Format = .table
    @Option(help: "The file --format parquet (or svg) writes.") var out: String?
    @Option(help: "With --format svg: world, or fit (the events' bounding box).") var region: MapPicture.Region = .world
    @Option(help: "With --format svg: colour circles by depth or age.") var colorBy: MapPicture.Coloring = .depth
    @Option(help: "With --format svg: map (the default) or magtime (magnitude against time, a dot per event).")
    var plot: QueryPlot?
    @Flag(help: "Leave out the header line (table, csv and text).") var noHeader = false
    @Flag(help: "Print the resume cursor even on the last page.") var cursor = false
    @OptionGroup var live: WatchOptions

    /// The values parsed, as plain values.
    var args: QueryArgs {
        var values = QueryArgs()
        values.store = store.args
        values.filters = filters.args
        values.page = page.args
        values.fields = fields
        values.format = format
        values.out = out
        values.region = region
        values.colorBy = colorBy
        values.plot = plot
        values.noHeader = noHeader
        values.cursor = cursor
        values.live = live.args
        return values
    }

    func validate() throws { try args.validate() }

    func columns() throws -> [Column]? { try args.columns() }

    func run() throws { try args.run() }
}

extension ResultWriter.Format: ExpressibleByArgument {}
extension MapPicture.Region: ExpressibleByArgument {}
extension MapPicture.Coloring: ExpressibleByArgument {}
