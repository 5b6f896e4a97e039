#if canImport(Glibc)
import Glibc
#endif
import QuakeInterchange

/// `quakes query` and `quakes count` read without ArgumentParser, for one-shot use.
///
/// Building ArgumentParser's argument sets for a command with forty options costs a process
/// about 3 ms: each generic option type is instantiated and checked against the binary's 8,000
/// protocol conformances, one linear scan per new type. The day's page itself takes well under
/// 1 ms. So plain command lines are read here into the same values ArgumentParser fills
/// (``QueryArgs``, ``CountArgs``): `--name value`, `--name=value` and the commands' flags, by the
/// same names. Anything else (help, an unknown or repeated name, a value that would read as a
/// flag, a value that does not convert, a check that fails) gives nil, and ArgumentParser reads
/// the line as always, so its errors and help read as before. `QUAKES_ARGUMENT_PARSER=1` turns
/// this path off.
enum FastPath {
    enum Command: Equatable {
        case query(QueryArgs)
        case count(CountArgs)

        /// Every check ArgumentParser would run on the parsed command.
        func validateAll() throws {
            switch self {
            case .query(let a): try a.validateAll()
            case .count(let a): try a.validateAll()
            }
        }

        func run() throws {
            switch self {
            case .query(let a): try a.run()
            case .count(let a): try a.run()
            }
        }
    }

    /// Whether the environment turned the fast path off.
    static var isDisabled: Bool { getenv("QUAKES_ARGUMENT_PARSER").map { String(cString: $0) == "1" } ?? false }

    /// The command `arguments` (without the program name) name, or nil for ArgumentParser.
    static func parse(_ arguments: [String]) -> Command? {
        guard let first = arguments.first, first == "query" || first == "count" else { return nil }
        let isQuery = first == "query"
        var a = QueryArgs()
        var seen: [String] = []
        var k = 1
        while k < arguments.count {
            let word = arguments[k]
            k += 1
            guard word.hasPrefix("--"), word.count > 2 else { return nil }
            var name = String(word.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
                // ArgumentParser takes `--name=` as a name without its value
                guard value?.isEmpty == false else { return nil }
            }
            guard let spec = option(name, query: isQuery) else { return nil }
            // one canonical name per value, so an alias and its name count as a repeat
            guard spec.repeats || !seen.contains(spec.key) else { return nil }
            seen.append(spec.key)
            if spec.isFlag {
                guard value == nil else { return nil }
                guard set(spec.key, "", &a) else { return nil }
                continue
            }
            if value == nil {
                guard k < arguments.count else { return nil }
                let next = arguments[k]
                guard spec.unconditional || !next.hasPrefix("-") else { return nil }
                value = next
                k += 1
            }
            guard let value, set(spec.key, value, &a) else { return nil }
        }
        return isQuery ? .query(a) : .count(CountArgs(store: a.store, filters: a.filters, live: a.live))
    }

    private struct Spec {
        var key: String
        var isFlag = false
        var unconditional = false
        var repeats = false
    }

    /// The option `name` (a long name or alias, without `--`) of query or count.
    private static func option(_ name: String, query: Bool) -> Spec? {
        switch name {
        case "store", "from", "to", "day", "last", "place", "place-like", "mag-type", "type", "status", "id",
             "updatedafter", "where", "changed-since":
            return Spec(key: name)
        case "starttime", "start": return Spec(key: "from")
        case "endtime", "end": return Spec(key: "endtime")
        case "contributor", "reviewstatus": return Spec(key: name)
        case "placecontains": return Spec(key: "place-like")
        case "minlat": return Spec(key: "minlatitude", unconditional: true)
        case "maxlat": return Spec(key: "maxlatitude", unconditional: true)
        case "minlon": return Spec(key: "minlongitude", unconditional: true)
        case "maxlon": return Spec(key: "maxlongitude", unconditional: true)
        case "lat": return Spec(key: "latitude", unconditional: true)
        case "lon": return Spec(key: "longitude", unconditional: true)
        case "minradius", "minradiuskm": return Spec(key: name, unconditional: true)
        case "catalog", "net": return Spec(key: "net")
        case "magnitudetype", "magtype": return Spec(key: "mag-type")
        case "eventtype": return Spec(key: "type")
        case "eventid": return Spec(key: "eventid")
        case "min-mag", "minmagnitude", "minmag": return Spec(key: "min-mag", unconditional: true)
        case "max-mag", "maxmagnitude", "maxmag": return Spec(key: "max-mag", unconditional: true)
        case "min-depth", "mindepth": return Spec(key: "min-depth", unconditional: true)
        case "max-depth", "maxdepth": return Spec(key: "max-depth", unconditional: true)
        case "radius-km", "maxradiuskm": return Spec(key: "radius-km", unconditional: true)
        case "bbox", "near", "minlatitude", "maxlatitude", "minlongitude", "maxlongitude", "latitude", "longitude",
             "maxradius":
            return Spec(key: name, unconditional: true)
        case "null", "not-null": return Spec(key: name, repeats: true)
        case "watch", "include-deleted": return Spec(key: name, isFlag: true)
        default: break
        }
        guard query else { return nil }
        switch name {
        case "fields", "format", "out", "region", "color-by", "after", "orderby": return Spec(key: name)
        case "sort": return Spec(key: name, repeats: true)
        case "limit", "offset", "page", "page-size": return Spec(key: name, unconditional: true)
        case "no-header", "cursor": return Spec(key: name, isFlag: true)
        default: return nil
        }
    }

