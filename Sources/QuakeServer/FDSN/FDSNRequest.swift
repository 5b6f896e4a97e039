import Foundation
import QuakeFormat
import QuakeStore

/// A parsed fdsnws-event 1.2 `query` or `count` request: every parameter of the specification
/// with its aliases, and the USGS additions people paste (`minradiuskm`, `maxradiuskm`,
/// longitudes beyond ±180 for boxes across the antimeridian, `callback`, `jsonerror`).
///
/// The filter it builds is the one the CLI builds from the same flags (`FilterOptions`), so the
/// service and `quakes query` answer a request with the same events.
package struct FDSNRequest: Sendable {
    /// The formats of the `format` parameter; `xml` and `quakeml` are both QuakeML 1.2.
    package enum Format: String, Sendable { case quakeml, geojson, csv, text, kml }

    package var filter: Filter = .all
    package var sort: [SortKey] = [SortKey(.time, ascending: false)]
    /// `limit`, when given.
    package var limit: Int?
    /// Rows to skip: the 1-based `offset` less one.
    package var skip = 0
    package var format: Format = .quakeml
    /// The status when nothing matches: 204 (the default) or 404.
    package var noData = 204
    /// A JSONP function name (geojson only).
    package var callback: String?
    /// Errors as JSON, as the USGS service writes them with `jsonerror=true`.
    package var jsonError = false

    /// The query the service runs.
    package var spec: QuerySpec { QuerySpec(filter: filter, sort: sort, limit: limit, offset: skip) }

    /// The parameter names the service takes, aliases included, as `application.wadl` lists them.
    package static let parameters: [String] = [
        "starttime", "start", "endtime", "end", "minlatitude", "minlat", "maxlatitude", "maxlat",
        "minlongitude", "minlon", "maxlongitude", "maxlon", "latitude", "lat", "longitude", "lon",
        "minradius", "maxradius", "minradiuskm", "maxradiuskm", "mindepth", "maxdepth",
        "minmagnitude", "minmag", "maxmagnitude", "maxmag", "magnitudetype", "magtype", "eventtype",
        "includeallorigins", "includeallmagnitudes", "includearrivals", "eventid", "limit", "offset",
        "orderby", "catalog", "contributor", "updatedafter", "format", "nodata", "callback", "jsonerror",
        "reviewstatus", "placecontains", "includedeleted",
    ]

    /// Aliases and their canonical names.
    private static let aliases: [String: String] = [
        "start": "starttime", "end": "endtime", "minlat": "minlatitude", "maxlat": "maxlatitude",
        "minlon": "minlongitude", "maxlon": "maxlongitude", "lat": "latitude", "lon": "longitude",
        "minmag": "minmagnitude", "maxmag": "maxmagnitude", "magtype": "magnitudetype",
    ]

    /// Kilometres in one degree of great-circle arc (mean Earth radius 6371.0088 km), as the CLI uses.
    package static let kmPerDegree = 6371.0088 * Double.pi / 180

    /// Parses the query string's parameters (already percent-decoded), names in any case.
    /// - Throws: ``FDSNError`` (400) naming the parameter and the value it could not use.
    package init(_ items: [(name: String, value: String)], maxEvents: Int) throws(FDSNError) {
        var p: [String: String] = [:]
        for (rawName, value) in items {
            let lower = rawName.lowercased()
            let name = Self.aliases[lower] ?? lower
            guard Self.parameters.contains(lower) else {
                throw .badRequest("Unknown parameter '\(rawName)'. Parameters: "
                    + Self.parameters.joined(separator: ", "))
            }
            guard p[name] == nil else { throw .badRequest("Parameter '\(name)' is given more than once") }
            p[name] = value
        }
        var parts: [Filter] = []
        // time
        // "on or after" starttime and "on or before" endtime (fdsnws-event 1.2): both ends are
        // inclusive, so starttime == endtime is the one instant; times are kept to the millisecond
        let start = try p["starttime"].map { v throws(FDSNError) in
            try Self.time(v, "starttime", roundingUp: true)
        }
        let end = try p["endtime"].map { v throws(FDSNError) in try Self.time(v, "endtime") }
        // after, as written: `.0405` to `.0405` is one instant (that no millisecond time holds), not a 400
        if let start, let end, start - 1 > end || (start - 1 == end && !Self.subMillisecond(p["starttime"])) {
            throw .badRequest("starttime must not be after endtime")
        }
        if start != nil || end != nil {
            let upper = end.map { $0 + 1 }
            parts.append(.timeRange(.time, lower: start, upper: upper.map { u in start.map { Swift.max($0, u) } ?? u }))
        }
        if let u = p["updatedafter"] {
            parts.append(.timeRange(.updated, lower: try Self.time(u, "updatedafter", roundingUp: true), upper: nil))
        }
        // box
        let minLat = try Self.number(p["minlatitude"], "minlatitude", -90...90)
        let maxLat = try Self.number(p["maxlatitude"], "maxlatitude", -90...90)
        let minLon = try Self.number(p["minlongitude"], "minlongitude", -360...360)
        let maxLon = try Self.number(p["maxlongitude"], "maxlongitude", -360...360)
        if minLat != nil || maxLat != nil || minLon != nil || maxLon != nil {
            let a = minLat ?? -90, b = maxLat ?? 90
            guard a <= b else { throw .badRequest("minlatitude must not exceed maxlatitude") }
            let lons = try Self.longitudes(minLon ?? -180, maxLon ?? 180)
            parts.append(.box(minLatitude: a, maxLatitude: b, minLongitude: lons.0, maxLongitude: lons.1))
        }
        // circle
        let lat = try Self.number(p["latitude"], "latitude", -90...90)
        let lon = try Self.number(p["longitude"], "longitude", -180...180)
        let minR = try Self.number(p["minradius"], "minradius", 0...180)
        let maxR = try Self.number(p["maxradius"], "maxradius", 0...180)
        let minKm = try Self.number(p["minradiuskm"], "minradiuskm", 0...20_001.6)
        let maxKm = try Self.number(p["maxradiuskm"], "maxradiuskm", 0...20_001.6)
        if minR != nil && minKm != nil { throw .badRequest("Give minradius or minradiuskm, not both") }
        if maxR != nil && maxKm != nil { throw .badRequest("Give maxradius or maxradiuskm, not both") }
        let inner = minKm ?? minR.map { $0 * Self.kmPerDegree }
        let outer = maxKm ?? maxR.map { $0 * Self.kmPerDegree }
        if lat != nil || lon != nil || inner != nil || outer != nil {
            guard let lat, let lon else {
                throw .badRequest("latitude and longitude go together, and a radius needs both")
            }
            if let inner, let outer, inner > outer { throw .badRequest("minradius must not exceed maxradius") }
            if let outer, outer < 180 * Self.kmPerDegree {
                parts.append(.near(latitude: lat, longitude: lon, radiusKm: outer))
            }
            if let inner, inner > 0 { parts.append(.not(.near(latitude: lat, longitude: lon, radiusKm: inner))) }
        }
        // depth and magnitude
        try Self.range(&parts, .depth, p, "mindepth", "maxdepth")
        try Self.range(&parts, .mag, p, "minmagnitude", "maxmagnitude")
        // categories
        if let v = p["magnitudetype"] { parts.append(.oneOf(.magType, try Self.list(v, "magnitudetype"))) }
        if let v = p["eventtype"] { parts.append(.oneOf(.type, try Self.list(v, "eventtype"))) }
        if let v = p["catalog"] { parts.append(.oneOf(.net, try Self.list(v, "catalog"))) }
        if let v = p["contributor"] { parts.append(Self.contributor(try Self.list(v, "contributor"))) }
        if let v = p["reviewstatus"] {
            switch v.lowercased() {
            case "all": break
            case "automatic", "reviewed": parts.append(.oneOf(.status, [v.lowercased()]))
            default: throw .badRequest("Bad reviewstatus value '\(v)': use automatic, reviewed or all")
            }
        }
        // tombstones (status `deleted`) are left out unless asked for, as USGS does
        switch p["includedeleted"]?.lowercased() {
        case nil, "false": parts.append(Filter.notDeleted)
        case "true": break
        case "only": parts.append(Filter.onlyDeleted)
        case let v?: throw .badRequest("Bad includedeleted value '\(v)': use true, false or only")
        }
        // a quakes addition: place search ignoring case and diacritics (the page's search field)
        if let v = p["placecontains"], !v.isEmpty {
            guard v.utf8.count <= 200 else { throw .badRequest("Bad placecontains value: at most 200 bytes") }
            parts.append(.contains(.place, CanonicalText.nfc(v), insensitive: true))
        }
        if let v = p["eventid"] {
            guard !v.isEmpty, v.utf8.count <= 200 else { throw .badRequest("Bad eventid value '\(v)'") }
            guard !v.contains(",") else { throw .badRequest("Bad eventid value '\(v)': one event id, without commas") }
            // an event answers to its preferred id and, when no event has it, to the ids of its `ids` list
            parts.append(.eventId(v))
        }
        for flag in ["includeallorigins", "includeallmagnitudes", "includearrivals"] {
            if let v = p[flag] { _ = try Self.bool(v, flag) }
        }
        filter = .conjunction(parts)
        // order and page
        if let v = p["orderby"] {
            switch v {
            case "time": sort = [SortKey(.time, ascending: false)]
            case "time-asc": sort = [SortKey(.time, ascending: true)]
            case "magnitude": sort = [SortKey(.mag, ascending: false)]
            case "magnitude-asc": sort = [SortKey(.mag, ascending: true)]
            default: throw .badRequest("Bad orderby value '\(v)': use time, time-asc, magnitude or magnitude-asc")
            }
        }
        if let v = p["limit"] {
            guard let n = Int(v), n >= 1 else { throw .badRequest("Bad limit value '\(v)': a whole number >= 1") }
            guard n <= maxEvents else {
                throw .badRequest("Bad limit value '\(v)': the limit is at most \(maxEvents)")
            }
            limit = n
        }
        if let v = p["offset"] {
            guard let n = Int(v), n >= 1 else {
                throw .badRequest("Bad offset value '\(v)': a whole number >= 1 (offset=1 is the first event)")
            }
            skip = n - 1
        }
        // output
        if let v = p["format"] {
            switch v.lowercased() {
            case "xml", "quakeml": format = .quakeml
            case "geojson": format = .geojson
            case "csv": format = .csv
            case "text": format = .text
            case "kml": format = .kml
            default: throw .badRequest("Bad format value '\(v)': use xml (QuakeML), quakeml, geojson, csv, text or kml")
            }
        }
        if let v = p["nodata"] {
            guard v == "204" || v == "404" else { throw .badRequest("Bad nodata value '\(v)': use 204 or 404") }
            noData = v == "404" ? 404 : 204
        }
        if let v = p["jsonerror"] { jsonError = try Self.bool(v, "jsonerror") }
        if let v = p["callback"] {
            guard format == .geojson else { throw .badRequest("callback goes with format=geojson") }
            guard !v.isEmpty, v.utf8.count <= 128, v.utf8.allSatisfy(Self.isCallbackByte) else {
                throw .badRequest("Bad callback value: a name of letters, digits, '.' and '_'")
            }
            callback = v
        }
    }

    private static func isCallbackByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 95
    }

    /// An FDSN time: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.ffffff]`, with or without a trailing `Z`.
    /// Digits past the millisecond are dropped, or with `roundingUp` make the next millisecond
    /// (so that a start of `.0405` does not take an event at `.040`).
    package static func time(_ v: String, _ name: String, roundingUp: Bool = false) throws(FDSNError) -> Int64 {
        guard v.utf8.count <= 40, let t = DateParsing.parse(v, roundingUp: roundingUp) else {
            if v.utf8.count <= 40, let problem = DateParsing.problem(v) {
                throw .badRequest("Bad \(name) value '\(v)': \(problem)")
            }
            throw .badRequest("Bad \(name) value '\(v)': use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)")
        }
        return t
    }

    /// True when a time's text has nonzero digits past the millisecond.
    private static func subMillisecond(_ v: String?) -> Bool {
        guard let v, let dot = v.utf8.firstIndex(of: UInt8(ascii: ".")) else { return false }
        return v.utf8[v.utf8.index(after: dot)...].prefix { $0 >= 48 && $0 <= 57 }.dropFirst(3).contains { $0 != 48 }
    }

    /// `contributor`: what the text format prints as Contributor, the event's `sources` (GeoJSON
    /// events) or, for events without them (CSV events), its `net`.
    package static func contributor(_ names: [String]) -> Filter {
        .or(names.map { .contains(.sources, "," + $0 + ",", insensitive: false) }
            + [.and([.isNull(.sources), .oneOf(.net, names)])])
    }

    private static func number(_ v: String?, _ name: String, _ r: ClosedRange<Double>) throws(FDSNError) -> Double? {
        guard let v else { return nil }
        guard v.utf8.count <= 40, let d = Double(v), d.isFinite, r.contains(d) else {
            throw .badRequest("Bad \(name) value '\(v)': a number in \(r.lowerBound)...\(r.upperBound)")
        }
        return d
    }

    private static func range(_ parts: inout [Filter], _ c: Column, _ p: [String: String],
                              _ lo: String, _ hi: String) throws(FDSNError) {
        let a = try number(p[lo], lo, -1e9...1e9)
        let b = try number(p[hi], hi, -1e9...1e9)
        if let a, let b, a > b { throw .badRequest("\(lo) must not exceed \(hi)") }
        if a != nil || b != nil { parts.append(.numberRange(c, lower: a.map { .init($0) }, upper: b.map { .init($0) })) }
    }

    private static func list(_ v: String, _ name: String) throws(FDSNError) -> [String] {
        let l = v.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !l.isEmpty, v.utf8.count <= 1000 else { throw .badRequest("Bad \(name) value '\(v)'") }
        return l
    }

    private static func bool(_ v: String, _ name: String) throws(FDSNError) -> Bool {
        switch v.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .badRequest("Bad \(name) value '\(v)': use true or false")
        }
    }

    /// Box longitudes as the store's box takes them (-180...180, west > east crossing the
    /// antimeridian) from the USGS form, where -360...360 lets a box run across it.
    package static func longitudes(_ west: Double, _ east: Double) throws(FDSNError) -> (Double, Double) {
        guard west <= east else {
            // a region across the antimeridian is written with the east edge past 180, as USGS takes it
            let spelling = String(format: "%g", east + 360)
            throw .badRequest("minlongitude must not exceed maxlongitude; for a region that crosses 180°, "
                + "add 360 to the east edge: maxlongitude=\(spelling)")
        }
        guard east - west < 360 else { return (-180, 180) }
        func wrap(_ x: Double) -> Double {
            let r = (x + 180).truncatingRemainder(dividingBy: 360)
            return (r < 0 ? r + 360 : r) - 180
        }
        let a = wrap(west)
        var b = wrap(east)
        if b == -180 && east > west { b = 180 }
        return (a, b)
    }
}
