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
            if let d = distance { names.insert(DistanceField.name, at: min(d.position, names.count)) }
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

    /// Writes row `i` of `b`.
    package func write(_ b: RowBatch, row i: Int) {
        // the row is written into a local buffer, swapped out of the sink and back: appends to a
        // class's stored array pay an exclusivity check each, which was an eighth of a GeoJSON row
        var out: [UInt8] = []
        swap(&out, &sink.buffer)
        switch format {
        case .csv: writeCSV(b, i, &out)
        case .geojson: writeFeature(b, i, &out)
        }
        swap(&out, &sink.buffer)
        sink.maybeFlush()
    }

    private func writeCSV(_ b: RowBatch, _ i: Int, _ out: inout [UInt8]) {
        for (k, c) in columns.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            if let d = distance, d.position == k {
                d.write(b, i, into: &out, nullText: "")
                out.append(UInt8(ascii: ","))
            }
            switch c.kind {
            case .timestamp:
                let v = b.ints[c.rawValue][i]
                if v != RowBatch.null { Timestamp.format(v, into: &out) }
            case .decimal:
                let v = b.ints[c.rawValue][i]
                if v != RowBatch.null { ScaledDecimal.format(v, into: &out) }
            default:
                let a = b.text[c.rawValue]
                let r = a.range(i)
                var needsQuote = false
                for x in a.bytes[r] where x == UInt8(ascii: ",") || x == UInt8(ascii: "\"") || x == 10 || x == 13 {
                    needsQuote = true
                    break
                }
                if needsQuote {
                    out.append(UInt8(ascii: "\""))
                    for x in a.bytes[r] {
                        out.append(x)
                        if x == UInt8(ascii: "\"") { out.append(x) }
                    }
                    out.append(UInt8(ascii: "\""))
                } else {
                    out.append(contentsOf: a.bytes[r])
                }
            }
        }
        if let d = distance, d.position >= columns.count {
            if !columns.isEmpty { out.append(UInt8(ascii: ",")) }
            d.write(b, i, into: &out, nullText: "")
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

    private func writeFeature(_ b: RowBatch, _ i: Int, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(contentsOf: Self.featureOpen)
        let keys = self.keys
        for (k, c) in properties.enumerated() {
            out.append(contentsOf: keys[k])
            switch c {
            case .title:
                if let title = madeTitle(b, i) {
                    FeedWriter.jsonString(title, into: &out)
                } else {
                    writeValue(b, c, i, &out)
                }
            case .url, .detail:
                if !writeMadeLink(c, b, i, into: &out) {
                    writeValue(b, c, i, &out)
                }
            default:
                writeValue(b, c, i, &out)
            }
        }
        if let d = distance {
            if !properties.isEmpty { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: Self.distanceKey)
            d.write(b, i, into: &out)
        }
        out.append(contentsOf: Self.geometryOpen)
        writeValue(b, .longitude, i, &out)
        out.append(UInt8(ascii: ","))
        writeValue(b, .latitude, i, &out)
        out.append(UInt8(ascii: ","))
        writeValue(b, .depth, i, &out)
        out.append(contentsOf: Self.idOpen)
        writeValue(b, .id, i, &out)
        out.append(UInt8(ascii: "}"))
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

    private static let null = Array("null".utf8)

    private func writeValue(_ b: RowBatch, _ c: Column, _ i: Int, _ out: inout [UInt8]) {
        switch c.kind {
        case .timestamp, .decimal:
            let v = b.ints[c.rawValue][i]
            if v == RowBatch.null { out.append(contentsOf: Self.null); return }
            if c.kind == .timestamp { Self.integer(v, into: &out) } else { ScaledDecimal.format(v, into: &out) }
        default:
            let a = b.text[c.rawValue]
            let r = a.range(i)
            if r.isEmpty { out.append(contentsOf: Self.null); return }
            FeedWriter.jsonString(a.bytes[r], into: &out)
        }
    }

    /// The decimal digits of `v`, without a `String`.
    package static func integer(_ v: Int64, into out: inout [UInt8]) {
        var m = v.magnitude
        // SAFETY: at most 19 digits and a sign go into the 24-byte scratch from its end, so `i` stays at 4 or
        // above and buf[i...] lies in it.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
            var i = 24
            repeat {
                i -= 1
                buf[i] = UInt8(truncatingIfNeeded: 48 &+ m % 10)
                m /= 10
            } while m > 0
            if v < 0 { i -= 1; buf[i] = UInt8(ascii: "-") }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i...]))
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
