import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeServer

/// The values of the filter flags shared by query, count, agg, sections and explain
/// (``FilterOptions``), and the filter they describe. Plain values, so the one-shot fast path
/// (``FastPath``) fills them without ArgumentParser.
struct FilterArgs: Equatable {
    var from: String?
    var to: String?
    /// The FDSN `endtime`: inclusive, where `--to` is exclusive.
    var endtime: String?
    /// The FDSN parameters the event service defines beyond the CLI's own flags; their filter is
    /// the service's own (``FDSNRequest``), so a pasted query string means the same both ways.
    var eventid: String?
    var contributor: String?
    var reviewstatus: String?
    var minradius: Double?
    var minradiuskm: Double?
    /// `includeallorigins` and the like, as name and value: accepted and ignored, as the service does.
    var includes: [[String]] = []
    var day: String?
    var last: String?
    var minMag: Double?
    var maxMag: Double?
    var minDepth: Double?
    var maxDepth: Double?
    var bbox: String?
    var near: String?
    var radiusKm: Double?
    var place: String?
    var placeLike: String?
    var net: String?
    var magType: String?
    var type: String?
    var status: String?
    var id: String?
    var updatedafter: String?
    var minlatitude: Double?
    var maxlatitude: Double?
    var minlongitude: Double?
    var maxlongitude: Double?
    var latitude: Double?
    var longitude: Double?
    var maxradius: Double?
    var isNull: [String] = []
    var notNull: [String] = []
    var whereText: String?
    var changedSince: String?
    /// Tombstones (events whose status is `deleted`) are left out unless this is set or
    /// `--status` names `deleted`.
    var includeDeleted = false

    func validate() throws {
        // one call per flag, not an array of pairs: a one-shot query pays for each new generic type
        func finite(_ flag: String, _ value: Double?) throws {
            if let value, !value.isFinite { throw ValidationError("\(flag): expected a finite number") }
        }
        if let id, list(id)?.isEmpty ?? true { throw ValidationError("--id: no event id given ('\(id)')") }
        try finite("--min-mag", minMag)
        try finite("--max-mag", maxMag)
        try finite("--min-depth", minDepth)
        try finite("--max-depth", maxDepth)
        try finite("--radius-km", radiusKm)
        try finite("--minlatitude", minlatitude)
        try finite("--maxlatitude", maxlatitude)
        try finite("--minlongitude", minlongitude)
        try finite("--maxlongitude", maxlongitude)
        try finite("--latitude", latitude)
        try finite("--longitude", longitude)
        try finite("--maxradius", maxradius)
        try finite("--minradius", minradius)
        try finite("--minradiuskm", minradiuskm)
        _ = try flagFilter(centerOnly: true)
        if let changedSince { _ = try HistoryPoint(parsing: changedSince, flag: "--changed-since") }
    }

    /// The filter these flags describe on `store`: the flags, and `--changed-since` from its history.
    /// `centerOnly` accepts a centre with no radius (query's `--sort distance`); it filters nothing.
    func filter(in store: Store, centerOnly: Bool = false) throws -> Filter {
        let flags = try flagFilter(centerOnly: centerOnly)
        guard let changedSince else { return flags }
        switch try HistoryPoint(parsing: changedSince, flag: "--changed-since") {
        case .generation(let generation):
            let token = HistoryToken(generation: generation)
            return .conjunction([flags, try store.changedFilter(since: token, within: flags)])
        case .time(let date): return .conjunction([flags, try store.changedFilter(since: date, within: flags)])
        }
    }

    /// A time flag's value; digits past the millisecond round a bound up (see ``DateParsing``), so
    /// `--from .0401` does not take an event at `.040`, and `--to .0401` does not leave it out.
    private func time(_ text: String, _ flag: String) throws -> Int64 {
        try DateArgument.parse(text, flag)
    }

    /// A comma-separated list's items, trimmed, each once, in the order given; blank items are
    /// left out.
    private func list(_ text: String?) -> [String]? {
        guard let text else { return nil }
        var seen = Set<String>()
        var items: [String] = []
        for piece in text.split(separator: ",") {
            let item = String(piece).trimmingBlanks
            if !item.isEmpty, seen.insert(item).inserted { items.append(item) }
        }
        return items
    }

    private func column(_ name: String, _ flag: String) throws -> Column {
        guard let column = Column(name: name) else { throw ValidationError("\(flag): unknown field '\(name)'") }
        return column
    }

