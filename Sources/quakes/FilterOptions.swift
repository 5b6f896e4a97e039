import ArgumentParser
import Foundation
import QuakeStore
import QuakeFormat
import QuakeInterchange
import QuakeTestSupport

/// The filter flags shared by query, count, agg, sections and explain.
struct FilterOptions: ParsableArguments {
    @Option(name: [.long, .customLong("starttime")],
            help: "Start time, inclusive (YYYY-MM-DD or ISO date-time, UTC).") var from: String?
    @Option(name: [.long, .customLong("endtime")],
            help: "End time, exclusive (YYYY-MM-DD or ISO date-time, UTC).") var to: String?
    @Option(help: "One UTC day, YYYY-MM-DD.") var day: String?
    @Option(help: "The last period before now: 30m, 12h, 7d, 2w.") var last: String?
    @Option(name: [.long, .customLong("minmagnitude")], parsing: .unconditional,
            help: "Minimum magnitude (inclusive).") var minMag: Double?
    @Option(name: [.long, .customLong("maxmagnitude")], parsing: .unconditional,
            help: "Maximum magnitude (inclusive).") var maxMag: Double?
    @Option(name: [.long, .customLong("mindepth")], parsing: .unconditional,
            help: "Minimum depth in km (inclusive).") var minDepth: Double?
    @Option(name: [.long, .customLong("maxdepth")], parsing: .unconditional,
            help: "Maximum depth in km (inclusive).") var maxDepth: Double?
    @Option(parsing: .unconditional, help: "Box minLat,maxLat,minLon,maxLon; minLon > maxLon crosses the antimeridian.") var bbox: String?
    @Option(parsing: .unconditional,
            help: "Center lat,lon: with --radius-km, or (query) for --sort distance and the distance_km field.")
    var near: String?
    @Option(name: [.long, .customLong("maxradiuskm")], parsing: .unconditional,
            help: "Radius in km around --near (great-circle).") var radiusKm: Double?
    @Option(help: "Place contains TEXT (case-sensitive).") var place: String?
    @Option(help: "Place contains TEXT ignoring case and diacritics (pahala finds Pāhala).") var placeLike: String?
    @Option(name: [.long, .customLong("catalog")], help: "Networks, comma-separated (ak,us).") var net: String?
    @Option(name: [.long, .customLong("magnitudetype")], help: "Magnitude types, comma-separated.") var magType: String?
    @Option(name: [.long, .customLong("eventtype")], help: "Event types, comma-separated.") var type: String?
    @Option(help: "Review status, comma-separated (automatic,reviewed).") var status: String?
    @Option(name: [.long, .customLong("eventid")], help: "Event ids, comma-separated.") var id: String?
    @Option(help: "Updated at or after this time (FDSN updatedafter).") var updatedafter: String?
    @Option(parsing: .unconditional, help: "FDSN: southern edge of a box, degrees.") var minlatitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: northern edge of a box, degrees.") var maxlatitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: western edge of a box, degrees.") var minlongitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: eastern edge of a box, degrees.") var maxlongitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: center latitude, with --maxradiuskm or --maxradius.") var latitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: center longitude, with --maxradiuskm or --maxradius.") var longitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: radius in degrees of arc around --latitude,--longitude.")
    var maxradius: Double?
    @Option(name: .customLong("null"), help: "FIELD is null (repeatable).") var isNull: [String] = []
    @Option(name: .customLong("not-null"), help: "FIELD is not null (repeatable).") var notNull: [String] = []
    @Option(name: .customLong("where"), help: "Swift-predicate text, e.g. 'mag >= 4.5 && place.contains(\"Alaska\")'.") var whereText: String?
    @Option(name: .customLong("changed-since"),
            help: "Only events inserted or updated by loads after GEN (a generation) or after a time (see 'quakes history').")
    var changedSince: String?

    func validate() throws {
        for (flag, v) in [("--min-mag", minMag), ("--max-mag", maxMag), ("--min-depth", minDepth),
                          ("--max-depth", maxDepth), ("--radius-km", radiusKm), ("--minlatitude", minlatitude),
                          ("--maxlatitude", maxlatitude), ("--minlongitude", minlongitude),
                          ("--maxlongitude", maxlongitude), ("--latitude", latitude), ("--longitude", longitude),
                          ("--maxradius", maxradius)] {
            if let v, !v.isFinite { throw ValidationError("\(flag): expected a finite number") }
        }
        _ = try flagFilter(centerOnly: true)
        if let changedSince { _ = try HistoryPoint(parsing: changedSince, flag: "--changed-since") }
    }

    /// The filter these flags describe on `store`: the flags, and `--changed-since` from its history.
    /// `centerOnly` accepts a centre with no radius (query's `--sort distance`); it filters nothing.
    func filter(in store: Store, centerOnly: Bool = false) throws -> Filter {
        let f = try flagFilter(centerOnly: centerOnly)
        guard let changedSince else { return f }
        switch try HistoryPoint(parsing: changedSince, flag: "--changed-since") {
        case .generation(let g):
            return .conjunction([f, try store.changedFilter(since: HistoryToken(generation: g), within: f)])
        case .time(let d): return .conjunction([f, try store.changedFilter(since: d, within: f)])
        }
    }

    private func time(_ s: String, _ flag: String) throws -> Int64 {
        guard let t = DateParsing.parse(s) else { throw ValidationError("\(flag): not a date: '\(s)' (use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)") }
        return t
    }

    private func list(_ s: String?) -> [String]? { s.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } }

    private func column(_ name: String, _ flag: String) throws -> Column {
        guard let c = Column(name: name) else { throw ValidationError("\(flag): unknown field '\(name)'") }
        return c
    }

    /// `--bbox`, or the FDSN edges `--minlatitude`... (each missing edge is the globe's).
    private func boxFilter() throws -> Filter? {
        let fdsn = [minlatitude, maxlatitude, minlongitude, maxlongitude]
        if let bbox {
            guard fdsn.allSatisfy({ $0 == nil }) else {
                throw ValidationError("--bbox cannot be combined with --minlatitude/--maxlatitude/--minlongitude/--maxlongitude")
            }
            let v = bbox.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4 else { throw ValidationError("--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat") }
            return try box(v[0], v[1], v[2], v[3], "--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat")
        }
        guard fdsn.contains(where: { $0 != nil }) else { return nil }
        return try box(minlatitude ?? -90, maxlatitude ?? 90, minlongitude ?? -180, maxlongitude ?? 180,
                       "--minlatitude/--maxlatitude must lie in -90...90 with min <= max, longitudes in -180...180")
    }

    private func box(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ hint: String) throws -> Filter {
        guard a <= b, (-90...90).contains(a), (-90...90).contains(b), (-180...180).contains(c), (-180...180).contains(d)
        else { throw ValidationError(hint) }
        return .box(minLatitude: a, maxLatitude: b, minLongitude: c, maxLongitude: d)
    }

    /// Kilometres in one degree of great-circle arc (mean Earth radius 6371.0088 km).
    static let kmPerDegree = 6371.0088 * Double.pi / 180

    /// The centre `--near LAT,LON` (or the FDSN `--latitude --longitude`) names, if any.
    func center() throws -> (latitude: Double, longitude: Double)? {
        let fdsnCenter = latitude != nil || longitude != nil
        guard near != nil || fdsnCenter else { return nil }
        let center: [Double]
        if fdsnCenter {
            guard near == nil else { throw ValidationError("--near cannot be combined with --latitude/--longitude") }
            guard let latitude, let longitude else { throw ValidationError("--latitude and --longitude go together") }
            center = [latitude, longitude]
        } else {
            center = (near ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard center.count == 2, (-90...90).contains(center[0]), (-180...180).contains(center[1]) else {
            throw ValidationError(fdsnCenter ? "--latitude must lie in -90...90 and --longitude in -180...180"
                : "--near: expected LAT,LON with LAT in -90...90 and LON in -180...180")
        }
        return (center[0], center[1])
    }

    /// True when a centre is given without a radius: it filters nothing, and only query's
    /// `--sort distance` and `distance_km` field use it.
    var centerWithoutRadius: Bool { (near != nil || latitude != nil || longitude != nil) && radiusKm == nil && maxradius == nil }

    /// `--near LAT,LON --radius-km R`, or the FDSN `--latitude --longitude --maxradiuskm|--maxradius`.
    private func nearFilter(centerOnly: Bool) throws -> Filter? {
        let fdsnCenter = latitude != nil || longitude != nil
        guard near != nil || radiusKm != nil || fdsnCenter || maxradius != nil else { return nil }
        if radiusKm != nil && maxradius != nil { throw ValidationError("give --radius-km (or --maxradiuskm) or --maxradius, not both") }
        let r = radiusKm ?? maxradius.map { $0 * Self.kmPerDegree }
        if maxradius != nil && !fdsnCenter { throw ValidationError("--maxradius needs --latitude and --longitude") }
        let c = try center()
        if r == nil, c != nil, centerOnly { return nil }
        guard let c, let r, r >= 0 else {
            throw ValidationError(fdsnCenter
                ? "--latitude (-90...90) and --longitude (-180...180) need --maxradiuskm or --maxradius >= 0"
                : "--near LAT,LON (LAT in -90...90, LON in -180...180) needs --radius-km R >= 0, and the other way round")
        }
        return .near(latitude: c.latitude, longitude: c.longitude, radiusKm: r)
    }

    /// The filter the flags other than `--changed-since` describe.
    /// `centerOnly` accepts a centre with no radius (it filters nothing).
    func flagFilter(centerOnly: Bool = false) throws -> Filter {
        var parts: [Filter] = []
        if let from { parts.append(.timeRange(.time, lower: try time(from, "--from"), upper: nil)) }
        if let to { parts.append(.timeRange(.time, lower: nil, upper: try time(to, "--to"))) }
        if let day {
            guard day.count == 10 else { throw ValidationError("--day: expected YYYY-MM-DD, got '\(day)'") }
            let t = try time(day, "--day")
            parts.append(.timeRange(.time, lower: t, upper: t + 86_400_000))
        }
        if let last {
            guard let d = DateParsing.duration(last) else { throw ValidationError("--last: expected a period like 7d, 12h, 30m or 2w") }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            parts.append(.timeRange(.time, lower: now - d, upper: nil))
        }
        if minMag != nil || maxMag != nil { parts.append(.numberRange(.mag, lower: minMag.map { .init($0) }, upper: maxMag.map { .init($0) })) }
        if minDepth != nil || maxDepth != nil { parts.append(.numberRange(.depth, lower: minDepth.map { .init($0) }, upper: maxDepth.map { .init($0) })) }
        if let b = try boxFilter() { parts.append(b) }
        if let n = try nearFilter(centerOnly: centerOnly) { parts.append(n) }
        if let updatedafter { parts.append(.timeRange(.updated, lower: try time(updatedafter, "--updatedafter"), upper: nil)) }
        if let place { parts.append(.contains(.place, CanonicalText.nfc(place), insensitive: false)) }
        if let placeLike { parts.append(.contains(.place, CanonicalText.nfc(placeLike), insensitive: true)) }
        for (c, v) in [(Column.net, net), (.magType, magType), (.type, type), (.status, status), (.id, id)] {
            if let l = list(v) { parts.append(.oneOf(c, l)) }
        }
        for n in isNull { parts.append(.isNull(try column(n, "--null"))) }
        for n in notNull { parts.append(.not(.isNull(try column(n, "--not-null")))) }
        if let whereText {
            do { parts.append(try WhereParser.parse(whereText)) } catch let e as WhereParser.SyntaxError {
                throw ValidationError("--where: " + e.description)
            }
        }
        return .conjunction(parts)
    }
}

/// Sorting and paging flags.
struct PageOptions: ParsableArguments {
    @Option(help: "FIELD[:asc|desc], repeatable; nulls last; id breaks ties. distance[:desc] orders by distance from --near.")
    var sort: [String] = []
    @Option(parsing: .unconditional, help: "At most this many rows.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many rows.") var offset: Int?
    @Option(parsing: .unconditional, help: "Page number (from 1), with --page-size.") var page: Int?
    @Option(parsing: .unconditional, help: "Rows per page (default 50 with --page).") var pageSize: Int?
    @Option(help: "Resume after a cursor printed by an earlier page.") var after: String?
    @Option(help: "FDSN order: time, time-asc, magnitude or magnitude-asc (instead of --sort).") var orderby: String?

    func validate() throws {
        _ = try sortKeys()
        if try distanceOrder() != nil, after != nil {
            throw ValidationError("--after: --sort distance pages with --page or --offset")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be >= 0") }
        if let offset, offset < 0 { throw ValidationError("--offset must be >= 0") }
        if let page, page < 1 { throw ValidationError("--page counts from 1") }
        if let page, (page - 1).multipliedReportingOverflow(by: pageSize ?? 50).overflow {
            throw ValidationError("--page \(page) is beyond any store (page × page size overflows)")
        }
        if let pageSize, pageSize < 1 { throw ValidationError("--page-size must be >= 1") }
        if page != nil && (offset != nil || after != nil) { throw ValidationError("--page cannot be combined with --offset or --after") }
        if let after, Cursor(token: after) == nil { throw ValidationError("--after: not a cursor printed by quakes") }
    }

    func sortKeys(default d: [SortKey] = [SortKey(.time, ascending: false)]) throws -> [SortKey] {
        if let orderby {
            guard sort.isEmpty else { throw ValidationError("--orderby cannot be combined with --sort") }
            switch orderby {
            case "time": return [SortKey(.time, ascending: false)]
            case "time-asc": return [SortKey(.time, ascending: true)]
            case "magnitude": return [SortKey(.mag, ascending: false)]
            case "magnitude-asc": return [SortKey(.mag, ascending: true)]
            default: throw ValidationError("--orderby: expected time, time-asc, magnitude or magnitude-asc")
            }
        }
        if sort.isEmpty { return d }
        if try distanceOrder() != nil { return d }
        return try sort.map { s in
            guard let k = SortKey(parsing: s) else { throw ValidationError("--sort: expected FIELD[:asc|desc] with a known field, got '\(s)'") }
            return k
        }
    }

    /// `--sort distance[:asc|desc]`: true for nearest first (the default), false for farthest
    /// first; nil when the order is by fields.
    func distanceOrder() throws -> Bool? {
        guard let k = sort.firstIndex(where: { $0 == "distance" || $0.hasPrefix("distance:") }) else { return nil }
        guard sort.count == 1 else {
            throw ValidationError("--sort distance orders by distance alone (id breaks ties); drop the other --sort keys")
        }
        guard orderby == nil else { throw ValidationError("--orderby cannot be combined with --sort") }
        switch sort[k].dropFirst("distance".count) {
        case "", ":asc": return true
        case ":desc": return false
        default: throw ValidationError("--sort: expected distance, distance:asc or distance:desc, got '\(sort[k])'")
        }
    }

    func spec(filter: Filter, defaultLimit: Int? = nil) throws -> QuerySpec {
        let keys = try sortKeys()
        var q = QuerySpec(filter: filter, sort: keys, limit: limit ?? defaultLimit, offset: offset ?? 0)
        if let page {
            let size = pageSize ?? 50
            q.offset = (page - 1) * size
            q.limit = size
        } else if let pageSize, limit == nil {
            q.limit = pageSize
        }
        if let after {
            let c = Cursor(token: after)!
            guard c.sort == keys else { throw ValidationError("--after: the cursor was made with --sort \(c.sort.map(\.description).joined(separator: " --sort ")); use the same order") }
            q.after = c
        }
        return q
    }
}
