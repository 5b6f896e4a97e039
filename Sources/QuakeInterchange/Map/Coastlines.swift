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
        if let p = ProcessInfo.processInfo.environment["QUAKES_COASTLINES"], !p.isEmpty { return p }
        return debianPath
    }

    /// Loads the coastlines at `path`.
    /// - Throws: ``QuakeError``: `notFound` when the file is missing, `format` when it is damaged.
    package init(path: String = Coastlines.defaultPath) throws(QuakeError) {
        guard FileIO.exists(path) else {
            throw QuakeError(.notFound, path: path, detail: "no coastline dataset (Debian's python-cartopy-data installs it)")
        }
        self.path = path
        // rings flattened to lon, lat, lon, lat, ... (one allocation per ring, read once)
        rings = try ShapefileReader.lines(path: path).map { line in line.flatMap { [$0.lon, $0.lat] } }
    }

    /// The rings as a GeoJSON FeatureCollection of one MultiLineString, coordinates rounded to
    /// 0.01° (the crude dataset's own precision is coarser).
    package func geoJSON() -> [UInt8] {
        var out = Array("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"source\":".utf8)
        FeedWriter.jsonString(path.utf8, into: &out)
        out.append(contentsOf: "},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[".utf8)
        for (r, ring) in rings.enumerated() {
            if r > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            var k = 0
            while k + 1 < ring.count {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: "[\(Self.rounded(ring[k])),\(Self.rounded(ring[k + 1]))]".utf8)
                k += 2
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "]}}]}\n".utf8)
        return out
    }

    private static func rounded(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        // a whole number prints without ".0"; huge values (a projected, not geographic, file) as they are
        return r.magnitude < 1e15 && r == r.rounded() ? String(Int64(r)) : String(r)
    }

    /// SVG path data of the rings, projected by `x` and `y`; rings wholly outside the box are left out.
    package func svgPath(minLon: Double, maxLon: Double, minLat: Double, maxLat: Double,
                         x: (Double) -> Double, y: (Double) -> Double) -> String {
        var d = ""
        for ring in rings where ring.count >= 4 {
            var lo = Double.infinity, hi = -Double.infinity, la = Double.infinity, ha = -Double.infinity
            var k = 0
            while k + 1 < ring.count {
                lo = min(lo, ring[k]); hi = max(hi, ring[k]); la = min(la, ring[k + 1]); ha = max(ha, ring[k + 1])
                k += 2
            }
            if hi < minLon || lo > maxLon || ha < minLat || la > maxLat { continue }
            k = 0
            while k + 1 < ring.count {
                d += (k == 0 ? "M" : "L") + String(format: "%.1f,%.1f", x(ring[k]), y(ring[k + 1]))
                k += 2
            }
        }
        return d
    }
}
