import QuakeFormat

/// Reads the polygon and polyline records of an ESRI shapefile (`.shp`): the coastline datasets
/// Debian installs (GSHHS from `python-cartopy-data`) come in this format, and no listed package
/// reads it. Every length and count is checked against the file, so a damaged file is an error,
/// never a trap.
package enum ShapefileReader {
    /// A ring or line: longitude, latitude pairs in degrees.
    package typealias Line = [(lon: Double, lat: Double)]

    /// The parts of every polygon (type 5) or polyline (type 3) record, as lines.
    /// - Throws: ``QuakeError`` (`format`) naming `path` and the byte offset of the damage.
    package static func lines(path: String) throws(QuakeError) -> [Line] {
        let bytes = try FileIO.readFile(path)
        return try lines(bytes, path: path)
    }

    package static func lines(_ b: [UInt8], path: String) throws(QuakeError) -> [Line] {
        func bad(_ at: Int, _ why: String) -> QuakeError {
            QuakeError(.format, path: path, detail: "not a shapefile at byte \(at): \(why)")
        }
        func be32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        func le32(_ at: Int) -> Int {
            let bits = UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            return Int(Int32(bitPattern: bits))
        }
        func f64(_ at: Int) -> Double {
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(b[at + k]) << (8 * k) }
            return Double(bitPattern: bits)
        }
        guard b.count >= 100, be32(0) == 9994 else { throw bad(0, "no file code 9994") }
        var out: [Line] = []
        var at = 100
        while at + 8 <= b.count {
            let length = be32(at + 4) * 2
            let start = at + 8
            guard length >= 4, start + length <= b.count else { throw bad(at, "a record runs past the end") }
            let type = le32(start)
            if type == 5 || type == 3 {
                guard length >= 44 else { throw bad(at, "a short record") }
                let parts = le32(start + 36)
                let points = le32(start + 40)
                let partsAt = start + 44
                let pointsAt = partsAt + 4 * parts
                guard parts >= 0, points >= 0, parts <= length, points <= length,
                      pointsAt + 16 * points <= start + length else { throw bad(at, "counts beyond the record") }
                for p in 0..<parts {
                    let first = le32(partsAt + 4 * p)
                    let end = p + 1 < parts ? le32(partsAt + 4 * (p + 1)) : points
                    guard first >= 0, first <= end, end <= points else { throw bad(at, "a part outside its points") }
                    var line: Line = []
                    line.reserveCapacity(end - first)
                    for k in first..<end {
                        let lon = f64(pointsAt + 16 * k)
                        let lat = f64(pointsAt + 16 * k + 8)
                        guard lon.isFinite, lat.isFinite else { throw bad(at, "a point that is not a number") }
                        line.append((lon, lat))
                    }
                    if line.count >= 2 { out.append(line) }
                }
            } else if type != 0 {
                throw bad(at, "shape type \(type), not a polygon or polyline")
            }
            at = start + length
        }
        return out
    }
}
