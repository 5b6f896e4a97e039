import Foundation
import QuakeFormat
import QuakeStore

/// Writes events in USGS feed shape, from stored values, so that the output loads again and
/// every field comes back exactly: CSV with the 22-column header, or a GeoJSON
/// FeatureCollection with the standard properties (plus the CSV-only fields, so nothing is lost).
/// An event stored without a title (one loaded from CSV) gets USGS's (``usgsTitle(mag:type:place:into:)``),
/// and one with a ComCat id without a `url` and `detail` gets USGS's links (``writeMadeLink(_:_:_:into:)``).
package final class FeedWriter {
    package enum Format: String, Sendable, CaseIterable { case csv, geojson }

    package let format: Format
    package let sink: OutputSink
    package let columns: [Column]
    private var first = true

    /// GeoJSON properties written after the standard ones: fields only CSV feeds carry.
    /// GeoJSON properties written: all of them, or those `columns` names when it is not the default.
    package let properties: [Column]
    /// The `distance_km` field, when asked for: a CSV column at its position, or the last
    /// GeoJSON property.
    package var distance: DistanceField?
    /// The GeoJSON collection's `metadata`: an export's unless the writer answers a request.
    package var metadata = FeedMetadata()

    /// `columns` picks the CSV columns, or the GeoJSON properties (default: every field; a
    /// feature always carries its geometry and id).
    package init(format: Format, sink: OutputSink, columns: [Column] = Column.csvColumns) {
        self.format = format
        self.sink = sink
        self.columns = columns
        let all = Column.geoJSONProperties + Column.extraGeoJSONProperties
        let wanted = Set(columns)
        properties = columns == Column.csvColumns ? all : all.filter { wanted.contains($0) }
    }

    /// Writes the header (CSV) or the collection opening (GeoJSON).
    /// Starts the output; for GeoJSON, `count` is the features that follow (USGS's meaning) and
    /// `total` (when given) how many the query matched before a limit or offset.
    package func begin(count: Int?, total: Int? = nil, generated: Int64 = 0, header: Bool = true) {
        switch format {
        case .csv:
            var names = columns.map(\.name)
            if let distance { names.insert(DistanceField.name, at: min(distance.position, names.count)) }
            if header {
                // a loop, not `joined`: a one-shot query pays for each new generic type it instantiates
                for (k, n) in names.enumerated() { sink.write(k == 0 ? n : "," + n) }
                sink.write("\n")
            }
        case .geojson:
            sink.write("{\"type\":\"FeatureCollection\",")
            metadata.write(generated: generated, count: count, total: total, into: &sink.buffer)
            sink.write(",\"features\":[")
        }
    }

    package func end() {
        if format == .geojson { sink.write(first ? "]}\n" : "\n]}\n") }
        sink.flush()
    }

    /// Writes row `row` of `batch`.
    package func write(_ batch: RowBatch, row: Int) {
        // the row is written into a local buffer, swapped out of the sink and back: appends to a
        // class's stored array pay an exclusivity check each, which was an eighth of a GeoJSON row
        var out: [UInt8] = []
        swap(&out, &sink.buffer)
        switch format {
        case .csv: writeCSV(batch, row, &out)
        case .geojson: writeFeature(batch, row, &out)
        }
        swap(&out, &sink.buffer)
        sink.maybeFlush()
    }

    private func writeCSV(_ batch: RowBatch, _ row: Int, _ out: inout [UInt8]) {
        for (k, column) in columns.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            if let distance, distance.position == k {
                distance.write(batch, row, into: &out, nullText: "")
                out.append(UInt8(ascii: ","))
            }
            switch column.kind {
            case .timestamp:
                let value = batch.ints[column.rawValue][row]
                if value != RowBatch.null { Timestamp.format(value, into: &out) }
            case .decimal:
                let value = batch.ints[column.rawValue][row]
                if value != RowBatch.null { ScaledDecimal.format(value, into: &out) }
            default:
                let texts = batch.text[column.rawValue]
                let range = texts.range(row)
                var needsQuote = false
                for x in texts.bytes[range]
                where x == UInt8(ascii: ",") || x == UInt8(ascii: "\"") || x == 10 || x == 13 {
                    needsQuote = true
                    break
                }
                if needsQuote {
                    out.append(UInt8(ascii: "\""))
                    for x in texts.bytes[range] {
                        out.append(x)
                        if x == UInt8(ascii: "\"") { out.append(x) }
                    }
                    out.append(UInt8(ascii: "\""))
                } else {
                    out.append(contentsOf: texts.bytes[range])
                }
            }
        }
        if let distance, distance.position >= columns.count {
            if !columns.isEmpty { out.append(UInt8(ascii: ",")) }
            distance.write(batch, row, into: &out, nullText: "")
        }
        out.append(10)
    }

    /// Each property's `"name":`, and the fixed parts of a feature, as bytes made once.
    private lazy var keys: [[UInt8]] = properties.enumerated().map { k, c in
        Array(((k == 0 ? "" : ",") + "\"\(c.name)\":").utf8)
    }
    private static let featureOpen = Array("\n{\"type\":\"Feature\",\"properties\":{".utf8)
    private static let geometryOpen = Array("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[".utf8)
    private static let idOpen = Array("]},\"id\":".utf8)
    private static let distanceKey = Array("\"\(DistanceField.name)\":".utf8)

    private func writeFeature(_ batch: RowBatch, _ row: Int, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(contentsOf: Self.featureOpen)
        let keys = self.keys
        for (k, column) in properties.enumerated() {
            out.append(contentsOf: keys[k])
            switch column {
            case .title:
                if let title = madeTitle(batch, row) {
                    FeedWriter.jsonString(title, into: &out)
                } else {
                    writeValue(batch, column, row, &out)
                }
            case .url, .detail:
                if !writeMadeLink(column, batch, row, into: &out) {
                    writeValue(batch, column, row, &out)
                }
            default:
                writeValue(batch, column, row, &out)
            }
        }
        if let distance {
            if !properties.isEmpty { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: Self.distanceKey)
            distance.write(batch, row, into: &out)
        }
        out.append(contentsOf: Self.geometryOpen)
        writeValue(batch, .longitude, row, &out)
        out.append(UInt8(ascii: ","))
        writeValue(batch, .latitude, row, &out)
        out.append(UInt8(ascii: ","))
        writeValue(batch, .depth, row, &out)
        out.append(contentsOf: Self.idOpen)
        writeValue(batch, .id, row, &out)
        out.append(UInt8(ascii: "}"))
    }

    /// USGS's title for an event stored without one, when the batch holds what it is made of.
    private func madeTitle(_ batch: RowBatch, _ row: Int) -> [UInt8]? {
        let title = batch.text[Column.title.rawValue], place = batch.text[Column.place.rawValue]
        let type = batch.text[Column.type.rawValue], mag = batch.ints[Column.mag.rawValue]
        guard title.count > row, title.isNull(row), place.count > row, type.count > row, mag.count > row else {
            return nil
        }
        var out: [UInt8] = []
        FeedWriter.usgsTitle(mag: mag[row], type: type.bytes[type.range(row)], place: place.bytes[place.range(row)],
                             into: &out)
        return out
    }

    private static let null = Array("null".utf8)

    private func writeValue(_ batch: RowBatch, _ column: Column, _ row: Int, _ out: inout [UInt8]) {
        switch column.kind {
        case .timestamp, .decimal:
            let value = batch.ints[column.rawValue][row]
            if value == RowBatch.null {
                out.append(contentsOf: Self.null)
                return
            }
            if column.kind == .timestamp {
                Self.integer(value, into: &out)
            } else {
                ScaledDecimal.format(value, into: &out)
            }
        default:
            let texts = batch.text[column.rawValue]
            let range = texts.range(row)
            if range.isEmpty {
                out.append(contentsOf: Self.null)
                return
            }
            FeedWriter.jsonString(texts.bytes[range], into: &out)
        }
    }

    /// The decimal digits of `v`, without a `String`.
    package static func integer(_ v: Int64, into out: inout [UInt8]) {
        var magnitude = v.magnitude
        // SAFETY: at most 19 digits and a sign go into the 24-byte scratch from its end, so `start` stays at 4
        // or above and buf[start...] lies in it.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
            var start = 24
            repeat {
                start -= 1
                buf[start] = UInt8(truncatingIfNeeded: 48 &+ magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if v < 0 {
                start -= 1
                buf[start] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start...]))
        }
    }

    /// ``jsonString(_:into:)`` for the stored texts' slices, concrete so that callers in other
    /// modules need no generic dispatch per byte.
    package static func jsonString(_ s: ArraySlice<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var plain = true
        for x in s where x < 32 || x == UInt8(ascii: "\"") || x == 92 {
            plain = false
            break
        }
        if plain {
            out.append(contentsOf: s)
            out.append(UInt8(ascii: "\""))
        } else {
            out.removeLast()
            jsonEscaped(s, into: &out)
        }
    }

    package static func jsonString(_ s: some Collection<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // most texts need no escape: one copy
        if !s.contains(where: { $0 < 32 || $0 == UInt8(ascii: "\"") || $0 == 92 }) {
            out.append(contentsOf: s)
            out.append(UInt8(ascii: "\""))
            return
        }
        out.removeLast()
        jsonEscaped(s, into: &out)
    }

    private static func jsonEscaped(_ s: some Collection<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for x in s {
            switch x {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case 92: out.append(contentsOf: [92, 92])
            case 10: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 9: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(x >> 4)], hex[Int(x & 15)]])
            default: out.append(x)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension Store {
    /// Writes the events `filter` matches (every one by default), partition by partition in
    /// (time, id) order, and returns how many. Memory holds one partition.
    @discardableResult
    package func export(format: FeedWriter.Format, to sink: OutputSink, filter: Filter = .all) throws -> Int {
        let writer = FeedWriter(format: format, sink: sink)
        let count: Int? = if case .all = filter { manifest.rows } else { nil }
        writer.begin(count: count, generated: Int64(Date().timeIntervalSince1970 * 1000))
        let written = try forEachMatching(filter, columns: Column.allCases) { batch in
            for i in 0..<batch.count { writer.write(batch, row: i) }
        }
        writer.end()
        return written
    }

    /// Hands `body` the rows `filter` matches, partition by partition in (time, id) order, with
    /// `columns`, and returns how many there were. Memory holds one partition.
    package func forEachMatching(_ filter: Filter, columns: [Column], _ body: (RowBatch) throws -> Void) throws -> Int {
        var count = 0
        for e in manifest.partitions {
            let batch = try rows(of: e, filter: filter, columns: columns)
            dropReader(e)
            try body(batch)
            count += batch.count
        }
        return count
    }
}
