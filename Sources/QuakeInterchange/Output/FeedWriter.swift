import Foundation
import QuakeFormat
import QuakeStore

/// Writes events in USGS feed shape, from stored values, so that the output loads again and
/// every field comes back exactly: CSV with the 22-column header, or a GeoJSON
/// FeatureCollection with the standard properties (plus the CSV-only fields, so nothing is lost).
/// An event stored without a title (one loaded from CSV) gets USGS's (``usgsTitle(mag:type:place:into:)``).
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
            if let d = distance { names.insert(DistanceField.name, at: min(d.position, names.count)) }
            if header {
                // a loop, not `joined`: a one-shot query pays for each new generic type it instantiates
                for (k, n) in names.enumerated() { sink.write(k == 0 ? n : "," + n) }
                sink.write("\n")
            }
        case .geojson:
            sink.write("{\"type\":\"FeatureCollection\",\"metadata\":{\"generated\":\(generated),\"title\":\"quakes export\",\"status\":200\(count.map { ",\"count\":\($0)" } ?? "")\(total.map { ",\"total\":\($0)" } ?? "")},"
                       + "\"features\":[")
        }
    }

    package func end() {
        if format == .geojson { sink.write(first ? "]}\n" : "\n]}\n") }
        sink.flush()
    }

    /// Writes row `i` of `b`.
    package func write(_ b: RowBatch, row i: Int) {
        switch format {
        case .csv: writeCSV(b, i)
        case .geojson: writeFeature(b, i)
        }
        sink.maybeFlush()
    }

    private func writeCSV(_ b: RowBatch, _ i: Int) {
        for (k, c) in columns.enumerated() {
            if k > 0 { sink.buffer.append(UInt8(ascii: ",")) }
            if let d = distance, d.position == k {
                d.write(b, i, into: &sink.buffer, nullText: "")
                sink.buffer.append(UInt8(ascii: ","))
            }
            switch c.kind {
            case .timestamp:
                let v = b.ints[c.rawValue][i]
                if v != RowBatch.null { Timestamp.format(v, into: &sink.buffer) }
            case .decimal:
                let v = b.ints[c.rawValue][i]
                if v != RowBatch.null { ScaledDecimal.format(v, into: &sink.buffer) }
            default:
                let a = b.text[c.rawValue]
                let r = a.range(i)
                var needsQuote = false
                for x in a.bytes[r] where x == UInt8(ascii: ",") || x == UInt8(ascii: "\"") || x == 10 || x == 13 { needsQuote = true; break }
                if needsQuote {
                    sink.buffer.append(UInt8(ascii: "\""))
                    for x in a.bytes[r] {
                        sink.buffer.append(x)
                        if x == UInt8(ascii: "\"") { sink.buffer.append(x) }
                    }
                    sink.buffer.append(UInt8(ascii: "\""))
                } else {
                    sink.buffer.append(contentsOf: a.bytes[r])
                }
            }
        }
        if let d = distance, d.position >= columns.count {
            if !columns.isEmpty { sink.buffer.append(UInt8(ascii: ",")) }
            d.write(b, i, into: &sink.buffer, nullText: "")
        }
        sink.buffer.append(10)
    }

    private func writeFeature(_ b: RowBatch, _ i: Int) {
        sink.write(first ? "\n{\"type\":\"Feature\",\"properties\":{" : ",\n{\"type\":\"Feature\",\"properties\":{")
        first = false
        var firstProp = true
        for c in properties {
            if !firstProp { sink.buffer.append(UInt8(ascii: ",")) }
            firstProp = false
            sink.buffer.append(UInt8(ascii: "\""))
            sink.buffer.append(contentsOf: c.name.utf8)
            sink.buffer.append(contentsOf: "\":".utf8)
            if c == .title, let title = madeTitle(b, i) {
                FeedWriter.jsonString(title, into: &sink.buffer)
            } else {
                writeValue(b, c, i)
            }
        }
        if let d = distance {
            if !firstProp { sink.buffer.append(UInt8(ascii: ",")) }
            sink.buffer.append(contentsOf: "\"\(DistanceField.name)\":".utf8)
            d.write(b, i, into: &sink.buffer)
        }
        sink.write("},\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
        writeValue(b, .longitude, i)
        sink.buffer.append(UInt8(ascii: ","))
        writeValue(b, .latitude, i)
        sink.buffer.append(UInt8(ascii: ","))
        writeValue(b, .depth, i)
        sink.write("]},\"id\":")
        writeValue(b, .id, i)
        sink.buffer.append(UInt8(ascii: "}"))
    }

    /// USGS's title for an event stored without one, when the batch holds what it is made of.
    private func madeTitle(_ b: RowBatch, _ i: Int) -> [UInt8]? {
        let title = b.text[Column.title.rawValue], place = b.text[Column.place.rawValue]
        let type = b.text[Column.type.rawValue], mag = b.ints[Column.mag.rawValue]
        guard title.count > i, title.isNull(i), place.count > i, type.count > i, mag.count > i else { return nil }
        var out: [UInt8] = []
        FeedWriter.usgsTitle(mag: mag[i], type: type.bytes[type.range(i)], place: place.bytes[place.range(i)],
                             into: &out)
        return out
    }

    private func writeValue(_ b: RowBatch, _ c: Column, _ i: Int) {
        switch c.kind {
        case .timestamp, .decimal:
            let v = b.ints[c.rawValue][i]
            if v == RowBatch.null { sink.buffer.append(contentsOf: "null".utf8); return }
            if c.kind == .timestamp { sink.buffer.append(contentsOf: String(v).utf8) } else { ScaledDecimal.format(v, into: &sink.buffer) }
        default:
            let a = b.text[c.rawValue]
            let r = a.range(i)
            if r.isEmpty { sink.buffer.append(contentsOf: "null".utf8); return }
            FeedWriter.jsonString(a.bytes[r], into: &sink.buffer)
        }
    }

    package static func jsonString(_ s: some Collection<UInt8>, into out: inout [UInt8]) {
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
        let w = FeedWriter(format: format, sink: sink)
        let count: Int? = if case .all = filter { manifest.rows } else { nil }
        w.begin(count: count, generated: Int64(Date().timeIntervalSince1970 * 1000))
        let written = try forEachMatching(filter, columns: Column.allCases) { batch in
            for i in 0..<batch.count { w.write(batch, row: i) }
        }
        w.end()
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
