import Foundation
import QuakeStore

/// Feeds written by the tests in the USGS CSV format, and stores loaded from them, made once per run.
enum Generated {
    static let header = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,"
        + "horizontalError,depthError,magError,magNst,status,locationSource,magSource"

    /// Places with diacritics and mixed case, for the search; "" leaves the place empty.
    static let places = [
        "10 km NE of Pāhala, Hawaii", "5 km S of São Tomé, Sao Tome", "Zürich, Switzerland",
        "12 km W of ANCHORAGE, Alaska", "3 km SSE of Coquimbo, Chile", "Île d'Oléron, France",
        "45 km N of Ciudad de México, Mexico", "near the coast of Central CALIFORNIA", "", "Kraków, Poland",
        "Pahala, Hawaii", "anchorage, alaska",
    ]
    static let nets = ["us", "ci", "hv", "ak", "nc", "nn"]

    /// `n` rows from `startDay` (days since 1970), `step` seconds apart, ids `NET PREFIX i`.
    /// Magnitude is empty on every 7th row, depth on every 11th; some depths are negative.
    static func write(_ url: URL, rows n: Int, prefix: String, startDay: Int = 19_723, step: Int = 37) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let h = try FileHandle(forWritingTo: url)
        defer { try? h.close() }
        var chunk = header + "\n"
        for i in 0..<n {
            chunk += row(i, prefix: prefix, startDay: startDay, step: step)
            if chunk.utf8.count > 1 << 20 {
                h.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        h.write(Data(chunk.utf8))
    }

    static func row(_ i: Int, prefix: String, startDay: Int, step: Int = 37) -> String {
        let seconds = i * step
        let time = iso(day: startDay + seconds / 86_400, second: seconds % 86_400, ms: i % 1000)
        let updated = iso(day: startDay + seconds / 86_400 + 1, second: seconds % 86_400, ms: 0)
        let lat = decimal(-6000 + (i &* 7919) % 12_000, 2)
        let lon = decimal(-18_000 + (i &* 104_729) % 36_000, 2)
        let depth = i % 11 == 0 ? "" : i % 13 == 0 ? decimal(-(i % 300), 2) : decimal((i &* 31) % 70_000, 2)
        let mag = i % 7 == 0 ? "" : decimal((i &* 17) % 800 - 50, 2)
        let magType = ["ml", "md", "mb", "mww", ""][i % 5]
        let nst = i % 3 == 0 ? "" : String(i % 90)
        let net = nets[i % nets.count]
        let place = places[(i / 3) % places.count]
        let type = i % 29 == 0 ? "quarry blast" : "earthquake"
        let status = i % 4 == 0 ? "automatic" : "reviewed"
        var f = [time, lat, lon, depth, mag, magType, nst, decimal(i % 3600, 1), decimal(i % 9, 2),
                 decimal(i % 100, 2), net, "\(net)\(prefix)\(i)", updated, place.isEmpty ? "" : "\"\(place)\"", type]
        f += [i % 5 == 0 ? "" : decimal(i % 50, 1), decimal(i % 40, 1), "", "", status, net, net]
        return f.joined(separator: ",") + "\n"
    }

    /// `v / 10^scale` as text, exactly.
    static func decimal(_ v: Int, _ scale: Int) -> String {
        var p = 1
        for _ in 0..<scale { p *= 10 }
        let a = abs(v)
        let frac = String(a % p)
        return (v < 0 ? "-" : "") + "\(a / p)." + String(repeating: "0", count: scale - frac.count) + frac
    }

    /// ISO 8601 UTC text of a day since 1970, a second of that day and milliseconds.
    static func iso(day: Int, second: Int, ms: Int) -> String {
        let (y, m, d) = civil(day)
        return "\(y)-\(two(m))-\(two(d))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))."
            + String(repeating: "0", count: ms < 10 ? 2 : ms < 100 ? 1 : 0) + "\(ms)Z"
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// Year, month and day of a day since 1970 (proleptic Gregorian).
    static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// 3,000 rows over about a day and a half.
    static let small: Result<URL, any Error> = Result {
        let url = try Paths.temporary("small").appendingPathComponent("small.csv")
        try write(url, rows: 3000, prefix: "s")
        return url
    }

    /// About 400,000 rows (some 60 MB) over six months: a load that runs long enough to cancel.
    static let large: Result<URL, any Error> = Result {
        let url = try Paths.temporary("large").appendingPathComponent("large.csv")
        try write(url, rows: 400_000, prefix: "L", startDay: 19_000)
        return url
    }

    /// A store holding `small`, read-only for the tests that share it.
    static let smallStore: Result<String, any Error> = Result {
        let path = try Paths.temporary("small-store").appendingPathComponent("quakes.store").path
        let store = try Store.openOrCreate(path: path)
        try store.load([small.get().path], options: LoadOptions(strict: true))
        return path
    }

    /// A new store holding `small`, for a test that writes to it.
    static func freshStore(_ name: String) throws -> Store {
        let store = try Store.openOrCreate(path: Paths.temporary(name).appendingPathComponent("quakes.store").path)
        try store.load([small.get().path], options: LoadOptions(strict: true))
        return store
    }
}

/// A store loaded from real USGS feeds (CSV of both headers, GeoJSON, odd files), and every
/// event in it as Foundation sees it: the reference the semantics tests compare with.
struct RealFeeds: Sendable {
    let store: Store
    let all: [Quake]

    static let files = [
        "csv_2016-04-24_2016-05-01_1386.csv", "csv_2019-06-30_2019-07-07_5834.csv",
        "csv_2014-07-21_2014-08-20_7502.csv", "csv_2024-09-11_2024-10-06_12.csv",
        "geojson_2018-06-07_2018-06-14_4711.geojson", "geojson_2019-01-29_2019-01-30_233.geojson",
        "oddcsv_2023-12-20_2024-01-15_38.csv", "csv_2023-03-05_2023-04-04_12569.csv",
    ]

    static let shared: Result<RealFeeds, any Error> = Result {
        let path = try Paths.temporary("real").appendingPathComponent("quakes.store").path
        let store = try Store.openOrCreate(path: path)
        try store.load(files.map { Paths.usgs.appendingPathComponent($0).path })
        return RealFeeds(store: store, all: try store.fetch(FetchDescriptor()))
    }
}
