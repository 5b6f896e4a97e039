import Foundation
import Testing
import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeStore
@testable import QuakeTestSupport

/// Each writer's output read back with plain Foundation (a naive CSV parser, JSONSerialization,
/// XMLParser, `split`) and compared field by field with the rows the store returns: CSV and
/// GeoJSON exports, QuakeML and the FDSN text lines, on generated data and on real USGS feeds.
@Suite struct FeedWritersTests {
    /// The real feeds: a 22-column CSV and a GeoJSON feed with titles, links and id lists.
    static let realFeeds = ["csv_2019-06-19_2019-07-19_3121.csv", "geojson_2019-01-29_2019-01-30_233.geojson"]

    // MARK: generated data

    @Test func csvExportReadsBackAsTheStoredRows() throws {
        try Self.checkCSV(try WriterReference.generated())
    }

    @Test func geoJSONExportReadsBackAsTheStoredRows() throws {
        try Self.checkGeoJSON(try WriterReference.generated())
    }

    @Test func quakeMLReadsBackAsTheStoredRows() throws {
        try Self.checkQuakeML(try WriterReference.generated())
    }

    @Test func fdsnTextReadsBackAsTheStoredRows() throws {
        try Self.checkText(try WriterReference.generated())
    }

    // MARK: real feeds

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          arguments: realFeeds)
    func everyWriterReadsBackAsARealFeedsRows(_ name: String) throws {
        let sample = try #require(try WriterReference.real(name), "\(name) is missing from \(TestSupport.usgsPath)")
        try Self.checkCSV(sample)
        try Self.checkGeoJSON(sample)
        try Self.checkQuakeML(sample)
        try Self.checkText(sample)
    }

    // MARK: the checks

    /// The CSV export: the 22-column header, then one line per stored row, every field the
    /// stored value.
    static func checkCSV(_ sample: WriterReference.Sample) throws {
        let sink = OutputSink(capturing: ())
        let written = try sample.store.export(format: .csv, to: sink)
        sink.flush()
        let lines = NaiveCSV.parse(String(decoding: sink.captured, as: UTF8.self))
        #expect(written == sample.quakes.count)
        #expect(lines.first == Column.csvColumns.map(\.name))
        #expect(lines.count == sample.quakes.count + 1)
        let idField = try #require(Column.csvColumns.firstIndex(of: .id))
        var seen = Set<String>()
        var wrong: [String] = []
        for fields in lines.dropFirst() {
            guard fields.count == Column.csvColumns.count, let quake = sample.quakes[fields[idField]] else {
                wrong.append("a line of \(fields.count) fields: \(fields.prefix(3))")
                continue
            }
            seen.insert(quake.id)
            wrong += WriterReference.wrong(quake, Column.csvColumns) { column in
                let field = fields[Column.csvColumns.firstIndex(of: column)!]
                return WriterReference.says(field, column, of: quake)
            }
        }
        #expect(seen.count == sample.quakes.count, "each stored event once")
        #expect(wrong.isEmpty, "\(wrong.count) wrong fields: \(wrong.prefix(5))")
    }

    /// The GeoJSON export: a FeatureCollection of one feature per stored row, its id, its
    /// geometry and every stored property. Titles and links the writer makes for rows without
    /// them are the links tests' subject; here they must only be present.
    static func checkGeoJSON(_ sample: WriterReference.Sample) throws {
        let sink = OutputSink(capturing: ())
        try sample.store.export(format: .geojson, to: sink)
        sink.flush()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(sink.captured)) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect((metadata["count"] as? NSNumber)?.intValue == sample.quakes.count)
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == sample.quakes.count)
        let properties = Column.geoJSONProperties + Column.extraGeoJSONProperties
        let made: Set<Column> = [.title, .url, .detail]
        var seen = Set<String>()
        var wrong: [String] = []
        for feature in features {
            guard let id = feature["id"] as? String, let quake = sample.quakes[id],
                  let values = feature["properties"] as? [String: Any],
                  let geometry = feature["geometry"] as? [String: Any],
                  let coordinates = geometry["coordinates"] as? [Any], coordinates.count == 3 else {
                wrong.append("a feature without an id, properties or coordinates: \(feature["id"] ?? "-")")
                continue
            }
            seen.insert(id)
            wrong += WriterReference.wrong(quake, properties) { column in
                guard values.keys.contains(column.name) else { return false }
                if made.contains(column), case .null = Naive.value(quake, column) { return true }
                return WriterReference.says(json: values[column.name], column, of: quake)
            }
            wrong += WriterReference.wrong(quake, [.longitude, .latitude, .depth]) { column in
                let index = [Column.longitude, .latitude, .depth].firstIndex(of: column)!
                return WriterReference.says(json: coordinates[index], column, of: quake)
            }
        }
        #expect(seen.count == sample.quakes.count, "each stored event once")
        #expect(wrong.isEmpty, "\(wrong.count) wrong fields: \(wrong.prefix(5))")
    }

    /// QuakeML: an event per row with the `quakeml:` ids, the origin's time, place and depth
    /// (in metres), and the magnitude with its type; no magnitude where none is stored.
    static func checkQuakeML(_ sample: WriterReference.Sample) throws {
        let sink = OutputSink(capturing: ())
        let writer = QuakeMLWriter(sink: sink, authority: "test.local")
        writer.begin()
        for row in 0..<sample.batch.count { writer.write(sample.batch, row: row) }
        writer.end()
        let events = try #require(QuakeMLEvents.parse(sink.captured), "XMLParser refuses the document")
        #expect(events.count == sample.quakes.count)
        var wrong: [String] = []
        for event in events {
            guard let quake = sample.quakes[event.eventid] else {
                wrong.append("an event of no stored id: \(event.eventid)")
                continue
            }
            let values = event.values
            #expect(event.publicID == "quakeml:test.local/event/" + quake.id)
            wrong += WriterReference.wrong(quake, [.time, .latitude, .longitude, .mag, .magType, .place]) { column in
                switch column {
                case .time: return WriterReference.says(values["origin/time/value"], column, of: quake)
                case .latitude: return WriterReference.says(values["origin/latitude/value"], column, of: quake)
                case .longitude: return WriterReference.says(values["origin/longitude/value"], column, of: quake)
                case .mag: return WriterReference.says(values["magnitude/mag/value"], column, of: quake)
                case .magType:
                    // a type is written only with a magnitude
                    guard quake.magnitude != nil else { return values["magnitude/type"] == nil }
                    return WriterReference.says(values["magnitude/type"], column, of: quake)
                default: return WriterReference.says(values["description/text"], column, of: quake)
                }
            }
            if !Self.metres(values["origin/depth/value"], are: quake.depth) { wrong.append("\(quake.id) depth") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong fields: \(wrong.prefix(5))")
    }

    /// Whether `text` is `kilometres` in metres, exactly (as decimals, not doubles).
    static func metres(_ text: String?, are kilometres: Double?) -> Bool {
        guard let kilometres else { return text == nil }
        guard let text, let written = Decimal(string: text),
              let stored = Decimal(string: String(kilometres)) else { return false }
        return written == stored * 1000
    }

    /// FDSN text: the service's header, then per row its 13 `|`-separated fields, Author the
    /// location source, Catalog and Contributor the network, ContributorID the id.
    static func checkText(_ sample: WriterReference.Sample) throws {
        let sink = OutputSink(capturing: ())
        let writer = ResultWriter(format: .text, columns: ResultWriter.fdsnTextColumns)
        sink.write(ResultWriter.fdsnTextHeader + "\n")
        for row in 0..<sample.batch.count { writer.fdsnText(sample.batch, row, sink) }
        sink.flush()
        let lines = String(decoding: sink.captured, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == ResultWriter.fdsnTextHeader)
        #expect(lines.last == "")
        let rows = lines.dropFirst().dropLast()
        #expect(rows.count == sample.quakes.count)
        let layout: [Column] = [.id, .time, .latitude, .longitude, .depth, .locationSource, .net, .net, .id,
                                .magType, .mag, .magSource, .place]
        var wrong: [String] = []
        for line in rows {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == layout.count, let quake = sample.quakes[fields[0]] else {
                wrong.append("a line of \(fields.count) fields: \(fields.prefix(2))")
                continue
            }
            #expect(!fields[1].hasSuffix("Z"), "the service writes UTC times bare")
            for (index, column) in layout.enumerated() where !WriterReference.says(fields[index], column, of: quake) {
                wrong.append("\(quake.id) \(column.name)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong fields: \(wrong.prefix(5))")
    }
}
