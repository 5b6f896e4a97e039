import ArgumentParser
import QuakeFormat
import QuakeStore
import QuakeSync

/// The filter flags of `quakes sync` and `serve --sync`: the query's own names where the FDSN
/// event service has a parameter for them, sent to the service as its parameters.
struct SyncFilterOptions: ParsableArguments {
    @Option(name: [.long, .customLong("starttime"), .customLong("start")],
            help: "First event time, inclusive (default for a first sync: 30 days ago, as libcomcat).")
    var from: String?
    @Option(help: "Last event time, exclusive.") var to: String?
    @Option(name: [.customLong("endtime"), .customLong("end")], help: "FDSN end time, inclusive.") var endtime: String?
    @Option(name: [.long, .customLong("minmagnitude"), .customLong("minmag")], parsing: .unconditional,
            help: "Minimum magnitude.") var minMag: Double?
    @Option(name: [.long, .customLong("maxmagnitude"), .customLong("maxmag")], parsing: .unconditional,
            help: "Maximum magnitude.") var maxMag: Double?
    @Option(name: [.long, .customLong("mindepth")], parsing: .unconditional, help: "Minimum depth, km.")
    var minDepth: Double?
    @Option(name: [.long, .customLong("maxdepth")], parsing: .unconditional, help: "Maximum depth, km.")
    var maxDepth: Double?
    @Option(parsing: .unconditional, help: "Box minLat,maxLat,minLon,maxLon; minLon > maxLon crosses 180°.")
    var bbox: String?
    @Option(parsing: .unconditional, help: "Center lat,lon, with --radius-km.") var near: String?
    @Option(name: [.long, .customLong("maxradiuskm")], parsing: .unconditional, help: "Radius in km around --near.")
    var radiusKm: Double?
    @Option(name: [.long, .customLong("catalog")], help: "Networks (FDSN catalog), comma-separated.") var net: String?
    @Option(name: [.long, .customLong("eventtype")], help: "Event types, comma-separated.") var type: String?
    @Option(name: [.long, .customLong("magnitudetype"), .customLong("magtype")], help: "Magnitude types.")
    var magType: String?
    @Option(help: "FDSN: contributors, comma-separated.") var contributor: String?
    @Option(help: "FDSN: automatic, reviewed or all.") var reviewstatus: String?
    @Option(name: [.long, .customLong("minlat")], parsing: .unconditional, help: "FDSN: southern edge.")
    var minlatitude: Double?
    @Option(name: [.long, .customLong("maxlat")], parsing: .unconditional, help: "FDSN: northern edge.")
    var maxlatitude: Double?
    @Option(name: [.long, .customLong("minlon")], parsing: .unconditional, help: "FDSN: western edge.")
    var minlongitude: Double?
    @Option(name: [.long, .customLong("maxlon")], parsing: .unconditional, help: "FDSN: eastern edge.")
    var maxlongitude: Double?

    /// True when no filter flag is given.
    var isEmpty: Bool { (try? filter())?.key.isEmpty ?? false }

    func validate() throws { _ = try filter() }

    /// The filter the flags describe, as FDSN parameters and a time window.
    func filter() throws -> SyncFilter {
        var f = SyncFilter()
        func time(_ s: String, _ flag: String) throws -> Int64 {
            try DateArgument.parse(s, flag)
        }
        if let from { f.start = try time(from, DateArgument.typed(["--from", "--starttime", "--start"])) }
        if let to { f.end = try time(to, "--to") }
        if let endtime {
            guard to == nil else { throw ValidationError("give --to or --endtime, not both") }
            f.end = try time(endtime, DateArgument.typed(["--endtime", "--end"])) + 1
        }
        if let s = f.start, let e = f.end, s >= e { throw ValidationError("--from must come before --to") }
        if let a = minMag, let b = maxMag, a > b { throw ValidationError("--min-mag \(a) is above --max-mag \(b)") }
        if let a = minDepth, let b = maxDepth, a > b {
            throw ValidationError("--min-depth \(a) is above --max-depth \(b)")
        }
        if let r = reviewstatus, !["automatic", "reviewed", "all"].contains(r.lowercased()) {
            throw ValidationError("--reviewstatus: automatic, reviewed or all")
        }
        var p: [SyncFilter.Parameter] = []
        func add(_ name: String, _ v: Double?) {
            if let v { p.append(.init(name, String(v))) }
        }
        for (flag, v) in [("--min-mag", minMag), ("--max-mag", maxMag), ("--min-depth", minDepth),
                          ("--max-depth", maxDepth), ("--radius-km", radiusKm)] where v.map({ !$0.isFinite }) == true {
            throw ValidationError("\(flag): expected a finite number")
        }
        add("minmagnitude", minMag)
        add("maxmagnitude", maxMag)
        add("mindepth", minDepth)
        add("maxdepth", maxDepth)
        let edges = [minlatitude, maxlatitude, minlongitude, maxlongitude]
        if let bbox {
            guard edges.allSatisfy({ $0 == nil }) else {
                throw ValidationError("--bbox cannot be combined with the FDSN edges")
            }
            let v = bbox.split(separator: ",").compactMap { Double($0.trimmingBlanks) }
            guard v.count == 4, v[0] <= v[1], (-90...90).contains(v[0]), (-90...90).contains(v[1]),
                  (-180...180).contains(v[2]), (-180...180).contains(v[3]) else {
                throw ValidationError("--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat")
            }
            add("minlatitude", v[0])
            add("maxlatitude", v[1])
            add("minlongitude", v[2])
            add("maxlongitude", v[3] < v[2] ? v[3] + 360 : v[3])   // across 180°, as FDSN writes it
        } else {
            add("minlatitude", minlatitude)
            add("maxlatitude", maxlatitude)
            add("minlongitude", minlongitude)
            add("maxlongitude", maxlongitude)
        }
        if near != nil || radiusKm != nil {
            let c = (near ?? "").split(separator: ",").compactMap { Double($0.trimmingBlanks) }
            guard c.count == 2, (-90...90).contains(c[0]), (-180...180).contains(c[1]), let r = radiusKm, r >= 0 else {
                throw ValidationError("--near LAT,LON needs --radius-km R >= 0, and the other way round")
            }
            add("latitude", c[0])
            add("longitude", c[1])
            add("maxradiuskm", r)
        }
        for (name, v) in [("catalog", net), ("eventtype", type), ("magnitudetype", magType),
                          ("contributor", contributor), ("reviewstatus", reviewstatus)] {
            if let v { p.append(.init(name, v)) }
        }
        f = SyncFilter(start: f.start, end: f.end, parameters: p)
        return f
    }
}
