import Foundation
import QuakeFormat
import QuakeStore

/// An SVG map of a query's events, drawn as the seed's MapView draws them: one circle per
/// quake, sized by magnitude and coloured by depth or age, the larger ones drawn first so
/// that they lie behind the smaller. Equirectangular, over the world or a region fitted to
/// the events, with a graticule, a title and a legend.
package struct MapPicture {
    package enum Region: String, Sendable, CaseIterable {
        /// The whole globe, -180...180 by -90...90.
        case world
        /// The events' bounding box with a margin.
        case fit
    }

    package enum Coloring: String, Sendable, CaseIterable { case depth, age }

    package var region: Region = .world
    package var coloring: Coloring = .depth
    /// Width of the map area in pixels.
    package var width = 1200.0
    /// The first line of the title (what was asked for).
    package var title = "quakes"
    /// The coastlines drawn under the events; nil draws the graticule alone and says so.
    package var coastlines: Coastlines?

    package init() {}

    /// Columns a query must fetch for the map.
    package static let columns: [Column] = [.time, .latitude, .longitude, .depth, .mag, .place, .id]

    /// The SVG of `result`'s rows, drawn in the order given, which must be descending magnitude.
    /// `matched` is how many events matched in all; when more than were drawn, the legend says
    /// the map shows only the largest.
    package func svg(_ result: QueryResult, matched: Int) -> String {
        let b = result.batch
        let lat = b.ints[Column.latitude.rawValue], lon = b.ints[Column.longitude.rawValue]
        let depth = b.ints[Column.depth.rawValue], mag = b.ints[Column.mag.rawValue], time = b.ints[Column.time.rawValue]
        func d(_ v: Int64) -> Double? { v == RowBatch.null ? nil : ScaledDecimal.double(v) }
        let box = bounds(lat.compactMap(d), lon.compactMap(d))
        let mapH = min(900, max(240, (width * (box.maxLat - box.minLat) / (box.maxLon - box.minLon)).rounded()))
        let top = 56.0, left = 44.0, legendH = 96.0
        let W = left + width + 16, H = top + mapH + 28 + legendH
        // a box across the antimeridian runs past 180°: western longitudes are drawn 360° further east
        func x(_ lo: Double) -> Double {
            let east = box.maxLon > 180 && lo < box.minLon ? lo + 360 : lo
            return left + (east - box.minLon) / (box.maxLon - box.minLon) * width
        }
        func y(_ la: Double) -> Double { top + (box.maxLat - la) / (box.maxLat - box.minLat) * mapH }
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(W))" height="\(f(H))" viewBox="0 0 \(f(W)) \(f(H))" \
            font-family="Helvetica, Arial, sans-serif">

            """
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        s += "<text x=\"\(f(left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(xml(title))</text>\n"
        let drawn = b.count
        let sub = drawn < matched
            ? "\(ResultWriter.grouped(matched)) events matched; the \(ResultWriter.grouped(drawn)) largest drawn"
            : "\(ResultWriter.grouped(matched)) event\(matched == 1 ? "" : "s")"
        s += "<text x=\"\(f(left))\" y=\"42\" font-size=\"12\" fill=\"#444\">"
            + "\(xml(sub)) · \(region.rawValue) · colour by \(coloring.rawValue)</text>\n"
        s += "<rect id=\"map\" x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(mapH))\" "
            + "fill=\"#eaf2f8\" stroke=\"#888\"/>\n"
        s += graticule(box, x: x, y: y, top: top, bottom: top + mapH, left: left, right: left + width)
        if let coastlines {
            s += "<clipPath id=\"map-clip\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" "
                + "height=\"\(f(mapH))\"/></clipPath>\n"
            var d = coastlines.svgPath(minLon: box.minLon, maxLon: min(180, box.maxLon), minLat: box.minLat,
                                       maxLat: box.maxLat, x: x, y: y)
            if box.maxLon > 180 {
                d += coastlines.svgPath(minLon: -180, maxLon: box.maxLon - 360, minLat: box.minLat, maxLat: box.maxLat,
                                        x: { x($0 + 360) }, y: y)
            }
            s += "<path id=\"coastlines\" clip-path=\"url(#map-clip)\" fill=\"none\" stroke=\"#5d7283\" "
                + "stroke-width=\"0.8\" d=\"\(d)\"/>\n"
        } else {
            s += "<text id=\"no-coastlines\" x=\"\(f(left + 8))\" y=\"\(f(top + mapH - 8))\" font-size=\"11\" "
                + "fill=\"#666\">No coastline dataset (install Debian's python-cartopy-data): graticule only</text>\n"
        }
        s += "<g id=\"quakes\" stroke=\"#222\" stroke-width=\"0.5\" fill-opacity=\"0.8\">\n"
        let newest = time.filter { $0 != RowBatch.null }.max() ?? 0
        for i in 0..<b.count {
            guard let la = d(lat[i]), let lo = d(lon[i]) else { continue }
            let m = d(mag[i])
            let fill = coloring == .depth ? MapPicture.depthColor(d(depth[i]))
                : time[i] == RowBatch.null ? "#bbbbbb" : MapPicture.ageColor(newest &- time[i])
            let label = "M\(m.map { String(format: "%.1f", $0) } ?? "?") · \(b.text[Column.place.rawValue].string(i) ?? "") · "
                + "\(time[i] == RowBatch.null ? "" : Timestamp.string(time[i])) · \(b.text[Column.id.rawValue].string(i) ?? "")"
            s += "<circle cx=\"\(f(x(lo)))\" cy=\"\(f(y(la)))\" r=\"\(f(MapPicture.radius(m)))\" fill=\"\(fill)\" "
                + "data-mag=\"\(m.map { "\($0)" } ?? "")\"><title>\(xml(label))</title></circle>\n"
        }
        s += "</g>\n"
        s += legend(y: top + mapH + 28, left: left, capped: drawn < matched, drawn: drawn)
        s += "</svg>\n"
        return s
    }

    /// Circle radius in pixels for a magnitude: grows with energy, M2 about 2 px, M8 about 24.
    package static func radius(_ mag: Double?) -> Double {
        guard let m = mag, m > 1 else { return 1.2 }
        return 1.2 + 1.1 * pow(min(m, 10) - 1, 1.6)
    }

    package static let depthBands: [(upTo: Double, color: String, label: String)] = [
        (35, "#d7301f", "0–35 km"), (70, "#fc8d59", "35–70"), (150, "#fdcc8a", "70–150"),
        (300, "#78c679", "150–300"), (500, "#4292c6", "300–500"), (.infinity, "#6a51a3", "500+ km"),
    ]

    package static func depthColor(_ km: Double?) -> String {
        guard let km else { return "#bbbbbb" }
        return depthBands.first { km < $0.upTo }?.color ?? "#6a51a3"
    }

    package static let ageBands: [(upTo: Int64, color: String, label: String)] = [
        (3_600_000, "#b30000", "< 1 hour"), (86_400_000, "#e34a33", "< 1 day"), (604_800_000, "#fc8d59", "< 1 week"),
        (2_592_000_000, "#fdbb84", "< 30 days"), (Int64.max, "#d9d9d9", "older"),
    ]

    /// Colour for an age relative to the newest event drawn.
    package static func ageColor(_ ms: Int64) -> String { ageBands.first { ms < $0.upTo }?.color ?? "#d9d9d9" }

    private func bounds(_ lats: [Double], _ lons: [Double]) -> (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        guard region == .fit, let a = lats.min(), let b = lats.max(), let c = lons.min(), let e = lons.max() else {
            return (-90, 90, -180, 180)
        }
        let padLat = max(1, (b - a) * 0.1)
        let (west, east) = MapPicture.longitudeSpan(lons)
        let padLon = max(1, (east - west) * 0.1)
        let lat = (max(-90, a - padLat), min(90, b + padLat))
        if east <= 180 { return (lat.0, lat.1, max(-180, west - padLon), min(180, east + padLon)) }
        // across the antimeridian: east runs past 180
        return (lat.0, lat.1, max(-180, west - padLon), min(west + 360, east + padLon))
    }

    /// The shortest span of longitudes holding all of `lons`: the circle minus its widest gap
    /// between events. `east` is above 180 when the span crosses the antimeridian (170...190
    /// for events from 170°E to 170°W).
    package static func longitudeSpan(_ lons: [Double]) -> (west: Double, east: Double) {
        let sorted = lons.sorted()
        guard let first = sorted.first, let last = sorted.last else { return (-180, 180) }
        // the gap across the antimeridian, from the easternmost to the westernmost
        var widest = first + 360 - last, west = first, east = last
        for k in 1..<max(1, sorted.count) where sorted[k] - sorted[k - 1] > widest {
            widest = sorted[k] - sorted[k - 1]
            west = sorted[k]
            east = sorted[k - 1] + 360
        }
        return (west, east)
    }

    private func graticule(_ box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double),
                           x: (Double) -> Double, y: (Double) -> Double,
                           top: Double, bottom: Double, left: Double, right: Double) -> String {
        var s = "<g id=\"graticule\" stroke=\"#b8c8d8\" stroke-width=\"0.6\" font-size=\"10\" fill=\"#667\">\n"
        /// The multiples of a round step within `lo...hi` (at least two of them, at most 12), where grid lines go.
        func stops(_ lo: Double, _ hi: Double) -> StrideThrough<Double> {
            let step = [0.5, 1.0, 2, 5, 10, 15, 30, 60].first { (hi - lo) / $0 <= 12 } ?? 60
            return stride(from: (lo / step).rounded(.up) * step, through: hi, by: step)
        }
        for east in stops(box.minLon, box.maxLon) {
            let lo = east > 180 ? east - 360 : east
            s += "<line x1=\"\(f(x(lo)))\" y1=\"\(f(top))\" x2=\"\(f(x(lo)))\" y2=\"\(f(bottom))\"/>"
            s += "<text x=\"\(f(x(lo)))\" y=\"\(f(bottom + 14))\" text-anchor=\"middle\" stroke=\"none\">"
                + "\(degrees(lo, "E", "W"))</text>\n"
        }
        for la in stops(box.minLat, box.maxLat) {
            s += "<line x1=\"\(f(left))\" y1=\"\(f(y(la)))\" x2=\"\(f(right))\" y2=\"\(f(y(la)))\"/>"
            s += "<text x=\"\(f(left - 4))\" y=\"\(f(y(la) + 3))\" text-anchor=\"end\" stroke=\"none\">"
                + "\(degrees(la, "N", "S"))</text>\n"
        }
        return s + "</g>\n"
    }

    private func legend(y top: Double, left: Double, capped: Bool, drawn: Int) -> String {
        var s = "<g id=\"legend\" font-size=\"11\" fill=\"#333\">\n"
        s += "<text x=\"\(f(left))\" y=\"\(f(top + 12))\" font-weight=\"bold\">Magnitude</text>\n"
        var cx = left + 14
        for m in [2.0, 4, 6, 8] {
            let r = MapPicture.radius(m)
            s += "<circle cx=\"\(f(cx + r))\" cy=\"\(f(top + 50))\" r=\"\(f(r))\" fill=\"none\" stroke=\"#333\"/>"
            s += "<text x=\"\(f(cx + r))\" y=\"\(f(top + 88))\" text-anchor=\"middle\">M\(Int(m))</text>\n"
            cx += 2 * r + 18
        }
        var kx = cx + 30
        let key = coloring == .depth ? "Depth" : "Age (before the newest drawn)"
        s += "<text x=\"\(f(kx))\" y=\"\(f(top + 12))\" font-weight=\"bold\">\(key)</text>\n"
        let bands = coloring == .depth ? MapPicture.depthBands.map { ($0.color, $0.label) }
            : MapPicture.ageBands.map { ($0.color, $0.label) }
        for (color, label) in bands {
            s += "<rect x=\"\(f(kx))\" y=\"\(f(top + 24))\" width=\"14\" height=\"14\" fill=\"\(color)\" "
                + "stroke=\"#333\" stroke-width=\"0.5\"/>"
            s += "<text x=\"\(f(kx + 18))\" y=\"\(f(top + 35))\">\(xml(label))</text>\n"
            kx += 24 + Double(label.count) * 6.5
        }
        let note = capped
            ? "Only the \(ResultWriter.grouped(drawn)) largest are drawn (largest first, behind); raise --limit for more."
            : "Larger circles are drawn first, behind the smaller."
        s += "<text id=\"cap-note\" x=\"\(f(cx + 30))\" y=\"\(f(top + 70))\" fill=\"#444\">\(xml(note))</text>\n"
        return s + "</g>\n"
    }

    private func degrees(_ v: Double, _ pos: String, _ neg: String) -> String {
        let a = abs(v)
        let text = a == a.rounded() ? "\(Int(a))" : String(format: "%.1f", a)
        return v == 0 ? "0°" : "\(text)°\(v > 0 ? pos : neg)"
    }

    private func f(_ v: Double) -> String { String(format: "%.1f", v) }

    private func xml(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default:
                // XML 1.0 forbids most control characters, which a feed could carry
                if let a = ch.asciiValue, a < 0x20, a != 0x09, a != 0x0A, a != 0x0D { out += " " } else { out.append(ch) }
            }
        }
        return out
    }
}
