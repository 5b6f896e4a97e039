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
            + "<q:quakeml xmlns:q=\"http://quakeml.org/xmlns/quakeml/1.2\" xmlns=\"http://quakeml.org/xmlns/bed/1.2\" "
            + "xmlns:catalog=\"http://anss.org/xmlns/catalog/0.1\">\n"
            + "<eventParameters publicID=\"quakeml:\(authority)/fdsnws/event/1/query\">\n")
    }

    package func end() {
        sink.write("</eventParameters>\n</q:quakeml>\n")
        sink.flush()
    }

    /// Writes row `i` of `b` as one `<event>`.
    package func write(_ b: RowBatch, row i: Int) {
        let id = text(b, .id, i)
        func put(_ s: String) { sink.buffer.append(contentsOf: s.utf8) }
        func rid(_ kind: String) {
            put("quakeml:\(authority)/\(kind)/")
            escaped(id)
        }
        func number(_ c: Column, _ tag: String) {
            let v = b.ints[c.rawValue][i]
            guard v != RowBatch.null else { return }
            put("<\(tag)>")
            ScaledDecimal.format(v, into: &sink.buffer)
            put("</\(tag)>")
        }
        func integer(_ c: Column, _ tag: String) {
            let v = b.ints[c.rawValue][i]
            guard v != RowBatch.null else { return }
            let d = ScaledDecimal.double(v)
            guard d.isFinite, d >= 0, d < 1e15 else { return }
            put("<\(tag)>\(Int64(d.rounded()))</\(tag)>")
        }
        func time(_ c: Column) {
            Timestamp.format(b.ints[c.rawValue][i], into: &sink.buffer)
        }
        put("<event publicID=\"")
        rid("event")
        put("\" catalog:datasource=\"")
        escaped(text(b, .net, i))
        put("\" catalog:eventid=\"")
        escaped(id)
        put("\">\n")
        let place = text(b, .place, i)
        if !place.isEmpty {
            put("<description><text>")
            escaped(place)
            put("</text><type>earthquake name</type></description>\n")
        }
        put("<origin publicID=\"")
        rid("origin")
        put("\">")
        if b.ints[Column.time.rawValue][i] != RowBatch.null {
            put("<time><value>")
            time(.time)
            put("</value></time>")
        }
        put("<longitude><value>")
        ScaledDecimal.format(b.ints[Column.longitude.rawValue][i], into: &sink.buffer)
        put("</value></longitude><latitude><value>")
        ScaledDecimal.format(b.ints[Column.latitude.rawValue][i], into: &sink.buffer)
        put("</value></latitude>")
        let depth = b.ints[Column.depth.rawValue][i]
        if depth != RowBatch.null {
            put("<depth><value>")
            Self.formatThousandfold(depth, into: &sink.buffer)
            put("</value>")
            let err = b.ints[Column.depthError.rawValue][i]
            if err != RowBatch.null {
                put("<uncertainty>")
                Self.formatThousandfold(err, into: &sink.buffer)
                put("</uncertainty>")
            }
            put("</depth>")
        }
        let horizontal = b.ints[Column.horizontalError.rawValue][i]
        if horizontal != RowBatch.null {
            put("<originUncertainty><horizontalUncertainty>")
            Self.formatThousandfold(horizontal, into: &sink.buffer)
            put("</horizontalUncertainty><preferredDescription>horizontal uncertainty</preferredDescription>"
                + "</originUncertainty>")
        }
        let quality = [Column.nst, .gap, .dmin, .rms].contains { b.ints[$0.rawValue][i] != RowBatch.null }
        if quality {
            put("<quality>")
            integer(.nst, "usedStationCount")
            number(.rms, "standardError")
            number(.gap, "azimuthalGap")
            number(.dmin, "minimumDistance")
            put("</quality>")
        }
        switch String(decoding: text(b, .status, i), as: UTF8.self).lowercased() {
        case "reviewed": put("<evaluationMode>manual</evaluationMode><evaluationStatus>reviewed</evaluationStatus>")
        case "automatic": put("<evaluationMode>automatic</evaluationMode><evaluationStatus>preliminary</evaluationStatus>")
        case "deleted": put("<evaluationStatus>rejected</evaluationStatus>")
        default: break
        }
        creationInfo(agency: text(b, .locationSource, i), b, i)
        put("</origin>\n")
        let mag = b.ints[Column.mag.rawValue][i]
        if mag != RowBatch.null {
            put("<magnitude publicID=\"")
            rid("magnitude")
            put("\"><mag><value>")
            ScaledDecimal.format(mag, into: &sink.buffer)
            put("</value>")
            let err = b.ints[Column.magError.rawValue][i]
            if err != RowBatch.null {
                put("<uncertainty>")
                ScaledDecimal.format(err, into: &sink.buffer)
                put("</uncertainty>")
            }
            put("</mag>")
            let type = text(b, .magType, i)
            if !type.isEmpty {
                put("<type>")
                escaped(type)
                put("</type>")
            }
            integer(.magNst, "stationCount")
            put("<originID>")
            rid("origin")
            put("</originID>")
            creationInfo(agency: text(b, .magSource, i), b, i)
            put("</magnitude>\n")
        }
        put("<preferredOriginID>")
        rid("origin")
        put("</preferredOriginID>\n")
        if mag != RowBatch.null {
            put("<preferredMagnitudeID>")
            rid("magnitude")
            put("</preferredMagnitudeID>\n")
        }
        let type = text(b, .type, i)
        if !type.isEmpty { put("<type>\(Self.eventType(String(decoding: type, as: UTF8.self)))</type>\n") }
        creationInfo(agency: text(b, .net, i), b, i)
        put("</event>\n")
        sink.maybeFlush()
    }

    private func creationInfo(agency: ArraySlice<UInt8>, _ b: RowBatch, _ i: Int) {
        let updated = b.ints[Column.updated.rawValue][i]
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

    private func text(_ b: RowBatch, _ c: Column, _ i: Int) -> ArraySlice<UInt8> {
        let a = b.text[c.rawValue]
        return a.bytes[a.range(i)]
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
        let m = e >> 6
        if scale >= 3 {
            ScaledDecimal.format((m << 6) | Int64(negativeZero) | Int64(scale - 3), into: &out)
            return
        }
        var factor: Int64 = 1
        for _ in scale..<3 { factor *= 10 }
        let (p, overflow) = m.multipliedReportingOverflow(by: factor)
        if overflow || p.magnitude > UInt64(ScaledDecimal.maxMantissa) {
            out.append(contentsOf: String(ScaledDecimal.double(e) * 1000).utf8)
            return
        }
        ScaledDecimal.format((p << 6) | Int64(negativeZero), into: &out)
    }

    /// QuakeML 1.2's name for a USGS event type. ObsPy drops an event whose type is not in the
    /// vocabulary, so USGS's short forms are mapped and anything unknown becomes "other event".
    package static func eventType(_ usgs: String) -> String {
        let t = usgs.lowercased()
        if let mapped = typeMap[t] { return mapped }
        return vocabulary.contains(t) ? t : "other event"
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
