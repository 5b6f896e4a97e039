import ArgumentParser
import Foundation
import QuakeStore

/// The filter flags shared by query, count, agg, sections and explain.
struct FilterOptions: ParsableArguments {
    @Option(help: "Start time, inclusive (YYYY-MM-DD or ISO date-time, UTC).") var from: String?
    @Option(help: "End time, exclusive (YYYY-MM-DD or ISO date-time, UTC).") var to: String?
    @Option(help: "One UTC day, YYYY-MM-DD.") var day: String?
    @Option(help: "The last period before now: 30m, 12h, 7d, 2w.") var last: String?
    @Option(parsing: .unconditional, help: "Minimum magnitude (inclusive).") var minMag: Double?
    @Option(parsing: .unconditional, help: "Maximum magnitude (inclusive).") var maxMag: Double?
    @Option(parsing: .unconditional, help: "Minimum depth in km (inclusive).") var minDepth: Double?
    @Option(parsing: .unconditional, help: "Maximum depth in km (inclusive).") var maxDepth: Double?
    @Option(parsing: .unconditional, help: "Box minLat,maxLat,minLon,maxLon; minLon > maxLon crosses the antimeridian.") var bbox: String?
    @Option(parsing: .unconditional, help: "Center lat,lon for --radius-km.") var near: String?
    @Option(parsing: .unconditional, help: "Radius in km around --near (great-circle).") var radiusKm: Double?
    @Option(help: "Place contains TEXT (case-sensitive).") var place: String?
    @Option(help: "Place contains TEXT ignoring case and diacritics (pahala finds Pāhala).") var placeLike: String?
    @Option(help: "Networks, comma-separated (ak,us).") var net: String?
    @Option(help: "Magnitude types, comma-separated.") var magType: String?
    @Option(help: "Event types, comma-separated.") var type: String?
    @Option(help: "Review status, comma-separated (automatic,reviewed).") var status: String?
    @Option(help: "Event ids, comma-separated.") var id: String?
    @Option(name: .customLong("null"), help: "FIELD is null (repeatable).") var isNull: [String] = []
    @Option(name: .customLong("not-null"), help: "FIELD is not null (repeatable).") var notNull: [String] = []
    @Option(name: .customLong("where"), help: "Swift-predicate text, e.g. 'mag >= 4.5 && place.contains(\"Alaska\")'.") var whereText: String?

    func validate() throws {
        for (flag, v) in [("--min-mag", minMag), ("--max-mag", maxMag), ("--min-depth", minDepth),
                          ("--max-depth", maxDepth), ("--radius-km", radiusKm)] {
            if let v, !v.isFinite { throw ValidationError("\(flag): expected a finite number") }
        }
        _ = try filter()
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

    /// The filter these flags describe.
    func filter() throws -> Filter {
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
        if let bbox {
            let v = bbox.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4, v[0] <= v[1], (-90...90).contains(v[0]), (-90...90).contains(v[1]), (-180...180).contains(v[2]), (-180...180).contains(v[3]) else {
                throw ValidationError("--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat")
            }
            parts.append(.box(minLatitude: v[0], maxLatitude: v[1], minLongitude: v[2], maxLongitude: v[3]))
        }
        if near != nil || radiusKm != nil {
            let v = (near ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 2, (-90...90).contains(v[0]), (-180...180).contains(v[1]), let r = radiusKm, r >= 0 else { throw ValidationError("--near LAT,LON (LAT in -90...90, LON in -180...180) needs --radius-km R >= 0, and the other way round") }
            parts.append(.near(latitude: v[0], longitude: v[1], radiusKm: r))
        }
        if let place { parts.append(.contains(.place, place, insensitive: false)) }
        if let placeLike { parts.append(.contains(.place, placeLike, insensitive: true)) }
        for (c, v) in [(Column.net, net), (.magType, magType), (.type, type), (.status, status), (.id, id)] {
            if let l = list(v) { parts.append(.oneOf(c, l)) }
        }
        for n in isNull { parts.append(.isNull(try column(n, "--null"))) }
        for n in notNull { parts.append(.not(.isNull(try column(n, "--not-null")))) }
        if let whereText {
            do { parts.append(try WhereParser.parse(whereText)) } catch let e as WhereParser.SyntaxError {
                throw ValidationError(e.description)
            }
        }
        return .conjunction(parts)
    }
}

/// Sorting and paging flags.
struct PageOptions: ParsableArguments {
    @Option(help: "FIELD[:asc|desc], repeatable; nulls last; id breaks ties.") var sort: [String] = []
    @Option(parsing: .unconditional, help: "At most this many rows.") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many rows.") var offset: Int?
    @Option(parsing: .unconditional, help: "Page number (from 1), with --page-size.") var page: Int?
    @Option(parsing: .unconditional, help: "Rows per page (default 50 with --page).") var pageSize: Int?
    @Option(help: "Resume after a cursor printed by an earlier page.") var after: String?

    func validate() throws {
        _ = try sortKeys()
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
        if sort.isEmpty { return d }
        return try sort.map { s in
            guard let k = SortKey(parsing: s) else { throw ValidationError("--sort: expected FIELD[:asc|desc] with a known field, got '\(s)'") }
            return k
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
