import ArgumentParser
import Foundation
import QuakeStore

/// The filter flags shared by query, count, agg, sections and explain; what they mean is
/// ``FilterArgs``.
struct FilterOptions: ParsableArguments {
    @Option(name: [.long, .customLong("starttime"), .customLong("start")],
            help: "Start time, inclusive (YYYY-MM-DD or ISO date-time, UTC).") var from: String?
    @Option(help: "End time, exclusive (YYYY-MM-DD or ISO date-time, UTC).") var to: String?
    @Option(name: [.customLong("endtime"), .customLong("end")],
            help: "FDSN end time, inclusive (on or before), as the event service reads it.") var endtime: String?
    @Option(help: "One UTC day, YYYY-MM-DD.") var day: String?
    @Option(help: "The last period before now: 30m, 12h, 7d, 2w.") var last: String?
    @Option(name: [.long, .customLong("minmagnitude"), .customLong("minmag")], parsing: .unconditional,
            help: "Minimum magnitude (inclusive).") var minMag: Double?
    @Option(name: [.long, .customLong("maxmagnitude"), .customLong("maxmag")], parsing: .unconditional,
            help: "Maximum magnitude (inclusive).") var maxMag: Double?
    @Option(name: [.long, .customLong("mindepth")], parsing: .unconditional,
            help: "Minimum depth in km (inclusive).") var minDepth: Double?
    @Option(name: [.long, .customLong("maxdepth")], parsing: .unconditional,
            help: "Maximum depth in km (inclusive).") var maxDepth: Double?
    @Option(parsing: .unconditional,
            help: "Box minLat,maxLat,minLon,maxLon; minLon > maxLon crosses the antimeridian.") var bbox: String?
    @Option(parsing: .unconditional,
            help: "Center lat,lon: with --radius-km, or (query) for --sort distance and the distance_km field.")
    var near: String?
    @Option(name: [.long, .customLong("maxradiuskm")], parsing: .unconditional,
            help: "Radius in km around --near (great-circle).") var radiusKm: Double?
    @Option(help: "Place contains TEXT (case-sensitive).") var place: String?
    @Option(name: [.long, .customLong("placecontains")],
            help: "Place contains TEXT ignoring case and diacritics (pahala finds Pāhala).") var placeLike: String?
    @Option(name: [.long, .customLong("catalog")], help: "Networks, comma-separated (ak,us).") var net: String?
    @Option(name: [.long, .customLong("magnitudetype"), .customLong("magtype")],
            help: "Magnitude types, comma-separated.") var magType: String?
    @Option(name: [.long, .customLong("eventtype")], help: "Event types, comma-separated.") var type: String?
    @Option(help: "Review status, comma-separated (automatic,reviewed).") var status: String?
    @Option(help: "Event ids, comma-separated.") var id: String?
    @Option(help: "FDSN: one event, by its preferred id (or, when no event has it, any id in its ids list).")
    var eventid: String?
    @Option(help: "FDSN: contributors, comma-separated: the sources, or the net of an event without them.")
    var contributor: String?
    @Option(help: "FDSN: automatic, reviewed or all.") var reviewstatus: String?
    @Option(help: "Updated at or after this time (FDSN updatedafter).") var updatedafter: String?
    @Option(name: [.long, .customLong("minlat")], parsing: .unconditional,
            help: "FDSN: southern edge of a box, degrees.") var minlatitude: Double?
    @Option(name: [.long, .customLong("maxlat")], parsing: .unconditional,
            help: "FDSN: northern edge of a box, degrees.") var maxlatitude: Double?
    @Option(name: [.long, .customLong("minlon")], parsing: .unconditional,
            help: "FDSN: western edge of a box, degrees (-360...360; past ±180 crosses the antimeridian).")
    var minlongitude: Double?
    @Option(name: [.long, .customLong("maxlon")], parsing: .unconditional,
            help: "FDSN: eastern edge of a box, degrees (-360...360; 190 is 170°W, across 180°).")
    var maxlongitude: Double?
    @Option(name: [.long, .customLong("lat")], parsing: .unconditional,
            help: "FDSN: center latitude, with --maxradiuskm or --maxradius.") var latitude: Double?
    @Option(name: [.long, .customLong("lon")], parsing: .unconditional,
            help: "FDSN: center longitude, with --maxradiuskm or --maxradius.") var longitude: Double?
    @Option(parsing: .unconditional, help: "FDSN: radius in degrees of arc around --latitude,--longitude.")
    var maxradius: Double?
    @Option(parsing: .unconditional, help: "FDSN: events at least this many degrees of arc from the center.")
    var minradius: Double?
    @Option(parsing: .unconditional, help: "FDSN: events at least this many km from the center.")
    var minradiuskm: Double?
    @Option(help: ArgumentHelp("FDSN: accepted and ignored (true or false).", visibility: .hidden))
    var includeallorigins: String?
    @Option(help: ArgumentHelp("FDSN: accepted and ignored (true or false).", visibility: .hidden))
    var includeallmagnitudes: String?
    @Option(help: ArgumentHelp("FDSN: accepted and ignored (true or false).", visibility: .hidden))
    var includearrivals: String?
    @Option(name: .customLong("null"), help: "FIELD is null (repeatable).") var isNull: [String] = []
    @Option(name: .customLong("not-null"), help: "FIELD is not null (repeatable).") var notNull: [String] = []
    @Option(name: .customLong("where"),
            help: "Swift-predicate text, e.g. 'mag >= 4.5 && place.contains(\"Alaska\")'.") var whereText: String?
    @Option(name: .customLong("changed-since"),
            help: ArgumentHelp("Only events inserted or updated by loads after GEN (a generation) or after a time "
                + "(see 'quakes history')."))
    var changedSince: String?
    @Flag(name: .customLong("include-deleted"),
          help: "Include events their source deleted (tombstones from quakes sync), which are left out by default.")
    var includeDeleted = false

