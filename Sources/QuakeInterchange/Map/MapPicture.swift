import QuakeSupport
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
        let batch = result.batch
        let lat = batch.ints[Column.latitude.rawValue]
        let lon = batch.ints[Column.longitude.rawValue]
        let box = bounds(lat.compactMap(Self.double), lon.compactMap(Self.double))
        let mapH = min(900, max(240, (width * (box.maxLat - box.minLat) / (box.maxLon - box.minLon)).rounded()))
        let top = 56.0
        let left = 44.0
        let legendH = 96.0
        let totalWidth = left + width + 16
        let totalHeight = top + mapH + 28 + legendH
        // a box across the antimeridian runs past 180°: western longitudes are drawn 360° further east
        func x(_ lo: Double) -> Double {
            let east = box.maxLon > 180 && lo < box.minLon ? lo + 360 : lo
            return left + (east - box.minLon) / (box.maxLon - box.minLon) * width
        }
        func y(_ la: Double) -> Double { top + (box.maxLat - la) / (box.maxLat - box.minLat) * mapH }
        let drawn = batch.count
        var out = heading(width: totalWidth, height: totalHeight, left: left, drawn: drawn, matched: matched)
        out += "<rect id=\"map\" x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" "
            + "height=\"\(f(mapH))\" fill=\"#eaf2f8\" stroke=\"#888\"/>\n"
        out += graticule(box, x: x, y: y, top: top, bottom: top + mapH, left: left, right: left + width)
        out += coastlinePath(box, x: x, y: y, top: top, left: left, mapH: mapH)
        out += "<g id=\"quakes\" stroke=\"#222\" stroke-width=\"0.5\" fill-opacity=\"0.8\">\n"
        out += circles(batch, x: x, y: y)
        out += "</g>\n"
        out += legend(y: top + mapH + 28, left: left, capped: drawn < matched, drawn: drawn)
        out += "</svg>\n"
        return out
    }

    /// A scaled decimal as a double, nil for null.
    private static func double(_ value: Int64) -> Double? {
        value == RowBatch.null ? nil : ScaledDecimal.double(value)
    }

    /// The `<svg>` element's opening, the background and the two lines of the title.
    private func heading(width totalWidth: Double, height totalHeight: Double, left: Double,
                         drawn: Int, matched: Int) -> String {
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(totalWidth))" height="\(f(totalHeight))" \
            viewBox="0 0 \(f(totalWidth)) \(f(totalHeight))" \
            font-family="Helvetica, Arial, sans-serif">

            """
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        out += "<text x=\"\(f(left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(xml(title))</text>\n"
        let sub = drawn < matched
            ? "\(matched.grouped) events matched; the \(drawn.grouped) largest drawn"
            : "\(matched.grouped) event\(matched == 1 ? "" : "s")"
        out += "<text x=\"\(f(left))\" y=\"42\" font-size=\"12\" fill=\"#444\">"
            + "\(xml(sub)) · \(region.rawValue) · colour by \(coloring.rawValue)</text>\n"
        return out
    }

    /// The coastlines clipped to the map area, or a note that there are none.
    private func coastlinePath(_ box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double),
                               x: (Double) -> Double, y: (Double) -> Double,
                               top: Double, left: Double, mapH: Double) -> String {
        guard let coastlines else {
            return "<text id=\"no-coastlines\" x=\"\(f(left + 8))\" y=\"\(f(top + mapH - 8))\" "
                + "font-size=\"11\" fill=\"#666\">"
                + "No coastline dataset (install Debian's python-cartopy-data): graticule only</text>\n"
        }
        var out = "<clipPath id=\"map-clip\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" "
            + "height=\"\(f(mapH))\"/></clipPath>\n"
        var path = coastlines.svgPath(minLon: box.minLon, maxLon: min(180, box.maxLon), minLat: box.minLat,
                                      maxLat: box.maxLat, x: x, y: y)
        if box.maxLon > 180 {
            path += coastlines.svgPath(minLon: -180, maxLon: box.maxLon - 360, minLat: box.minLat, maxLat: box.maxLat,
                                       x: { x($0 + 360) }, y: y)
        }
        out += "<path id=\"coastlines\" clip-path=\"url(#map-clip)\" fill=\"none\" stroke=\"#5d7283\" "
            + "stroke-width=\"0.8\" d=\"\(path)\"/>\n"
        return out
    }

    /// One `<circle>` per event with a position, in the batch's order.
    private func circles(_ batch: RowBatch, x: (Double) -> Double, y: (Double) -> Double) -> String {
        let lat = batch.ints[Column.latitude.rawValue]
        let lon = batch.ints[Column.longitude.rawValue]
        let depth = batch.ints[Column.depth.rawValue]
        let mag = batch.ints[Column.mag.rawValue]
        let time = batch.ints[Column.time.rawValue]
        let newest = time.filter { $0 != RowBatch.null }.max() ?? 0
        var out = ""
        for i in 0..<batch.count {
            guard let la = Self.double(lat[i]), let lo = Self.double(lon[i]) else { continue }
            let magnitude = Self.double(mag[i])
            let fill = coloring == .depth ? MapPicture.depthColor(Self.double(depth[i]))
                : time[i] == RowBatch.null ? "#bbbbbb" : MapPicture.ageColor(newest &- time[i])
            let place = batch.text[Column.place.rawValue].string(i) ?? ""
            let id = batch.text[Column.id.rawValue].string(i) ?? ""
            let label = "M\(magnitude.map { String(format: "%.1f", $0) } ?? "?") · \(place) · "
                + "\(time[i] == RowBatch.null ? "" : Timestamp.string(time[i])) · \(id)"
            let dataMag = magnitude.map { "\($0)" } ?? ""
            out += "<circle cx=\"\(f(x(lo)))\" cy=\"\(f(y(la)))\" r=\"\(f(MapPicture.radius(magnitude)))\" "
                + "fill=\"\(fill)\" data-mag=\"\(dataMag)\"><title>\(xml(label))</title></circle>\n"
        }
        return out
    }

    /// Circle radius in pixels for a magnitude: grows with energy, M2 about 2 px, M8 about 24.
    package static func radius(_ mag: Double?) -> Double {
        guard let magnitude = mag, magnitude > 1 else { return 1.2 }
        return 1.2 + 1.1 * pow(min(magnitude, 10) - 1, 1.6)
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

    private func bounds(_ lats: [Double], _ lons: [Double])
        -> (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double) {
        guard region == .fit, let south = lats.min(), let north = lats.max(), !lons.isEmpty else {
            return (-90, 90, -180, 180)
        }
        let padLat = max(1, (north - south) * 0.1)
        let (west, east) = MapPicture.longitudeSpan(lons)
        let padLon = max(1, (east - west) * 0.1)
        let lat = (max(-90, south - padLat), min(90, north + padLat))
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
        var out = "<g id=\"graticule\" stroke=\"#b8c8d8\" stroke-width=\"0.6\" font-size=\"10\" fill=\"#667\">\n"
        /// The multiples of a round step within `lo...hi` (at least two of them, at most 12), where grid
        /// lines go.
        func stops(_ lo: Double, _ hi: Double) -> StrideThrough<Double> {
            let step = [0.5, 1.0, 2, 5, 10, 15, 30, 60].first { (hi - lo) / $0 <= 12 } ?? 60
            return stride(from: (lo / step).rounded(.up) * step, through: hi, by: step)
        }
        for east in stops(box.minLon, box.maxLon) {
            let lo = east > 180 ? east - 360 : east
            out += "<line x1=\"\(f(x(lo)))\" y1=\"\(f(top))\" x2=\"\(f(x(lo)))\" y2=\"\(f(bottom))\"/>"
            out += "<text x=\"\(f(x(lo)))\" y=\"\(f(bottom + 14))\" text-anchor=\"middle\" stroke=\"none\">"
                + "\(degrees(lo, "E", "W"))</text>\n"
        }
        for la in stops(box.minLat, box.maxLat) {
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y(la)))\" x2=\"\(f(right))\" y2=\"\(f(y(la)))\"/>"
            out += "<text x=\"\(f(left - 4))\" y=\"\(f(y(la) + 3))\" text-anchor=\"end\" stroke=\"none\">"
                + "\(degrees(la, "N", "S"))</text>\n"
        }
        return out + "</g>\n"
    }

    private func legend(y top: Double, left: Double, capped: Bool, drawn: Int) -> String {
        var out = "<g id=\"legend\" font-size=\"11\" fill=\"#333\">\n"
        out += "<text x=\"\(f(left))\" y=\"\(f(top + 12))\" font-weight=\"bold\">Magnitude</text>\n"
        var cx = left + 14
        for magnitude in [2.0, 4, 6, 8] {
            let radius = MapPicture.radius(magnitude)
            out += "<circle cx=\"\(f(cx + radius))\" cy=\"\(f(top + 50))\" r=\"\(f(radius))\" fill=\"none\" "
                + "stroke=\"#333\"/>"
            out += "<text x=\"\(f(cx + radius))\" y=\"\(f(top + 88))\" text-anchor=\"middle\">"
                + "M\(Int(magnitude))</text>\n"
            cx += 2 * radius + 18
        }
        var kx = cx + 30
        let key = coloring == .depth ? "Depth" : "Age (before the newest drawn)"
        out += "<text x=\"\(f(kx))\" y=\"\(f(top + 12))\" font-weight=\"bold\">\(key)</text>\n"
        let bands = coloring == .depth ? MapPicture.depthBands.map { ($0.color, $0.label) }
            : MapPicture.ageBands.map { ($0.color, $0.label) }
        for (color, label) in bands {
            out += "<rect x=\"\(f(kx))\" y=\"\(f(top + 24))\" width=\"14\" height=\"14\" fill=\"\(color)\" "
                + "stroke=\"#333\" stroke-width=\"0.5\"/>"
            out += "<text x=\"\(f(kx + 18))\" y=\"\(f(top + 35))\">\(xml(label))</text>\n"
            kx += 24 + Double(label.count) * 6.5
        }
        let note = capped
            ? "Only the \(drawn.grouped) largest are drawn (largest first, behind); "
                + "raise --limit for more."
            : "Larger circles are drawn first, behind the smaller."
        out += "<text id=\"cap-note\" x=\"\(f(cx + 30))\" y=\"\(f(top + 70))\" fill=\"#444\">\(xml(note))</text>\n"
        return out + "</g>\n"
    }

    private func degrees(_ v: Double, _ pos: String, _ neg: String) -> String {
        let absolute = abs(v)
        let text = absolute == absolute.rounded() ? "\(Int(absolute))" : String(format: "%.1f", absolute)
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
                if let ascii = ch.asciiValue, ascii < 0x20, ascii != 0x09, ascii != 0x0A, ascii != 0x0D {
                    out += " "
                } else {
                    out.append(ch)
                }
            }
        }
        return out
    }
}
