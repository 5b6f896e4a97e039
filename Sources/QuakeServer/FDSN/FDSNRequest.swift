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
        let params = try Self.canonicalParameters(items)
        var parts: [Filter] = []
        try Self.appendTime(params, to: &parts)
        try Self.appendBox(params, to: &parts)
        try Self.appendCircle(params, to: &parts)
        // depth and magnitude
        try Self.range(&parts, .depth, params, "mindepth", "maxdepth")
        try Self.range(&parts, .mag, params, "minmagnitude", "maxmagnitude")
        try Self.appendCategories(params, to: &parts)
        try Self.appendEventText(params, to: &parts)
        for flag in ["includeallorigins", "includeallmagnitudes", "includearrivals"] {
            if let value = params[flag] { _ = try Self.bool(value, flag) }
        }
        filter = .conjunction(parts)
        try readOrderAndPage(params, maxEvents: maxEvents)
        try readOutput(params)
    }

    /// The parameters by canonical name (aliases resolved, names lowercased), each at most once.
    private static func canonicalParameters(
        _ items: [(name: String, value: String)]
    ) throws(FDSNError) -> [String: String] {
        var params: [String: String] = [:]
        for (rawName, value) in items {
            let lower = rawName.lowercased()
            let name = Self.aliases[lower] ?? lower
            guard Self.parameters.contains(lower) else {
                throw .badRequest("Unknown parameter '\(rawName)'. Parameters: "
                    + Self.parameters.joined(separator: ", "))
            }
            guard params[name] == nil else { throw .badRequest("Parameter '\(name)' is given more than once") }
            params[name] = value
        }
        return params
    }

    /// `starttime`, `endtime` and `updatedafter`.
    private static func appendTime(_ params: [String: String], to parts: inout [Filter]) throws(FDSNError) {
        // "on or after" starttime and "on or before" endtime (fdsnws-event 1.2): both ends are
        // inclusive, so starttime == endtime is the one instant; times are kept to the millisecond
        let start = try params["starttime"].map { text throws(FDSNError) in
            try Self.time(text, "starttime", roundingUp: true)
        }
        let end = try params["endtime"].map { text throws(FDSNError) in try Self.time(text, "endtime") }
        // after, as written: `.0405` to `.0405` is one instant (that no millisecond time holds), not a 400
        if let start, let end,
           start - 1 > end || (start - 1 == end && !Self.subMillisecond(params["starttime"])) {
            throw .badRequest("starttime must not be after endtime")
        }
        if start != nil || end != nil {
            let upper = end.map { $0 + 1 }
            let clampedUpper = upper.map { bound in start.map { Swift.max($0, bound) } ?? bound }
            parts.append(.timeRange(.time, lower: start, upper: clampedUpper))
        }
        if let updated = params["updatedafter"] {
            let lower = try Self.time(updated, "updatedafter", roundingUp: true)
            parts.append(.timeRange(.updated, lower: lower, upper: nil))
        }
    }

    /// The box of `minlatitude` ... `maxlongitude`.
    private static func appendBox(_ params: [String: String], to parts: inout [Filter]) throws(FDSNError) {
        let minLat = try Self.number(params["minlatitude"], "minlatitude", -90...90)
        let maxLat = try Self.number(params["maxlatitude"], "maxlatitude", -90...90)
        let minLon = try Self.number(params["minlongitude"], "minlongitude", -360...360)
        let maxLon = try Self.number(params["maxlongitude"], "maxlongitude", -360...360)
        guard minLat != nil || maxLat != nil || minLon != nil || maxLon != nil else { return }
        let south = minLat ?? -90
        let north = maxLat ?? 90
        guard south <= north else { throw .badRequest("minlatitude must not exceed maxlatitude") }
        let lons = try Self.longitudes(minLon ?? -180, maxLon ?? 180)
        parts.append(.box(minLatitude: south, maxLatitude: north, minLongitude: lons.0, maxLongitude: lons.1))
    }

    /// The circle (or ring) of `latitude`, `longitude` and the radii in degrees or kilometres.
    private static func appendCircle(_ params: [String: String], to parts: inout [Filter]) throws(FDSNError) {
        let lat = try Self.number(params["latitude"], "latitude", -90...90)
        let lon = try Self.number(params["longitude"], "longitude", -180...180)
        let minDegrees = try Self.number(params["minradius"], "minradius", 0...180)
        let maxDegrees = try Self.number(params["maxradius"], "maxradius", 0...180)
        let minKm = try Self.number(params["minradiuskm"], "minradiuskm", 0...20_001.6)
        let maxKm = try Self.number(params["maxradiuskm"], "maxradiuskm", 0...20_001.6)
        if minDegrees != nil && minKm != nil { throw .badRequest("Give minradius or minradiuskm, not both") }
        if maxDegrees != nil && maxKm != nil { throw .badRequest("Give maxradius or maxradiuskm, not both") }
        let inner = minKm ?? minDegrees.map { $0 * Self.kmPerDegree }
        let outer = maxKm ?? maxDegrees.map { $0 * Self.kmPerDegree }
        guard lat != nil || lon != nil || inner != nil || outer != nil else { return }
        guard let lat, let lon else {
            throw .badRequest("latitude and longitude go together, and a radius needs both")
        }
        if let inner, let outer, inner > outer { throw .badRequest("minradius must not exceed maxradius") }
        if let outer, outer < 180 * Self.kmPerDegree {
            parts.append(.near(latitude: lat, longitude: lon, radiusKm: outer))
        }
        if let inner, inner > 0 { parts.append(.not(.near(latitude: lat, longitude: lon, radiusKm: inner))) }
    }

    /// `magnitudetype`, `eventtype`, `catalog`, `contributor`, `reviewstatus` and `includedeleted`.
    private static func appendCategories(_ params: [String: String], to parts: inout [Filter]) throws(FDSNError) {
        if let value = params["magnitudetype"] {
            parts.append(.oneOf(.magType, try Self.list(value, "magnitudetype")))
        }
        if let value = params["eventtype"] { parts.append(.oneOf(.type, try Self.list(value, "eventtype"))) }
        if let value = params["catalog"] { parts.append(.oneOf(.net, try Self.list(value, "catalog"))) }
        if let value = params["contributor"] {
            parts.append(Self.contributor(try Self.list(value, "contributor")))
        }
        if let value = params["reviewstatus"] {
            switch value.lowercased() {
            case "all": break
            case "automatic", "reviewed": parts.append(.oneOf(.status, [value.lowercased()]))
            default: throw .badRequest("Bad reviewstatus value '\(value)': use automatic, reviewed or all")
            }
        }
        // tombstones (status `deleted`) are left out unless asked for, as USGS does
        switch params["includedeleted"]?.lowercased() {
        case nil, "false": parts.append(Filter.notDeleted)
        case "true": break
        case "only": parts.append(Filter.onlyDeleted)
        case let value?: throw .badRequest("Bad includedeleted value '\(value)': use true, false or only")
        }
    }

    /// `placecontains` and `eventid`.
    private static func appendEventText(_ params: [String: String], to parts: inout [Filter]) throws(FDSNError) {
        // a quakes addition: place search ignoring case and diacritics (the page's search field)
        if let place = params["placecontains"], !place.isEmpty {
            guard place.utf8.count <= 200 else { throw .badRequest("Bad placecontains value: at most 200 bytes") }
            parts.append(.contains(.place, CanonicalText.nfc(place), insensitive: true))
        }
        if let eventId = params["eventid"] {
            guard !eventId.isEmpty, eventId.utf8.count <= 200 else {
                throw .badRequest("Bad eventid value '\(eventId)'")
            }
            guard !eventId.contains(",") else {
                throw .badRequest("Bad eventid value '\(eventId)': one event id, without commas")
            }
            // an event answers to its preferred id and, when no event has it, to the ids of its `ids` list
            parts.append(.eventId(eventId))
        }
    }

    /// `orderby`, `limit` and `offset`.
    private mutating func readOrderAndPage(_ params: [String: String], maxEvents: Int) throws(FDSNError) {
        if let value = params["orderby"] {
            switch value {
            case "time": sort = [SortKey(.time, ascending: false)]
            case "time-asc": sort = [SortKey(.time, ascending: true)]
            case "magnitude": sort = [SortKey(.mag, ascending: false)]
            case "magnitude-asc": sort = [SortKey(.mag, ascending: true)]
            default:
                throw .badRequest("Bad orderby value '\(value)': use time, time-asc, magnitude or magnitude-asc")
            }
        }
        if let value = params["limit"] {
            guard let count = Int(value), count >= 1 else {
                throw .badRequest("Bad limit value '\(value)': a whole number >= 1")
            }
            guard count <= maxEvents else {
                throw .badRequest("Bad limit value '\(value)': the limit is at most \(maxEvents)")
            }
            limit = count
        }
        if let value = params["offset"] {
            guard let position = Int(value), position >= 1 else {
                throw .badRequest("Bad offset value '\(value)': a whole number >= 1 (offset=1 is the first event)")
            }
            skip = position - 1
        }
    }

    /// `format`, `nodata`, `jsonerror` and `callback`.
    private mutating func readOutput(_ params: [String: String]) throws(FDSNError) {
        if let value = params["format"] {
            switch value.lowercased() {
            case "xml", "quakeml": format = .quakeml
            case "geojson": format = .geojson
            case "csv": format = .csv
            case "text": format = .text
            case "kml": format = .kml
            default:
                throw .badRequest(
                    "Bad format value '\(value)': use xml (QuakeML), quakeml, geojson, csv, text or kml")
            }
        }
        if let value = params["nodata"] {
            guard value == "204" || value == "404" else {
                throw .badRequest("Bad nodata value '\(value)': use 204 or 404")
            }
            noData = value == "404" ? 404 : 204
        }
        if let value = params["jsonerror"] { jsonError = try Self.bool(value, "jsonerror") }
        if let value = params["callback"] {
            guard format == .geojson else { throw .badRequest("callback goes with format=geojson") }
            guard !value.isEmpty, value.utf8.count <= 128, value.utf8.allSatisfy(Self.isCallbackByte) else {
                throw .badRequest("Bad callback value: a name of letters, digits, '.' and '_'")
            }
            callback = value
        }
    }

    private static func isCallbackByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == 46 || byte == 95
    }

    /// An FDSN time: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.ffffff]`, with or without a trailing `Z`.
    /// Digits past the millisecond are dropped, or with `roundingUp` make the next millisecond
    /// (so that a start of `.0405` does not take an event at `.040`).
    package static func time(_ v: String, _ name: String, roundingUp: Bool = false) throws(FDSNError) -> Int64 {
        guard v.utf8.count <= 40, let millis = DateParsing.parse(v, roundingUp: roundingUp) else {
            if v.utf8.count <= 40, let problem = DateParsing.problem(v) {
                throw .badRequest("Bad \(name) value '\(v)': \(problem)")
            }
            throw .badRequest("Bad \(name) value '\(v)': use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (UTC)")
        }
        return millis
    }

    /// True when a time's text has nonzero digits past the millisecond.
    private static func subMillisecond(_ text: String?) -> Bool {
        guard let text, let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let digits = text.utf8[text.utf8.index(after: dot)...].prefix { $0 >= 48 && $0 <= 57 }
        return digits.dropFirst(3).contains { $0 != 48 }
    }

    /// `contributor`: what the text format prints as Contributor, the event's `sources` (GeoJSON
    /// events) or, for events without them (CSV events), its `net`.
    package static func contributor(_ names: [String]) -> Filter {
        .or(names.map { .contains(.sources, "," + $0 + ",", insensitive: false) }
            + [.and([.isNull(.sources), .oneOf(.net, names)])])
    }

    private static func number(
        _ text: String?, _ name: String, _ bounds: ClosedRange<Double>
    ) throws(FDSNError) -> Double? {
        guard let text else { return nil }
        guard text.utf8.count <= 40, let parsed = Double(text), parsed.isFinite, bounds.contains(parsed) else {
            throw .badRequest("Bad \(name) value '\(text)': a number in \(bounds.lowerBound)...\(bounds.upperBound)")
        }
        return parsed
    }

    private static func range(_ parts: inout [Filter], _ column: Column, _ params: [String: String],
                              _ lo: String, _ hi: String) throws(FDSNError) {
        let lower = try number(params[lo], lo, -1e9...1e9)
        let upper = try number(params[hi], hi, -1e9...1e9)
        if let lower, let upper, lower > upper { throw .badRequest("\(lo) must not exceed \(hi)") }
        if lower != nil || upper != nil {
            parts.append(.numberRange(column, lower: lower.map { .init($0) }, upper: upper.map { .init($0) }))
        }
    }

    private static func list(_ text: String, _ name: String) throws(FDSNError) -> [String] {
        let items = text.split(separator: ",")
            .map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !items.isEmpty, text.utf8.count <= 1000 else { throw .badRequest("Bad \(name) value '\(text)'") }
        return items
    }

    private static func bool(_ text: String, _ name: String) throws(FDSNError) -> Bool {
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .badRequest("Bad \(name) value '\(text)': use true or false")
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
        func wrap(_ degrees: Double) -> Double {
            let remainder = (degrees + 180).truncatingRemainder(dividingBy: 360)
            return (remainder < 0 ? remainder + 360 : remainder) - 180
        }
        let wrappedWest = wrap(west)
        var wrappedEast = wrap(east)
        if wrappedEast == -180 && east > west { wrappedEast = 180 }
        return (wrappedWest, wrappedEast)
    }
}
