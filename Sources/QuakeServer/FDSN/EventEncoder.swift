import QuakeFormat
import QuakeInterchange
import QuakeStore

/// Writes the rows of an FDSN answer in the requested format into a capturing sink: QuakeML,
/// GeoJSON (wrapped in `callback(...)` for JSONP, its metadata as USGS's service writes it), USGS CSV,
/// FDSN text or KML.
struct EventEncoder {
    let format: FDSNRequest.Format
    let sink: OutputSink
    let callback: String?
    private let quakeml: QuakeMLWriter?
    private let feed: FeedWriter?
    private let text: ResultWriter?
    private let kml: KMLWriter?

    /// `url` is the request as the client sent it, for a GeoJSON answer's `metadata.url`.
    init(_ r: FDSNRequest, sink: OutputSink, url: String? = nil) {
        format = r.format
        self.sink = sink
        callback = r.callback
        quakeml = r.format == .quakeml ? QuakeMLWriter(sink: sink) : nil
        switch r.format {
        case .geojson:
            let geojson = FeedWriter(format: .geojson, sink: sink)
            geojson.metadata = FeedMetadata(url: url, title: FeedMetadata.serviceTitle, api: FDSNService.version)
            feed = geojson
        case .csv: feed = FeedWriter(format: .csv, sink: sink)
        default: feed = nil
        }
        text = r.format == .text ? ResultWriter(format: .text, columns: ResultWriter.fdsnTextColumns) : nil
        kml = r.format == .kml ? KMLWriter(sink: sink) : nil
    }

    /// The columns a row needs.
    var columns: [Column] {
        switch format {
        case .quakeml: return QuakeMLWriter.columns
        case .text: return ResultWriter.fdsnTextColumns
        case .geojson, .csv: return Column.allCases
        case .kml: return KMLWriter.columns
        }
    }

    var contentType: String {
        switch format {
        case .quakeml: return "application/xml; charset=utf-8"
        case .geojson:
            return callback == nil ? "application/json; charset=utf-8" : "application/javascript; charset=utf-8"
        case .csv: return "text/csv; charset=utf-8"
        case .text: return "text/plain; charset=utf-8"
        case .kml: return KMLWriter.contentType
        }
    }

    func begin(count: Int, generated: Int64) {
        switch format {
        case .quakeml: quakeml?.begin()
        case .geojson:
            if let callback { sink.write(callback + "(") }
            feed?.begin(count: count, generated: generated)
        case .csv: feed?.begin(count: count)
        case .text: sink.write(ResultWriter.fdsnTextHeader + "\n")
        case .kml: kml?.begin(count: count)
        }
    }

    func row(_ b: RowBatch, _ i: Int) {
        switch format {
        case .quakeml: quakeml?.write(b, row: i)
        case .geojson, .csv: feed?.write(b, row: i)
        case .text: text?.fdsnText(b, i, sink)
        case .kml: kml?.write(b, row: i)
        }
    }

    func end() {
        switch format {
        case .quakeml: quakeml?.end()
        case .geojson:
            feed?.end()
            if callback != nil { sink.write(");\n") }
        case .csv: feed?.end()
        case .text: break
        case .kml: kml?.end()
        }
    }
}