    /// The values parsed, as plain values.
    var args: FilterArgs {
        var values = FilterArgs()
        values.from = from
        values.to = to
        values.endtime = endtime
        values.eventid = eventid
        values.contributor = contributor
        values.reviewstatus = reviewstatus
        values.minradius = minradius
        values.minradiuskm = minradiuskm
        values.includes = [("includeallorigins", includeallorigins), ("includeallmagnitudes", includeallmagnitudes),
                      ("includearrivals", includearrivals)].compactMap { name, value in value.map { [name, $0] } }
        values.day = day
        values.last = last
        values.minMag = minMag
        values.maxMag = maxMag
        values.minDepth = minDepth
        values.maxDepth = maxDepth
        values.bbox = bbox
        values.near = near
        values.radiusKm = radiusKm
        values.place = place
        values.placeLike = placeLike
        values.net = net
        values.magType = magType
        values.type = type
        values.status = status
        values.id = id
        values.updatedafter = updatedafter
        values.minlatitude = minlatitude
        values.maxlatitude = maxlatitude
        values.minlongitude = minlongitude
        values.maxlongitude = maxlongitude
        values.latitude = latitude
        values.longitude = longitude
        values.maxradius = maxradius
        values.isNull = isNull
        values.notNull = notNull
        values.whereText = whereText
        values.changedSince = changedSince
        values.includeDeleted = includeDeleted
        return values
    }

    func validate() throws { try args.validate() }

    func filter(in store: Store, centerOnly: Bool = false) throws -> Filter {
        try args.filter(in: store, centerOnly: centerOnly)
    }
    func flagFilter(centerOnly: Bool = false) throws -> Filter { try args.flagFilter(centerOnly: centerOnly) }
}

/// Sorting and paging flags; what they mean is ``PageArgs``.
struct PageOptions: ParsableArguments {
    @Option(help: ArgumentHelp("FIELD[:asc|desc], repeatable; nulls last; id breaks ties. "
        + "distance[:desc] orders by distance from --near."))
    var sort: [String] = []
    @Option(parsing: .unconditional, help: "At most this many rows.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many rows.") var offset: Int?
    @Option(parsing: .unconditional, help: "Page number (from 1), with --page-size.") var page: Int?
    @Option(parsing: .unconditional, help: "Rows per page (default 50 with --page).") var pageSize: Int?
    @Option(help: "Resume after a cursor printed by an earlier page.") var after: String?
    @Option(help: "FDSN order: time, time-asc, magnitude or magnitude-asc (instead of --sort).") var orderby: String?

    /// The values parsed, as plain values.
    var args: PageArgs {
        var values = PageArgs()
        values.sort = sort
        values.limit = limit
        values.offset = offset
        values.page = page
        values.pageSize = pageSize
        values.after = after
        values.orderby = orderby
        return values
    }

    func validate() throws { try args.validate() }

    func spec(filter: Filter, defaultLimit: Int? = nil) throws -> QuerySpec {
        try args.spec(filter: filter, defaultLimit: defaultLimit)
    }
}
