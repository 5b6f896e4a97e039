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
        if format == .text && fields != nil { throw ValidationError("--fields: the text format has fixed FDSN columns") }
        if format == .kml && fields != nil {
            throw ValidationError("--fields: kml carries every field in ExtendedData")
        }
        if format == .parquet && out == nil { throw ValidationError("--format parquet needs --out FILE") }
        if format != .parquet && format != .svg && out != nil {
            throw ValidationError("--out goes with --format parquet or svg; other formats go to stdout")
        }
        if format == .svg {
            if !page.sort.isEmpty || page.orderby != nil {
                throw ValidationError("--format svg draws the largest magnitudes first; --sort and --orderby do not apply")
            }
            if fields != nil { throw ValidationError("--fields: the svg map reads its own fields") }
        }
    }

    /// The stored fields `--fields` names (nil: the format's default), without `distance_km`.
    func columns() throws -> [Column]? {
        guard let fields else { return nil }
        return try fields.split(separator: ",").filter { $0.trimmingBlanks != DistanceField.name }.map { f in
            guard let c = Column(name: f.trimmingBlanks) else {
                throw ValidationError("--fields: unknown field '\(f)' (fields are USGS names: \(Column.csvColumns.map(\.name).joined(separator: ",")),...)")
            }
            return c
        }
    }

    func run() throws {
        let s = try store.open()
        guard live.watch else { try emit(s, format: format, to: Console.out); return }
        try WatchLoop.run(s, filter: try filters.flagFilter(), writesFile: out != nil) { g in
            if format == .ndjson && !WatchLoop.isTerminal {
                // one line per result: the json envelope, flattened, with the generation
                let sink = OutputSink(capturing: ())
                try emit(s, format: .json, to: sink)
                WatchLoop.printLine(sink, generation: g)
            } else {
                try emit(s, format: format, to: Console.out)
                if let out { printError("wrote \(out) (generation \(g))") }
            }
        }
    }

    /// Prints (or writes) the answer once, in `format`, to `sink`.
    private func emit(_ s: Store, format: ResultWriter.Format, to sink: OutputSink) throws {
        defer { sink.flush() }
        if format == .svg { try drawMap(s, to: sink); return }
        let q = try page.spec(filter: try filters.filter(in: s, centerOnly: true), defaultLimit: format == .table ? 100 : nil)
        let chosen = try columns()
        let shown: [Column]
        switch format {
        case .table: shown = chosen ?? ResultWriter.tableColumns
        case .geojson: shown = chosen.map { Array(Set($0).union([.latitude, .longitude, .depth, .id])) } ?? Column.csvColumns
        case .text: shown = ResultWriter.fdsnTextColumns
        default: shown = chosen ?? Column.csvColumns
        }
        var writer = ResultWriter(format: format, columns: shown)
        writer.header = !noHeader
        writer.dimNulls = FileIO.isTerminal(1)
        if sink === Console.out && FileIO.isTerminal(1) { writer.maxWidth = FileIO.terminalColumns(1) }
        if page.limit == nil && page.page == nil && page.pageSize == nil { writer.moreHint = "use --limit" }
        writer.droppedHint = "use --fields, or pipe the output for every column"
        writer.distance = try distanceField(shown: shown)
        var cols = format == .geojson && chosen == nil ? nil : shown
        if writer.distance != nil { cols = cols.map { Array(Set($0).union([.latitude, .longitude])) } }
        writer.offset = q.offset
        if let nearestFirst = try page.distanceOrder(), let center = try filters.center() {
            try emitByDistance(s, q, center: center, nearestFirst: nearestFirst, columns: cols, writer: writer, to: sink)
            return
        }
        // Rows matched in all: counted only when the page came back full or starts past the first row,
        // and only as far as one row past the page when the format does not print the total.
        let showsTotal = [.table, .json, .geojson].contains(format)
        func matched(returned: Int) throws -> Int? {
            let full = q.limit.map { returned >= $0 } ?? false
            guard full || q.offset > 0 else { return returned }
            return try s.count(q.effectiveFilter, cap: showsTotal ? .max : q.offset + returned + 1)
        }
        var next: Cursor?
        if format == .parquet, let out {
            let file = try ParquetResultFile(path: out, columns: shown)
            do {
                _ = try s.query(q, columns: cols, begin: { count, c in
                    next = nextCursor(c, returned: count, matched: try matched(returned: count).map { max(0, $0 - q.offset) })
                }, chunk: file.write)
                try file.finish()
            } catch {
                file.abandon()
                throw error
            }
        } else if format == .table {
            let r = try s.query(q, columns: cols)
            writer.matched = try matched(returned: r.count)
            writer.write(r, to: sink)
            next = nextCursor(r.cursor, returned: r.count, matched: writer.matched.map { max(0, $0 - q.offset) })
        } else {
            // rows stream out in chunks: memory holds one chunk, not the whole result
            let out = writer.stream(to: sink)
            _ = try s.query(q, columns: cols, begin: { count, c in
                let total = try matched(returned: count)
                next = nextCursor(c, returned: count, matched: total.map { max(0, $0 - q.offset) })
                out.begin(count: count, cursor: next, total: total)
            }, chunk: out.rows)
            out.end()
        }
        if format != .json, let next { printError("cursor: \(next.token)") }
    }

    /// The cursor to print: only when another page exists, or always with `--cursor`.
    private func nextCursor(_ c: Cursor?, returned: Int, matched: Int?) -> Cursor? {
        if cursor { return c }
        guard let matched, matched > returned else { return nil }
        return c
    }
}