    /// `--bbox`, or the FDSN edges `--minlatitude`... (each missing edge is the globe's).
    private func boxFilter() throws -> Filter? {
        let fdsn = [minlatitude, maxlatitude, minlongitude, maxlongitude]
        guard let bbox else { return nil }   // the FDSN edges are the service's (``fdsnFilter()``)
        guard fdsn.allSatisfy({ $0 == nil }) else {
            throw ValidationError("--bbox cannot be combined with "
                + "--minlatitude/--maxlatitude/--minlongitude/--maxlongitude")
        }
        let edges = bbox.split(separator: ",").compactMap { Double($0.trimmingBlanks) }
        let hint = "--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat"
        guard edges.count == 4 else { throw ValidationError(hint) }
        return try box(edges[0], edges[1], edges[2], edges[3], hint)
    }

    /// The FDSN parameters whose meaning the event service defines (the box edges, `endtime`,
    /// `eventid`, `contributor`, `reviewstatus`, `minradius`), read by the service's own parser.
    private func fdsnFilter() throws -> Filter? {
        var items: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) { if let value { items.append((name, value)) } }
        func add(_ name: String, _ value: Double?) { if let value { items.append((name, String(value))) } }
        if let endtime { _ = try DateArgument.parse(endtime, DateArgument.typed(["--endtime", "--end"])) }
        add("minlatitude", minlatitude)
        add("maxlatitude", maxlatitude)
        add("minlongitude", minlongitude)
        add("maxlongitude", maxlongitude)
        add("endtime", endtime)
        add("eventid", eventid)
        add("contributor", contributor)
        add("reviewstatus", reviewstatus)
        if minradius != nil || minradiuskm != nil {
            guard latitude != nil, longitude != nil else {
                throw ValidationError("--minradius and --minradiuskm need --latitude and --longitude")
            }
            add("latitude", latitude)
            add("longitude", longitude)
            add("minradius", minradius)
            add("minradiuskm", minradiuskm)
            if let outer = radiusKm ?? maxradius.map({ $0 * Self.kmPerDegree }),
               let inner = minradiuskm ?? minradius.map({ $0 * Self.kmPerDegree }), inner > outer {
                throw ValidationError("--minradius must not exceed --maxradius")
            }
        }
        for pair in includes where pair.count == 2 { add(pair[0], pair[1]) }
        guard !items.isEmpty else { return nil }
        // tombstones are this command's own choice (``flagFilter``)
        items.append(("includedeleted", "true"))
        do {
            return try FDSNRequest(items, maxEvents: .max).filter
        } catch {
            throw ValidationError("FDSN: " + error.detail)
        }
    }

    /// `--from` after `--to` (or after `--endtime`) is a mistake, not an empty answer.
    private func checkTimeOrder() throws {
        guard let from, let start = DateParsing.parse(from) else { return }
        if let to, let end = DateParsing.parse(to), start > end {
            throw ValidationError("--from \(from) is after --to \(to)")
        }
        if let endtime, let end = DateParsing.parse(endtime), start > end {
            throw ValidationError("--starttime \(from) is after --endtime \(endtime)")
        }
    }

    private func box(_ south: Double, _ north: Double, _ west: Double, _ east: Double,
                     _ hint: String) throws -> Filter {
        guard south <= north, (-90...90).contains(south), (-90...90).contains(north),
              (-180...180).contains(west), (-180...180).contains(east)
        else { throw ValidationError(hint) }
        return .box(minLatitude: south, maxLatitude: north, minLongitude: west, maxLongitude: east)
    }

    /// Kilometres in one degree of great-circle arc (mean Earth radius 6371.0088 km).
    static let kmPerDegree = 6371.0088 * Double.pi / 180

    /// The centre `--near LAT,LON` (or the FDSN `--latitude --longitude`) names, if any.
    func center() throws -> (latitude: Double, longitude: Double)? {
        let fdsnCenter = latitude != nil || longitude != nil
        guard near != nil || fdsnCenter else { return nil }
        let center: [Double]
        if fdsnCenter {
            guard near == nil else {
                throw ValidationError("--near cannot be combined with --latitude/--longitude")
            }
            guard let latitude, let longitude else {
                throw ValidationError("--latitude and --longitude go together")
            }
            center = [latitude, longitude]
        } else {
            center = (near ?? "").split(separator: ",").compactMap { Double($0.trimmingBlanks) }
        }
        guard center.count == 2, (-90...90).contains(center[0]), (-180...180).contains(center[1]) else {
            throw ValidationError(fdsnCenter ? "--latitude must lie in -90...90 and --longitude in -180...180"
                : "--near: expected LAT,LON with LAT in -90...90 and LON in -180...180")
        }
        return (center[0], center[1])
    }

    /// True when a centre is given without a radius: it filters nothing, and only query's
    /// `--sort distance` and `distance_km` field use it.
    var centerWithoutRadius: Bool {
        let center = near != nil || latitude != nil || longitude != nil
        let radius = radiusKm != nil || maxradius != nil || minradius != nil || minradiuskm != nil
        return center && !radius
    }

    /// `--near LAT,LON --radius-km R`, or the FDSN `--latitude --longitude --maxradiuskm|--maxradius`.
    private func nearFilter(centerOnly: Bool) throws -> Filter? {
        let fdsnCenter = latitude != nil || longitude != nil
        guard near != nil || radiusKm != nil || fdsnCenter || maxradius != nil else { return nil }
        if radiusKm != nil && maxradius != nil {
            throw ValidationError("give --radius-km (or --maxradiuskm) or --maxradius, not both")
        }
        let radius = radiusKm ?? maxradius.map { $0 * Self.kmPerDegree }
        if maxradius != nil && !fdsnCenter { throw ValidationError("--maxradius needs --latitude and --longitude") }
        let centre = try center()
        // a minimum radius alone is a ring out to 180 degrees, as the FDSN specification defaults
        // maxradius: the service's parser reads it (``fdsnFilter()``)
        let minimumOnly = fdsnCenter && (minradius != nil || minradiuskm != nil)
        if radius == nil, centre != nil, centerOnly || minimumOnly { return nil }
        guard let centre, let radius, radius >= 0 else {
            throw ValidationError(fdsnCenter
                ? "--latitude (-90...90) and --longitude (-180...180) need --maxradiuskm or --maxradius >= 0"
                : "--near LAT,LON (LAT in -90...90, LON in -180...180) needs --radius-km R >= 0, "
                    + "and the other way round")
        }
        return .near(latitude: centre.latitude, longitude: centre.longitude, radiusKm: radius)
    }

    /// The filter the flags other than `--changed-since` describe.
    /// `centerOnly` accepts a centre with no radius (it filters nothing).
    func flagFilter(centerOnly: Bool = false) throws -> Filter {
        var parts = try timeParts()
        if minMag != nil || maxMag != nil {
            parts.append(.numberRange(.mag, lower: minMag.map { .init($0) }, upper: maxMag.map { .init($0) }))
        }
        if minDepth != nil || maxDepth != nil {
            parts.append(.numberRange(.depth, lower: minDepth.map { .init($0) }, upper: maxDepth.map { .init($0) }))
        }
        if let box = try boxFilter() { parts.append(box) }
        if let circle = try nearFilter(centerOnly: centerOnly) { parts.append(circle) }
        try checkTimeOrder()
        if let fdsn = try fdsnFilter() { parts.append(fdsn) }
        if let updatedafter {
            parts.append(.timeRange(.updated, lower: try time(updatedafter, "--updatedafter"), upper: nil))
        }
        if let place { parts.append(.contains(.place, CanonicalText.nfc(place), insensitive: false)) }
        if let placeLike { parts.append(.contains(.place, CanonicalText.nfc(placeLike), insensitive: true)) }
        if let nets = list(net) { parts.append(.oneOf(.net, nets)) }
        if let magTypes = list(magType) { parts.append(.oneOf(.magType, magTypes)) }
        if let types = list(type) { parts.append(.oneOf(.type, types)) }
        if let statuses = list(status) { parts.append(.oneOf(.status, statuses)) }
        if !includeDeleted && list(status)?.contains("deleted") != true { parts.append(Filter.notDeleted) }
        if let ids = list(id) { parts.append(.oneOf(.id, ids)) }
        for name in isNull { parts.append(.isNull(try column(name, "--null"))) }
        for name in notNull { parts.append(.not(.isNull(try column(name, "--not-null")))) }
        if let whereText {
            do { parts.append(try WhereParser.parse(whereText)) } catch let error as WhereParser.SyntaxError {
                throw ValidationError("--where: " + error.description)
            }
        }
        return .conjunction(parts)
    }

    /// `--from`, `--to`, `--day` and `--last` as time ranges.
    private func timeParts() throws -> [Filter] {
        var parts: [Filter] = []
        if let from {
            let flag = DateArgument.typed(["--from", "--starttime", "--start"])
            parts.append(.timeRange(.time, lower: try time(from, flag), upper: nil))
        }
        if let to { parts.append(.timeRange(.time, lower: nil, upper: try time(to, "--to"))) }
        if let day {
            guard day.count == 10 else {
                throw ValidationError(DateParsing.problem(day) == nil ? "--day: expected YYYY-MM-DD, got '\(day)'"
                    : DateArgument.message(day, "--day"))
            }
            let dayStart = try time(day, "--day")
            parts.append(.timeRange(.time, lower: dayStart, upper: dayStart + 86_400_000))
        }
        if let last {
            guard let period = DateParsing.duration(last) else {
                throw ValidationError("--last: expected a period like 7d, 12h, 30m or 2w")
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            parts.append(.timeRange(.time, lower: now - period, upper: nil))
        }
        return parts
    }
}
