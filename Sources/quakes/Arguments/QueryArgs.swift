import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// What `quakes query` was asked (``QueryCommand``), and how it answers: plain values, so the
/// one-shot fast path (``FastPath``) fills them without ArgumentParser.
struct QueryArgs: Equatable {
    var store = StoreArgs()
    var filters = FilterArgs()
    var page = PageArgs()
    var fields: String?
    var format: ResultWriter.Format = .table
    var out: String?
    var region: MapPicture.Region = .world
    var colorBy: MapPicture.Coloring = .depth
    /// `--plot`: what `--format svg` draws; nil when not given (a map).
    var plot: QueryPlot?
    var noHeader = false
    var cursor = false
    var live = WatchArgs()

    /// Every check ArgumentParser runs on a parsed `query`: the groups' and query's own.
    func validateAll() throws {
        try filters.validate()
        try page.validate()
        try validate()
    }

    /// The checks of query's own flags (the groups' are ``FilterArgs/validate()`` and
    /// ``PageArgs/validate()``).
    func validate() throws {
        _ = try columns()
        try validateDistance()
        if format == .text && fields != nil {
            throw ValidationError("--fields: the text format has fixed FDSN columns")
        }
        if format == .kml && fields != nil {
            throw ValidationError("--fields: kml carries every field in ExtendedData")
        }
        if format == .parquet && out == nil { throw ValidationError("--format parquet needs --out FILE") }
        if format != .parquet && format != .svg && out != nil {
            throw ValidationError("--out goes with --format parquet or svg; other formats go to stdout")
        }
        if let plot, format != .svg {
            throw ValidationError("--plot \(plot.rawValue) goes with --format svg")
        }
        if format == .svg {
            if !page.sort.isEmpty || page.orderby != nil {
                throw ValidationError("--format svg draws the largest magnitudes first; "
                    + "--sort and --orderby do not apply")
            }
            if fields != nil { throw ValidationError("--fields: an svg figure reads its own fields") }
        }
    }

    /// The stored fields `--fields` names (nil: the format's default), without `distance_km`.
    func columns() throws -> [Column]? {
        guard let fields else { return nil }
        return try fields.split(separator: ",").filter { $0.trimmingBlanks != DistanceField.name }.map { field in
            guard let column = Column(name: field.trimmingBlanks) else {
                let names = Column.csvColumns.map(\.name).joined(separator: ",")
                throw ValidationError("--fields: unknown field '\(field)' (fields are USGS names: \(names),...)")
            }
            return column
        }
    }

    func run() throws {
        let target = try store.open()
        guard live.watch else {
            try emit(target, format: format, to: Console.out)
            return
        }
        try WatchLoop.run(target, filter: try filters.flagFilter(), writesFile: out != nil) { generation in
            if format == .ndjson && !WatchLoop.isTerminal {
                // one line per result: the json envelope, flattened, with the generation
                let sink = OutputSink(capturing: ())
                try emit(target, format: .json, to: sink)
                WatchLoop.printLine(sink, generation: generation)
            } else {
                try emit(target, format: format, to: Console.out)
                if let out { printError("wrote \(out) (generation \(generation))") }
            }
        }
    }

    /// Prints (or writes) the answer once, in `format`, to `sink`.
    private func emit(_ target: Store, format: ResultWriter.Format, to sink: OutputSink) throws {
        defer { sink.flush() }
        if format == .svg {
            if plot == .magtime {
                try drawMagnitudeTime(target, to: sink)
            } else {
                try drawMap(target, to: sink)
            }
            return
        }
        let spec = try page.spec(filter: try filters.filter(in: target, centerOnly: true),
                                 defaultLimit: format == .table ? 100 : nil)
        let chosen = try columns()
        let shown = Self.shownColumns(format, chosen: chosen)
        var writer = try makeWriter(format: format, shown: shown, to: sink)
        var queried = format == .geojson && chosen == nil ? nil : shown
        if writer.distance != nil { queried = queried.map { Array(Set($0).union([.latitude, .longitude])) } }
        writer.offset = spec.offset
        if let nearestFirst = try page.distanceOrder(), let center = try filters.center() {
            try emitByDistance(target, spec, center: center, nearestFirst: nearestFirst, columns: queried,
                               writer: writer, to: sink)
            return
        }
        try emitRows(target, spec, format: format, shown: shown, columns: queried, writer: writer, to: sink)
    }

