import QuakeFormat
import QuakeStore

/// Writes events as a KML 2.2 document for Google Earth, as USGS's KML feeds and its FDSN
/// service (`format=kml`) do: one `Placemark` per event, streamed row by row into the sink.
///
/// A placemark has USGS's name (`M 4.5 - 10 km SW of Town`, ``name(_:_:into:)``), a balloon
/// description (time UTC, magnitude and type, depth, position, event id, a link to the USGS
/// event page), a `TimeStamp` (Google Earth's time slider), a `styleUrl` naming one of the shared
/// styles the document starts with (icon size by magnitude, colour by depth, as USGS's
/// `kmlcolorby=depth` feed: ``styles``), every non-null USGS field in `ExtendedData`, and a `Point`.
///
/// The point is `lon,lat,-depth×1000`: the hypocentre's altitude in metres, exact (the depth's
/// decimal shifted three places), for tools that read it. Its `altitudeMode` is `clampToGround`,
/// so Google Earth ignores that altitude and draws the icon on the surface above the event, as
/// USGS's feed does: with `absolute`, every icon would sit underground, hidden by the terrain
/// and the sea surface. Depth is in `ExtendedData` too. An event without depth has `lon,lat`.
///
/// A KML `Point` needs coordinates, so an event without latitude or longitude is left out and
/// counted (``skipped``); the document ends with a comment saying how many. (The store refuses
/// such rows at load, so none come from it.)
package final class KMLWriter {
    package let sink: OutputSink
    /// The document's name.
    package let title: String
    /// Placemarks written.
    package private(set) var written = 0
    /// Events left out for want of a position.
    package private(set) var skipped = 0
    /// The event's name, built once per row and written twice (name, balloon heading).
    private var name: [UInt8] = []

    /// The columns a placemark is written from: every USGS CSV field, for `ExtendedData`.
    package static let columns: [Column] = Column.csvColumns

    package static let namespace = "http://www.opengis.net/kml/2.2"
    package static let contentType = "application/vnd.google-earth.kml+xml"

    package init(sink: OutputSink, title: String = "quakes") {
        self.sink = sink
        self.title = title
        name.reserveCapacity(256)
    }

    /// Writes the document's head and its shared styles; `count` (when known) is the events
    /// that follow.
    package func begin(count: Int? = nil) {
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"\(Self.namespace)\">\n<Document>\n<name>")
        XMLText.escaped(title.utf8, into: &sink.buffer)
        sink.write("</name>\n<description>")
        if let count { sink.write("\(count) event\(count == 1 ? "" : "s"). ") }
        sink.write(Self.legend + "</description>\n")
        sink.write(Self.styles)
    }

    package func end() {
        if skipped > 0 {
            sink.write("<!-- \(skipped) event\(skipped == 1 ? "" : "s") without a position left out: "
                + "a KML Point needs coordinates -->\n")
        }
        sink.write("</Document>\n</kml>\n")
        sink.flush()
    }

    /// Writes row `row` of `batch` as one `Placemark`, or counts it in ``skipped`` when it has no position.
    package func write(_ batch: RowBatch, row: Int) {
        let lat = batch.ints[Column.latitude.rawValue][row]
        let lon = batch.ints[Column.longitude.rawValue][row]
        guard lat != RowBatch.null, lon != RowBatch.null else {
            skipped += 1
            return
        }
        written += 1
        name.removeAll(keepingCapacity: true)
        Self.name(batch, row, into: &name)
        sink.write("<Placemark><name>")
        XMLText.escaped(name, into: &sink.buffer)
        sink.write("</name><Snippet maxLines=\"0\"></Snippet>\n")
        description(batch, row)
        let time = batch.ints[Column.time.rawValue][row]
        if time != RowBatch.null {
            sink.write("<TimeStamp><when>")
            Timestamp.format(time, into: &sink.buffer)
            sink.write("</when></TimeStamp>")
        }
        let depth = batch.ints[Column.depth.rawValue][row]
        let style = Self.styleIndex(mag: batch.ints[Column.mag.rawValue][row], depth: depth)
        sink.buffer.append(contentsOf: Self.styleURLs[style])
        extendedData(batch, row)
        sink.write("<Point><altitudeMode>clampToGround</altitudeMode><coordinates>")
        ScaledDecimal.format(lon, into: &sink.buffer)
        sink.buffer.append(UInt8(ascii: ","))
        ScaledDecimal.format(lat, into: &sink.buffer)
        if depth != RowBatch.null {
            sink.buffer.append(UInt8(ascii: ","))
            Self.formatAltitude(depth: depth, into: &sink.buffer)
        }
        sink.write("</coordinates></Point></Placemark>\n")
        sink.maybeFlush()
    }

    /// The balloon: HTML in a CDATA section, its text HTML-escaped.
    private func description(_ batch: RowBatch, _ row: Int) {
        func put(_ s: String) { sink.buffer.append(contentsOf: s.utf8) }
        func html(_ column: Column) { XMLText.htmlInCDATA(Self.text(batch, column, row), into: &sink.buffer) }
        func decimal(_ column: Column) -> Bool {
            let value = batch.ints[column.rawValue][row]
            guard value != RowBatch.null else { return false }
            ScaledDecimal.format(value, into: &sink.buffer)
            return true
        }
        put("<description><![CDATA[<h2>")
        XMLText.htmlInCDATA(name, into: &sink.buffer)
        put("</h2><dl>")
        let time = batch.ints[Column.time.rawValue][row]
        if time != RowBatch.null {
            // 2019-07-06T03:19:53.040Z as 2019-07-06 03:19:53.040 UTC
            put("<dt>Time</dt><dd>")
            let at = sink.buffer.count
            Timestamp.format(time, into: &sink.buffer)
            sink.buffer[at + 10] = UInt8(ascii: " ")
            sink.buffer.removeLast()
            put(" UTC</dd>")
        }
        put("<dt>Magnitude</dt><dd>")
        if !decimal(.mag) { put("?") }
        if !Self.text(batch, .magType, row).isEmpty {
            put(" ")
            html(.magType)
        }
        put("</dd><dt>Depth</dt><dd>")
        put(decimal(.depth) ? " km" : "?")
        put("</dd><dt>Location</dt><dd>")
        _ = decimal(.latitude)
        put(", ")
        _ = decimal(.longitude)
        put("</dd><dt>Event id</dt><dd>")
        html(.id)
        put("</dd></dl><p><a href=\"https://earthquake.usgs.gov/earthquakes/eventpage/")
        html(.id)
        put("\">Event page at USGS</a></p>]]></description>\n")
    }

    /// Every non-null field of ``columns``, by its USGS name, as it is stored (times in ISO 8601).
    private func extendedData(_ batch: RowBatch, _ row: Int) {
        sink.write("<ExtendedData>")
        for (k, column) in Self.columns.enumerated() {
            switch column.kind {
            case .timestamp, .decimal:
                let value = batch.ints[column.rawValue][row]
                guard value != RowBatch.null else { continue }
                sink.buffer.append(contentsOf: Self.dataOpen[k])
                if column.kind == .timestamp {
                    Timestamp.format(value, into: &sink.buffer)
                } else {
                    ScaledDecimal.format(value, into: &sink.buffer)
                }
            default:
                let texts = batch.text[column.rawValue]
                let range = texts.range(row)
                guard !range.isEmpty else { continue }
                sink.buffer.append(contentsOf: Self.dataOpen[k])
                XMLText.escaped(texts.bytes[range], into: &sink.buffer)
            }
            sink.write("</value></Data>")
        }
        sink.write("</ExtendedData>\n")
    }

    /// `<Data name="FIELD"><value>` for each of ``columns``, made once.
    private static let dataOpen: [[UInt8]] = columns.map { Array("<Data name=\"\($0.name)\"><value>".utf8) }

    static func text(_ batch: RowBatch, _ column: Column, _ row: Int) -> ArraySlice<UInt8> {
        let texts = batch.text[column.rawValue]
        return texts.bytes[texts.range(row)]
    }

    /// The altitude of a hypocentre `depth` km down, in metres: the depth's decimal negated and
    /// shifted three places, so no digit is lost (8.123 km is -8123). Depth 0 is 0.
    package static func formatAltitude(depth: Int64, into out: inout [UInt8]) {
        let mantissa = depth >> 6
        let negated = mantissa == 0 ? depth & 31 : ((-mantissa) << 6) | (depth & 31)
        QuakeMLWriter.formatThousandfold(negated, into: &out)
    }
}
