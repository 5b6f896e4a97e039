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
        case load(LoadArgs)

        /// Every check ArgumentParser would run on the parsed command.
        func validateAll() throws {
            switch self {
            case .query(let args): try args.validateAll()
            case .count(let args): try args.validateAll()
            case .load(let args): try args.validateAll()
            }
        }

        func run() throws {
            switch self {
            case .query(let args): try args.run()
            case .count(let args): try args.run()
            case .load(let args): try args.run()
            }
        }
    }

    /// Whether the environment turned the fast path off.
    static var isDisabled: Bool {
        getenv("QUAKES_ARGUMENT_PARSER").map { String(cString: $0) == "1" } ?? false
    }

    /// The command `arguments` (without the program name) name, or nil for ArgumentParser.
    static func parse(_ arguments: [String]) -> Command? {
        if arguments.first == "load" { return parseLoad(Array(arguments.dropFirst())) }
        guard let first = arguments.first, first == "query" || first == "count" else { return nil }
        let isQuery = first == "query"
        var args = QueryArgs()
        var seen: [String] = []
        var position = 1
        while position < arguments.count {
            let word = arguments[position]
            position += 1
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
                guard set(spec.key, "", &args) else { return nil }
                continue
            }
            if value == nil {
                guard position < arguments.count else { return nil }
                let next = arguments[position]
                guard spec.unconditional || !next.hasPrefix("-") else { return nil }
                value = next
                position += 1
            }
            guard let value, set(spec.key, value, &args) else { return nil }
        }
        return isQuery ? .query(args) : .count(CountArgs(store: args.store, filters: args.filters, live: args.live))
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
        case "fields", "format", "out", "region", "color-by", "plot", "after", "orderby": return Spec(key: name)
        case "sort": return Spec(key: name, repeats: true)
        case "limit", "offset", "page", "page-size": return Spec(key: name, unconditional: true)
        case "no-header", "cursor": return Spec(key: name, isFlag: true)
        default: return nil
        }
    }

    /// Sets the value of option `key` from `value`; false when `value` does not convert.
    private static func set(_ key: String, _ value: String, _ args: inout QueryArgs) -> Bool {
        if let converted = setFilter(key, value, &args.filters) { return converted }
        switch key {
        case "store": args.store.store = value
        case "watch": args.live.watch = true
        case "fields": args.fields = value
        case "format":
            guard let format = ResultWriter.Format(rawValue: value) else { return false }
            args.format = format
        case "out": args.out = value
        case "region":
            guard let region = MapPicture.Region(rawValue: value) else { return false }
            args.region = region
        case "color-by":
            guard let coloring = MapPicture.Coloring(rawValue: value) else { return false }
            args.colorBy = coloring
        case "plot":
            guard let plot = QueryPlot(rawValue: value) else { return false }
            args.plot = plot
        case "after": args.page.after = value
        case "orderby": args.page.orderby = value
        case "sort": args.page.sort.append(value)
        case "limit": return integer(value, &args.page.limit)
        case "offset": return integer(value, &args.page.offset)
        case "page": return integer(value, &args.page.page)
        case "page-size": return integer(value, &args.page.pageSize)
        case "no-header": args.noHeader = true
        case "cursor": args.cursor = true
        default: return false
        }
        return true
    }

    /// Sets the filter option `key` from `value`: false when `value` does not convert, nil when
    /// `key` names no filter.
    private static func setFilter(_ key: String, _ value: String, _ filters: inout FilterArgs) -> Bool? {
        switch key {
        case "from": filters.from = value
        case "to": filters.to = value
        case "endtime": filters.endtime = value
        case "eventid": filters.eventid = value
        case "contributor": filters.contributor = value
        case "reviewstatus": filters.reviewstatus = value
        case "day": filters.day = value
        case "last": filters.last = value
        case "place": filters.place = value
        case "place-like": filters.placeLike = value
        case "net": filters.net = value
        case "mag-type": filters.magType = value
        case "type": filters.type = value
        case "status": filters.status = value
        case "id": filters.id = value
        case "updatedafter": filters.updatedafter = value
        case "where": filters.whereText = value
        case "changed-since": filters.changedSince = value
        case "bbox": filters.bbox = value
        case "near": filters.near = value
        case "null": filters.isNull.append(value)
        case "not-null": filters.notNull.append(value)
        case "include-deleted": filters.includeDeleted = true
        default: return setFilterNumber(key, value, &filters)
        }
        return true
    }

    /// Sets the numeric filter option `key` from `value`: false when `value` is no number, nil
    /// when `key` names no numeric filter.
    private static func setFilterNumber(_ key: String, _ value: String, _ filters: inout FilterArgs) -> Bool? {
        switch key {
        case "minradius": return number(value, &filters.minradius)
        case "minradiuskm": return number(value, &filters.minradiuskm)
        case "min-mag": return number(value, &filters.minMag)
        case "max-mag": return number(value, &filters.maxMag)
        case "min-depth": return number(value, &filters.minDepth)
        case "max-depth": return number(value, &filters.maxDepth)
        case "radius-km": return number(value, &filters.radiusKm)
        case "minlatitude": return number(value, &filters.minlatitude)
        case "maxlatitude": return number(value, &filters.maxlatitude)
        case "minlongitude": return number(value, &filters.minlongitude)
        case "maxlongitude": return number(value, &filters.maxlongitude)
        case "latitude": return number(value, &filters.latitude)
        case "longitude": return number(value, &filters.longitude)
        case "maxradius": return number(value, &filters.maxradius)
        default: return nil
        }
    }

    private static func number(_ text: String, _ to: inout Double?) -> Bool {
        guard let parsed = Double(text) else { return false }
        to = parsed
        return true
    }

    private static func integer(_ text: String, _ to: inout Int?) -> Bool {
        guard let parsed = Int(text) else { return false }
        to = parsed
        return true
    }

    /// A plain `load` line: `--store`, the flags `--json`, `--strict`, `--fix-text` and
    /// `--verbose` (`-v`), and paths; anything else (another option, `-`, `--`, a repeat, a path
    /// that reads as an option) is left to ArgumentParser.
    static func parseLoad(_ arguments: [String]) -> Command? {
        var args = LoadArgs()
        var seen: Set<String> = []
        var position = 0
        while position < arguments.count {
            let word = arguments[position]
            position += 1
            guard word.hasPrefix("-") else {
                args.paths.append(word)
                continue
            }
            var name = word
            var value: String?
            if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
                value = String(word[word.index(after: equals)...])
                name = String(word[..<equals])
            }
            let key = name == "-v" ? "--verbose" : name
            guard seen.insert(key).inserted else { return nil }
            switch key {
            case "--store":
                if value == nil, position < arguments.count {
                    value = arguments[position]
                    position += 1
                }
                guard let value, !value.isEmpty, !value.hasPrefix("-") else { return nil }
                args.store.store = value
            case "--json", "--strict", "--fix-text", "--verbose":
                guard value == nil else { return nil }
                switch key {
                case "--json": args.json = true
                case "--strict": args.strict = true
                case "--fix-text": args.fixText = true
                default: args.verbose = true
                }
            default:
                return nil
            }
        }
        return .load(args)
    }
}
