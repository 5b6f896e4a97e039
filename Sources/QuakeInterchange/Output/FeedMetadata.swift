/// The `metadata` object of a GeoJSON FeatureCollection, in USGS's field order: `generated`,
/// `url`, `title`, `status`, `api`, `count` (and quakes's `total`). USGS's FDSN service writes
/// `{"generated":…,"url":"https://earthquake.usgs.gov/fdsnws/event/1/query?…","title":"USGS Earthquakes",
/// "status":200,"api":"1.14.1","count":…}`; an export has no request, so no `url`.
package struct FeedMetadata: Sendable {
    /// The request the answer is for, as the client sent it (scheme, host, path and query); nil
    /// for an export, which has none.
    package var url: String?
    package var title: String
    /// The version of the interface that wrote the answer (USGS's service's own version).
    package var api: String?

    package init(url: String? = nil, title: String = "quakes export", api: String? = nil) {
        self.url = url
        self.title = title
        self.api = api
    }

    /// The title of the event service's answers, in the shape of USGS's (`USGS Earthquakes`).
    package static let serviceTitle = "quakes Earthquakes"

    /// Writes `"metadata":{…}`: `count` is the features that follow, `total` (when given) how
    /// many the query matched before a limit or offset.
    package func write(generated: Int64, count: Int?, total: Int?, into out: inout [UInt8]) {
        out.append(contentsOf: "\"metadata\":{\"generated\":".utf8)
        FeedWriter.integer(generated, into: &out)
        if let url {
            out.append(contentsOf: ",\"url\":".utf8)
            FeedWriter.jsonString(url.utf8, into: &out)
        }
        out.append(contentsOf: ",\"title\":".utf8)
        FeedWriter.jsonString(title.utf8, into: &out)
        out.append(contentsOf: ",\"status\":200".utf8)
        if let api {
            out.append(contentsOf: ",\"api\":".utf8)
            FeedWriter.jsonString(api.utf8, into: &out)
        }
        if let count {
            out.append(contentsOf: ",\"count\":".utf8)
            FeedWriter.integer(Int64(count), into: &out)
        }
        if let total {
            out.append(contentsOf: ",\"total\":".utf8)
            FeedWriter.integer(Int64(total), into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