    /// Sets the value of option `key` from `v`; false when `v` does not convert.
    private static func set(_ key: String, _ v: String, _ a: inout QueryArgs) -> Bool {
        func number(_ to: inout Double?) -> Bool {
            guard let d = Double(v) else { return false }
            to = d
            return true
        }
        func integer(_ to: inout Int?) -> Bool {
            guard let i = Int(v) else { return false }
            to = i
            return true
        }
        switch key {
        case "store": a.store.store = v
        case "from": a.filters.from = v
        case "to": a.filters.to = v
        case "endtime": a.filters.endtime = v
        case "eventid": a.filters.eventid = v
        case "contributor": a.filters.contributor = v
        case "reviewstatus": a.filters.reviewstatus = v
        case "minradius": return number(&a.filters.minradius)
        case "minradiuskm": return number(&a.filters.minradiuskm)
        case "day": a.filters.day = v
        case "last": a.filters.last = v
        case "place": a.filters.place = v
        case "place-like": a.filters.placeLike = v
        case "net": a.filters.net = v
        case "mag-type": a.filters.magType = v
        case "type": a.filters.type = v
        case "status": a.filters.status = v
        case "id": a.filters.id = v
        case "updatedafter": a.filters.updatedafter = v
        case "where": a.filters.whereText = v
        case "changed-since": a.filters.changedSince = v
        case "bbox": a.filters.bbox = v
        case "near": a.filters.near = v
        case "min-mag": return number(&a.filters.minMag)
        case "max-mag": return number(&a.filters.maxMag)
        case "min-depth": return number(&a.filters.minDepth)
        case "max-depth": return number(&a.filters.maxDepth)
        case "radius-km": return number(&a.filters.radiusKm)
        case "minlatitude": return number(&a.filters.minlatitude)
        case "maxlatitude": return number(&a.filters.maxlatitude)
        case "minlongitude": return number(&a.filters.minlongitude)
        case "maxlongitude": return number(&a.filters.maxlongitude)
        case "latitude": return number(&a.filters.latitude)
        case "longitude": return number(&a.filters.longitude)
        case "maxradius": return number(&a.filters.maxradius)
        case "null": a.filters.isNull.append(v)
        case "not-null": a.filters.notNull.append(v)
        case "watch": a.live.watch = true
        case "include-deleted": a.filters.includeDeleted = true
        case "fields": a.fields = v
        case "format":
            guard let f = ResultWriter.Format(rawValue: v) else { return false }
            a.format = f
        case "out": a.out = v
        case "region":
            guard let r = MapPicture.Region(rawValue: v) else { return false }
            a.region = r
        case "color-by":
            guard let c = MapPicture.Coloring(rawValue: v) else { return false }
            a.colorBy = c
        case "after": a.page.after = v
        case "orderby": a.page.orderby = v
        case "sort": a.page.sort.append(v)
        case "limit": return integer(&a.page.limit)
        case "offset": return integer(&a.page.offset)
        case "page": return integer(&a.page.page)
        case "page-size": return integer(&a.page.pageSize)
        case "no-header": a.noHeader = true
        case "cursor": a.cursor = true
        default: return false
        }
        return true
    }
}
