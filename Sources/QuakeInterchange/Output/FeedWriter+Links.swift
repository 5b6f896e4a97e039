import QuakeFormat
import QuakeStore

extension FeedWriter {
    /// USGS's event page of an id: `https://earthquake.usgs.gov/earthquakes/eventpage/ci38457511`.
    static let eventPagePrefix = Array("https://earthquake.usgs.gov/earthquakes/eventpage/".utf8)
    /// USGS's GeoJSON detail of an id, as its FDSN service links it:
    /// `https://earthquake.usgs.gov/fdsnws/event/1/query?eventid=ci38457511&format=geojson`.
    static let detailPrefix = Array("https://earthquake.usgs.gov/fdsnws/event/1/query?eventid=".utf8)
    static let detailSuffix = Array("&format=geojson".utf8)

    /// Whether `id` is a ComCat id, one USGS has an event page for: the preferred network's code
    /// followed by the event's (`ci38457511`, `us7000abcd`), two lower-case letters and then
    /// lower-case letters, digits and underscores only. The page's event link uses the same rule
    /// (`Assets/app.js`), so the id needs no escape in a URL or a JSON string.
    package static func isComCatId(_ id: some Collection<UInt8>, net: some Collection<UInt8>) -> Bool {
        guard !net.isEmpty, id.count > 2, id.starts(with: net) else { return false }
        for (k, c) in id.enumerated() {
            let letter = c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")
            let digit = c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
            guard letter || (k >= 2 && (digit || c == UInt8(ascii: "_"))) else { return false }
        }
        return true
    }

    /// Writes USGS's `url` or `detail` (`link`) of row `i` when it has none stored and its id is
    /// a ComCat id (``isComCatId(_:net:)``), as a JSON string; returns false, writing nothing,
    /// otherwise (a stored link wins, and an id of another catalogue has no USGS page), or when
    /// the batch lacks the id or the network.
    func writeMadeLink(_ link: Column, _ batch: RowBatch, _ row: Int, into out: inout [UInt8]) -> Bool {
        let stored = batch.text[link.rawValue]
        let ids = batch.text[Column.id.rawValue]
        let nets = batch.text[Column.net.rawValue]
        guard stored.count > row, stored.range(row).isEmpty, ids.count > row, nets.count > row else { return false }
        let id = ids.bytes[ids.range(row)]
        guard Self.isComCatId(id, net: nets.bytes[nets.range(row)]) else { return false }
        out.append(UInt8(ascii: "\""))
        if link == .url {
            out.append(contentsOf: Self.eventPagePrefix)
            out.append(contentsOf: id)
        } else {
            out.append(contentsOf: Self.detailPrefix)
            out.append(contentsOf: id)
            out.append(contentsOf: Self.detailSuffix)
        }
        out.append(UInt8(ascii: "\""))
        return true
    }
}
