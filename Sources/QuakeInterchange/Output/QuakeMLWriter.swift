import QuakeFormat
import QuakeStore

/// Writes events as a QuakeML 1.2 (BED) document, the default answer of an FDSN event service,
/// in the shape ObsPy's reader takes whole: one event, origin and magnitude per row, each with
/// a `quakeml:` publicID, and the event's preferred origin and magnitude named.
///
/// Origin: time, latitude, longitude, depth in metres (with `depthError` as its uncertainty),
/// `horizontalError` in metres as the origin uncertainty's `horizontalUncertainty`,
/// quality (`usedStationCount` from nst, `azimuthalGap` from gap, `minimumDistance` from dmin,
/// `standardError` from rms), `evaluationMode` and `evaluationStatus` from status, and
/// `creationInfo` (agency from locationSource). Magnitude: value, type, station count.
/// The place is the "earthquake name" description; the event type is mapped to QuakeML's
/// vocabulary (``eventType(_:)``), which ObsPy enforces.
package final class QuakeMLWriter {
    package let sink: OutputSink
    /// The authority of the publicIDs: `quakeml:AUTHORITY/event/ID`.
    package let authority: String

    /// The columns a QuakeML event is written from.
    package static let columns: [Column] = [
        .id, .time, .latitude, .longitude, .depth, .depthError, .mag, .magType, .magNst, .magError,
        .nst, .gap, .dmin, .rms, .net, .updated, .place, .type, .status, .locationSource, .magSource,
        .horizontalError,
    ]

    package init(sink: OutputSink, authority: String = "quakes.local") {
        self.sink = sink
        self.authority = authority
    }

    package func begin() {
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<q:quakeml xmlns:q=\"http://quakeml.org/xmlns/quakeml/1.2\" "
            + "xmlns=\"http://quakeml.org/xmlns/bed/1.2\" "
            + "xmlns:catalog=\"http://anss.org/xmlns/catalog/0.1\">\n"
            + "<eventParameters publicID=\"quakeml:\(authority)/fdsnws/event/1/query\">\n")
    }

    package func end() {
        sink.write("</eventParameters>\n</q:quakeml>\n")
        sink.flush()
    }

    /// Writes row `row` of `batch` as one `<event>`.
    package func write(_ batch: RowBatch, row: Int) {
        let id = text(batch, .id, row)
        writeEventOpening(batch, row: row, id: id)
        writeOrigin(batch, row: row, id: id)
        let mag = batch.ints[Column.mag.rawValue][row]
        if mag != RowBatch.null {
            writeMagnitude(mag, batch, row: row, id: id)
        }
        put("<preferredOriginID>")
        publicID("origin", id: id)
        put("</preferredOriginID>\n")
        if mag != RowBatch.null {
            put("<preferredMagnitudeID>")
            publicID("magnitude", id: id)
            put("</preferredMagnitudeID>\n")
        }
        let type = text(batch, .type, row)
        if !type.isEmpty {
            put("<type>\(Self.eventType(String(decoding: type, as: UTF8.self)))</type>\n")
        }
        creationInfo(agency: text(batch, .net, row), batch, row)
        put("</event>\n")
        sink.maybeFlush()
    }

    /// Appends `string` to the sink's buffer, without a flush check.
    private func put(_ string: String) {
        sink.buffer.append(contentsOf: string.utf8)
    }

    /// The publicID `quakeml:AUTHORITY/KIND/ID`.
    private func publicID(_ kind: String, id: ArraySlice<UInt8>) {
        put("quakeml:\(authority)/\(kind)/")
        escaped(id)
    }

    /// `<tag>value</tag>` for a scaled decimal column, nothing when it is null.
    private func number(_ column: Column, _ tag: String, _ batch: RowBatch, _ row: Int) {
        let value = batch.ints[column.rawValue][row]
        guard value != RowBatch.null else { return }
        put("<\(tag)>")
        ScaledDecimal.format(value, into: &sink.buffer)
        put("</\(tag)>")
    }

    /// `<tag>count</tag>` for a column holding a count, nothing when it is null or out of range.
    private func integer(_ column: Column, _ tag: String, _ batch: RowBatch, _ row: Int) {
        let value = batch.ints[column.rawValue][row]
        guard value != RowBatch.null else { return }
        let double = ScaledDecimal.double(value)
        guard double.isFinite, double >= 0, double < 1e15 else { return }
        put("<\(tag)>\(Int64(double.rounded()))</\(tag)>")
    }

    /// `<event ...>` and the place's description.
    private func writeEventOpening(_ batch: RowBatch, row: Int, id: ArraySlice<UInt8>) {
        put("<event publicID=\"")
        publicID("event", id: id)
        put("\" catalog:datasource=\"")
        escaped(text(batch, .net, row))
        put("\" catalog:eventid=\"")
        escaped(id)
        put("\">\n")
        let place = text(batch, .place, row)
        if !place.isEmpty {
            put("<description><text>")
            escaped(place)
            put("</text><type>earthquake name</type></description>\n")
        }
    }

    /// The `<origin>`: time, position, depth, uncertainty, quality, evaluation and creation info.
    private func writeOrigin(_ batch: RowBatch, row: Int, id: ArraySlice<UInt8>) {
        put("<origin publicID=\"")
        publicID("origin", id: id)
        put("\">")
        if batch.ints[Column.time.rawValue][row] != RowBatch.null {
            put("<time><value>")
            Timestamp.format(batch.ints[Column.time.rawValue][row], into: &sink.buffer)
            put("</value></time>")
        }
        put("<longitude><value>")
        ScaledDecimal.format(batch.ints[Column.longitude.rawValue][row], into: &sink.buffer)
        put("</value></longitude><latitude><value>")
        ScaledDecimal.format(batch.ints[Column.latitude.rawValue][row], into: &sink.buffer)
        put("</value></latitude>")
        writeDepth(batch, row: row)
        let horizontal = batch.ints[Column.horizontalError.rawValue][row]
        if horizontal != RowBatch.null {
            put("<originUncertainty><horizontalUncertainty>")
            Self.formatThousandfold(horizontal, into: &sink.buffer)
            put("</horizontalUncertainty><preferredDescription>horizontal uncertainty</preferredDescription>"
                + "</originUncertainty>")
        }
        writeQuality(batch, row: row)
        writeEvaluation(batch, row: row)
        creationInfo(agency: text(batch, .locationSource, row), batch, row)
        put("</origin>\n")
    }

    /// The origin's `<depth>` in metres with its uncertainty, nothing when the depth is null.
    private func writeDepth(_ batch: RowBatch, row: Int) {
        let depth = batch.ints[Column.depth.rawValue][row]
        guard depth != RowBatch.null else { return }
        put("<depth><value>")
        Self.formatThousandfold(depth, into: &sink.buffer)
        put("</value>")
        let depthError = batch.ints[Column.depthError.rawValue][row]
        if depthError != RowBatch.null {
            put("<uncertainty>")
            Self.formatThousandfold(depthError, into: &sink.buffer)
            put("</uncertainty>")
        }
        put("</depth>")
    }

    /// The origin's `<quality>`, when any of nst, gap, dmin and rms is known.
    private func writeQuality(_ batch: RowBatch, row: Int) {
        let quality = [Column.nst, .gap, .dmin, .rms].contains { batch.ints[$0.rawValue][row] != RowBatch.null }
        guard quality else { return }
        put("<quality>")
        integer(.nst, "usedStationCount", batch, row)
        number(.rms, "standardError", batch, row)
        number(.gap, "azimuthalGap", batch, row)
        number(.dmin, "minimumDistance", batch, row)
        put("</quality>")
    }

    /// The origin's evaluation mode and status, from the status column.
    private func writeEvaluation(_ batch: RowBatch, row: Int) {
        switch String(decoding: text(batch, .status, row), as: UTF8.self).lowercased() {
        case "reviewed":
            put("<evaluationMode>manual</evaluationMode><evaluationStatus>reviewed</evaluationStatus>")
        case "automatic":
            put("<evaluationMode>automatic</evaluationMode><evaluationStatus>preliminary</evaluationStatus>")
        case "deleted":
            put("<evaluationStatus>rejected</evaluationStatus>")
        default:
            break
        }
    }

    /// The `<magnitude>` of a row whose magnitude `mag` is not null.
    private func writeMagnitude(_ mag: Int64, _ batch: RowBatch, row: Int, id: ArraySlice<UInt8>) {
        put("<magnitude publicID=\"")
        publicID("magnitude", id: id)
        put("\"><mag><value>")
        ScaledDecimal.format(mag, into: &sink.buffer)
        put("</value>")
        let magError = batch.ints[Column.magError.rawValue][row]
        if magError != RowBatch.null {
            put("<uncertainty>")
            ScaledDecimal.format(magError, into: &sink.buffer)
            put("</uncertainty>")
        }
        put("</mag>")
        let type = text(batch, .magType, row)
        if !type.isEmpty {
            put("<type>")
            escaped(type)
            put("</type>")
        }
        integer(.magNst, "stationCount", batch, row)
        put("<originID>")
        publicID("origin", id: id)
        put("</originID>")
        creationInfo(agency: text(batch, .magSource, row), batch, row)
        put("</magnitude>\n")
    }

    private func creationInfo(agency: ArraySlice<UInt8>, _ batch: RowBatch, _ row: Int) {
        let updated = batch.ints[Column.updated.rawValue][row]
        guard !agency.isEmpty || updated != RowBatch.null else { return }
        sink.write("<creationInfo>")
        if !agency.isEmpty {
            sink.write("<agencyID>")
            escaped(agency)
            sink.write("</agencyID>")
        }
        if updated != RowBatch.null {
            sink.write("<creationTime>")
            Timestamp.format(updated, into: &sink.buffer)
            sink.write("</creationTime>")
        }
        sink.write("</creationInfo>")
    }

    private func text(_ batch: RowBatch, _ column: Column, _ row: Int) -> ArraySlice<UInt8> {
        let texts = batch.text[column.rawValue]
        return texts.bytes[texts.range(row)]
    }

    /// Appends `s` with XML's five special characters escaped, and control characters XML 1.0
    /// cannot hold replaced by spaces.
    private func escaped(_ s: ArraySlice<UInt8>) {
        for u in s {
            switch u {
            case UInt8(ascii: "&"): sink.write("&amp;")
            case UInt8(ascii: "<"): sink.write("&lt;")
            case UInt8(ascii: ">"): sink.write("&gt;")
            case UInt8(ascii: "\""): sink.write("&quot;")
            case UInt8(ascii: "'"): sink.write("&apos;")
            case 9, 10, 13: sink.buffer.append(u)
            case 0..<32: sink.buffer.append(32)
            default: sink.buffer.append(u)
            }
        }
    }

    /// A scaled decimal in kilometres written in metres, exactly: the scale drops by three.
    package static func formatThousandfold(_ e: Int64, into out: inout [UInt8]) {
        let scale = Int(e & 31)
        let negativeZero = e & 32
        let mantissa = e >> 6
        if scale >= 3 {
            ScaledDecimal.format((mantissa << 6) | Int64(negativeZero) | Int64(scale - 3), into: &out)
            return
        }
        var factor: Int64 = 1
        for _ in scale..<3 { factor *= 10 }
        let (product, overflow) = mantissa.multipliedReportingOverflow(by: factor)
        if overflow || product.magnitude > UInt64(ScaledDecimal.maxMantissa) {
            out.append(contentsOf: String(ScaledDecimal.double(e) * 1000).utf8)
            return
        }
        ScaledDecimal.format((product << 6) | Int64(negativeZero), into: &out)
    }

    /// QuakeML 1.2's name for a USGS event type. ObsPy drops an event whose type is not in the
    /// vocabulary, so USGS's short forms are mapped and anything unknown becomes "other event".
    package static func eventType(_ usgs: String) -> String {
        let lowered = usgs.lowercased()
        if let mapped = typeMap[lowered] { return mapped }
        return vocabulary.contains(lowered) ? lowered : "other event"
    }

    private static let typeMap: [String: String] = [
        "quarry": "quarry blast", "nuke": "nuclear explosion", "nuclear": "nuclear explosion",
        "rockburst": "rock burst", "induced earthquake": "induced or triggered event",
        "sonicboom": "sonic boom", "meteor": "meteorite", "mine_collapse": "mine collapse",
        "rock_burst": "rock burst", "quarry_blast": "quarry blast", "volcanic": "volcanic eruption",
        "ice": "ice quake", "icequake": "ice quake", "eq": "earthquake", "not_reported": "not reported",
    ]

    /// QuakeML 1.2's `EventType` values.
    package static let vocabulary: Set<String> = [
        "not existing", "not reported", "earthquake", "anthropogenic event", "collapse", "cavity collapse",
        "mine collapse", "building collapse", "explosion", "accidental explosion", "chemical explosion",
        "controlled explosion", "experimental explosion", "industrial explosion", "mining explosion",
        "quarry blast", "road cut", "blasting levee", "nuclear explosion", "induced or triggered event",
        "rock burst", "reservoir loading", "fluid injection", "fluid extraction", "crash", "plane crash",
        "train crash", "boat crash", "other event", "atmospheric event", "sonic boom", "sonic blast",
        "acoustic noise", "thunder", "avalanche", "snow avalanche", "debris avalanche", "hydroacoustic event",
        "ice quake", "slide", "landslide", "rockslide", "meteorite", "volcanic eruption",
    ]
}