    /// The columns the answer shows in `format`, given the ones `--fields` chose.
    private static func shownColumns(_ format: ResultWriter.Format, chosen: [Column]?) -> [Column] {
        switch format {
        case .table: return chosen ?? ResultWriter.tableColumns
        case .geojson:
            return chosen.map { Array(Set($0).union([.latitude, .longitude, .depth, .id])) } ?? Column.csvColumns
        case .text: return ResultWriter.fdsnTextColumns
        default: return chosen ?? Column.csvColumns
        }
    }

    /// The writer of `shown` in `format`, with its hints and the distance field.
    private func makeWriter(format: ResultWriter.Format, shown: [Column], to sink: OutputSink) throws -> ResultWriter {
        var writer = ResultWriter(format: format, columns: shown)
        writer.header = !noHeader
        writer.dimNulls = FileIO.isTerminal(1)
        if sink === Console.out && FileIO.isTerminal(1) { writer.maxWidth = FileIO.terminalColumns(1) }
        if page.limit == nil && page.page == nil && page.pageSize == nil { writer.moreHint = "use --limit" }
        writer.droppedHint = "use --fields, or pipe the output for every column"
        writer.distance = try distanceField(shown: shown)
        return writer
    }

    /// The rows of `spec` in the store's order: to a Parquet file, as a table, or streamed.
    private func emitRows(_ target: Store, _ spec: QuerySpec, format: ResultWriter.Format, shown: [Column],
                          columns queried: [Column]?, writer: ResultWriter, to sink: OutputSink) throws {
        var writer = writer
        // Rows matched in all: counted only when the page came back full or starts past the first row,
        // and only as far as one row past the page when the format does not print the total.
        let showsTotal = [.table, .json, .geojson].contains(format)
        func matched(returned: Int) throws -> Int? {
            let full = spec.limit.map { returned >= $0 } ?? false
            guard full || spec.offset > 0 else { return returned }
            return try target.count(spec.effectiveFilter, cap: showsTotal ? .max : spec.offset + returned + 1)
        }
        var next: Cursor?
        if format == .parquet, let out {
            let file = try ParquetResultFile(path: out, columns: shown)
            do {
                _ = try target.query(spec, columns: queried, begin: { count, pageCursor in
                    let total = try matched(returned: count).map { max(0, $0 - spec.offset) }
                    next = nextCursor(pageCursor, returned: count, matched: total)
                }, chunk: file.write)
                try file.finish()
            } catch {
                file.abandon()
                throw error
            }
        } else if format == .table {
            let result = try target.query(spec, columns: queried)
            writer.matched = try matched(returned: result.count)
            writer.write(result, to: sink)
            next = nextCursor(result.cursor, returned: result.count,
                              matched: writer.matched.map { max(0, $0 - spec.offset) })
        } else {
            // rows stream out in chunks: memory holds one chunk, not the whole result
            let stream = writer.stream(to: sink)
            _ = try target.query(spec, columns: queried, begin: { count, pageCursor in
                let total = try matched(returned: count)
                next = nextCursor(pageCursor, returned: count, matched: total.map { max(0, $0 - spec.offset) })
                stream.begin(count: count, cursor: next, total: total)
            }, chunk: stream.rows)
            stream.end()
        }
        if format != .json, let next { printError("cursor: \(next.token)") }
    }

    /// The cursor to print: only when another page exists, or always with `--cursor`.
    private func nextCursor(_ pageCursor: Cursor?, returned: Int, matched: Int?) -> Cursor? {
        if cursor { return pageCursor }
        guard let matched, matched > returned else { return nil }
        return pageCursor
    }
}
