import Foundation
import QuakeFormat

/// The world's coastlines, from the GSHHS crude shoreline that Debian's `python-cartopy-data`
/// installs (`$QUAKES_COASTLINES` names another shapefile). The SVG map and the server's page
/// draw them; without the dataset both draw a graticule and say so.
package struct Coastlines: Sendable {
    /// Where Debian installs the crude GSHHS level-1 (land/ocean) shoreline.
    package static let debianPath = "/usr/share/cartopy/data/shapefiles/gshhs/c/GSHHS_c_L1.shp"

    /// The file read, and its rings.
    package let path: String
    package let rings: [[Double]]

    /// The dataset to read: `$QUAKES_COASTLINES`, else Debian's.
    package static var defaultPath: String {
        if let path = ProcessInfo.processInfo.environment["QUAKES_COASTLINES"], !path.isEmpty { return path }
        return debianPath
    }

    /// Loads the coastlines at `path`.
    /// - Throws: ``QuakeError``: `notFound` when the file is missing, `format` when it is damaged.
    package init(path: String = Coastlines.defaultPath) throws(QuakeError) {
        guard FileIO.exists(path) else {
            throw QuakeError(.notFound, path: path,
                             detail: "no coastline dataset (Debian's python-cartopy-data installs it)")
        }
        self.path = path
        // rings flattened to lon, lat, lon, lat, ... (one allocation per ring, read once)
        rings = try ShapefileReader.lines(path: path).map { line in line.flatMap { [$0.lon, $0.lat] } }
    }

    /// The rings as a GeoJSON FeatureCollection of one MultiLineString, coordinates rounded to
    /// 0.01° (the crude dataset's own precision is coarser).
    package func geoJSON() -> [UInt8] {
        var out = Array(("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\","
            + "\"properties\":{\"source\":").utf8)
        FeedWriter.jsonString(path.utf8, into: &out)
        out.append(contentsOf: "},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[".utf8)
        for (r, ring) in rings.enumerated() {
            if r > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            var index = 0
            while index + 1 < ring.count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: "[\(Self.rounded(ring[index])),\(Self.rounded(ring[index + 1]))]".utf8)
                index += 2
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "]}}]}\n".utf8)
        return out
    }

    private static func rounded(_ v: Double) -> String {
        let hundredths = (v * 100).rounded() / 100
        // a whole number prints without ".0"; huge values (a projected, not geographic, file) as they are
        return hundredths.magnitude < 1e15 && hundredths == hundredths.rounded()
            ? String(Int64(hundredths))
            : String(hundredths)
    }

    /// SVG path data of the rings, projected by `x` and `y`; rings wholly outside the box are left out.
    package func svgPath(minLon: Double, maxLon: Double, minLat: Double, maxLat: Double,
                         x: (Double) -> Double, y: (Double) -> Double) -> String {
        var path = ""
        for ring in rings where ring.count >= 4 {
            var lo = Double.infinity
            var hi = -Double.infinity
            var la = Double.infinity
            var ha = -Double.infinity
            var index = 0
            while index + 1 < ring.count {
                lo = min(lo, ring[index])
                hi = max(hi, ring[index])
                la = min(la, ring[index + 1])
                ha = max(ha, ring[index + 1])
                index += 2
            }
            if hi < minLon || lo > maxLon || ha < minLat || la > maxLat { continue }
            index = 0
            while index + 1 < ring.count {
                path += (index == 0 ? "M" : "L") + String(format: "%.1f,%.1f", x(ring[index]), y(ring[index + 1]))
                index += 2
            }
        }
        return path
    }
}
