import Foundation
import QuakeFormat
import QuakeStore

/// Writes query results as an aligned table, USGS CSV, JSON (with an envelope holding the
/// count and the cursor), NDJSON, USGS GeoJSON, the FDSN event service's pipe-separated text or KML.
package struct ResultWriter {
    package enum Format: String, Sendable, CaseIterable {
        case table, csv, json, ndjson, geojson, text, parquet, arrow, svg, kml
    }

    package let format: Format
    package let columns: [Column]
    /// Whether table, csv and text output start with their header line.
    package var header = true
    /// Whether a table shows `NULL` dimmed (ANSI faint), for a terminal.
    package var dimNulls = false
    /// Rows the query matched in all, before its limit and offset, when known: a table's last
    /// line, the json envelope's `total` and GeoJSON's `metadata.total` give it.
    package var matched: Int?
    /// Widest a table may be (the terminal's width); nil writes every column whole.
    package var maxWidth: Int?
    /// Rows skipped before the first one written (the page's offset), for the table's last line.
    package var offset = 0
    /// What that last line suggests when rows were left out (nil: nothing).
    package var moreHint: String?
    /// What the note under a table that dropped columns to fit suggests (nil: nothing).
    package var droppedHint: String?
    /// The `distance_km` field, when asked for (table, csv, json, ndjson, geojson).
    package var distance: DistanceField?

    package init(format: Format, columns: [Column]) {
        self.format = format
        self.columns = columns
    }

    /// Default columns of the table format.
    package static let tableColumns: [Column] = [.time, .mag, .magType, .depth, .place, .id]

    package func write(_ result: QueryResult, to sink: OutputSink) {
        if format == .table {
            table(result, sink)
            return
        }
        let resultStream = stream(to: sink)
        resultStream.begin(count: result.count, cursor: result.cursor, total: matched)
        resultStream.rows(result)
        resultStream.end()
    }

    /// A writer that takes a result in chunks (csv, json, ndjson, geojson; not table, whose
    /// column widths need every row).
    package func stream(to sink: OutputSink) -> Stream { Stream(writer: self, sink: sink) }

    /// Writes the envelope once and rows chunk by chunk.
    package final class Stream {
        package let writer: ResultWriter
        package let sink: OutputSink
        private var feed: FeedWriter?
        private var arrow: ArrowStreamWriter?
        private var kml: KMLWriter?
        private var written = 0

        package init(writer: ResultWriter, sink: OutputSink) {
            self.writer = writer
            self.sink = sink
        }

        /// Writes the envelope: `count` rows follow; `total` (when known) the query matched in all.
        package func begin(count: Int, cursor: Cursor?, total: Int? = nil) {
            switch writer.format {
            case .csv:
                feed = FeedWriter(format: .csv, sink: sink, columns: writer.columns)
                feed?.distance = writer.distance
                feed?.begin(count: count, header: writer.header)
            case .text:
                if writer.header { sink.write(ResultWriter.fdsnTextHeader + "\n") }
            case .arrow:
                arrow = ArrowStreamWriter(sink: sink, columns: writer.columns)
                arrow?.begin()
            case .geojson:
                feed = FeedWriter(format: .geojson, sink: sink, columns: writer.columns)
                feed?.distance = writer.distance
                feed?.begin(count: count, total: total, generated: Int64(Date().timeIntervalSince1970 * 1000))
            case .json:
                sink.write("{\"count\":\(count),\(total.map { "\"total\":\($0)," } ?? "")\"cursor\":")
                if let cursor {
                    FeedWriter.jsonString(cursor.token.utf8, into: &sink.buffer)
                } else {
                    sink.write("null")
                }
                sink.write(",\"rows\":[")
            case .kml:
                kml = KMLWriter(sink: sink)
                kml?.begin(count: count)
            case .ndjson, .table, .parquet, .svg:
                break
            }
        }

        package func rows(_ r: QueryResult) {
            switch writer.format {
            case .csv, .geojson:
                for i in 0..<r.count { feed?.write(r.batch, row: i) }
            case .text:
                for i in 0..<r.count { writer.fdsnText(r.batch, i, sink) }
            case .arrow:
                arrow?.write(r)
            case .kml:
                for i in 0..<r.count { kml?.write(r.batch, row: i) }
            case .json:
                for i in 0..<r.count {
                    if written + i > 0 { sink.write(",") }
                    sink.write("\n")
                    writer.object(r.batch, i, sink)
                }
            case .ndjson, .table:
                for i in 0..<r.count {
                    writer.object(r.batch, i, sink)
                    sink.write("\n")
                }
            case .parquet, .svg:
                break  // a file or a picture, not a stream: see ParquetResultFile and MapPicture
            }
            written += r.count
            sink.maybeFlush()
        }

        package func end() {
            switch writer.format {
            case .geojson: feed?.end()
            case .json: sink.write("\n]}\n")
            case .arrow: arrow?.end()
            case .kml: kml?.end()
            default: break
            }
            sink.flush()
        }
    }

    package func object(_ batch: RowBatch, _ row: Int, _ sink: OutputSink) {
        sink.write("{")
        for (k, column) in columns.enumerated() {
            if k > 0 { sink.write(",") }
            if let distance, distance.position == k {
                sink.write("\"\(DistanceField.name)\":")
                distance.write(batch, row, into: &sink.buffer)
                sink.write(",")
            }
            sink.write("\"\(column.name)\":")
            switch column.kind {
            case .timestamp:
                let value = batch.ints[column.rawValue][row]
                if value == RowBatch.null { sink.write("null") } else { sink.write("\"\(Timestamp.string(value))\"") }
            case .decimal:
                let value = batch.ints[column.rawValue][row]
                if value == RowBatch.null {
                    sink.write("null")
                } else {
                    ScaledDecimal.format(value, into: &sink.buffer)
                }
            default:
                let texts = batch.text[column.rawValue]
                if texts.isNull(row) {
                    sink.write("null")
                } else {
                    FeedWriter.jsonString(texts.bytes[texts.range(row)], into: &sink.buffer)
                }
            }
        }
        if let distance, distance.position >= columns.count {
            sink.write(columns.isEmpty ? "\"\(DistanceField.name)\":" : ",\"\(DistanceField.name)\":")
            distance.write(batch, row, into: &sink.buffer)
        }
        sink.write("}")
        sink.maybeFlush()
    }
}
