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
    @Option(name: [.customLong("endtime"), .customLong("end")], help: "FDSN end time, inclusive.")
    var endtime: String?
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
    @Option(name: [.long, .customLong("catalog")], help: "Networks (FDSN catalog), comma-separated.")
    var net: String?
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
        let window = try timeWindow()
        try checkRanges()
        var parameters: [SyncFilter.Parameter] = []
        Self.add("minmagnitude", minMag, to: &parameters)
        Self.add("maxmagnitude", maxMag, to: &parameters)
        Self.add("mindepth", minDepth, to: &parameters)
        Self.add("maxdepth", maxDepth, to: &parameters)
        try addBox(to: &parameters)
        try addCircle(to: &parameters)
        for (name, value) in [("catalog", net), ("eventtype", type), ("magnitudetype", magType),
                              ("contributor", contributor), ("reviewstatus", reviewstatus)] {
            if let value { parameters.append(.init(name, value)) }
        }
        return SyncFilter(start: window.start, end: window.end, parameters: parameters)
    }

    /// `--from`, `--to` and `--endtime` as a window: start inclusive, end exclusive.
    private func timeWindow() throws -> (start: Int64?, end: Int64?) {
        func time(_ text: String, _ flag: String) throws -> Int64 {
            try DateArgument.parse(text, flag)
        }
        var start: Int64?
        var end: Int64?
        if let from { start = try time(from, DateArgument.typed(["--from", "--starttime", "--start"])) }
        if let to { end = try time(to, "--to") }
        if let endtime {
            guard to == nil else { throw ValidationError("give --to or --endtime, not both") }
            end = try time(endtime, DateArgument.typed(["--endtime", "--end"])) + 1
        }
        if let start, let end, start >= end { throw ValidationError("--from must come before --to") }
        return (start, end)
    }

    /// The checks of the magnitude and depth ranges, `--reviewstatus` and the finite numbers.
    private func checkRanges() throws {
        if let low = minMag, let high = maxMag, low > high {
            throw ValidationError("--min-mag \(low) is above --max-mag \(high)")
        }
        if let low = minDepth, let high = maxDepth, low > high {
            throw ValidationError("--min-depth \(low) is above --max-depth \(high)")
        }
        if let status = reviewstatus, !["automatic", "reviewed", "all"].contains(status.lowercased()) {
            throw ValidationError("--reviewstatus: automatic, reviewed or all")
        }
        for (flag, value) in [("--min-mag", minMag), ("--max-mag", maxMag), ("--min-depth", minDepth),
                              ("--max-depth", maxDepth), ("--radius-km", radiusKm)]
        where value.map({ !$0.isFinite }) == true {
            throw ValidationError("\(flag): expected a finite number")
        }
    }

    /// `--bbox`, or the FDSN edges, as the service's box parameters.
    private func addBox(to parameters: inout [SyncFilter.Parameter]) throws {
        let edges = [minlatitude, maxlatitude, minlongitude, maxlongitude]
        guard let bbox else {
            Self.add("minlatitude", minlatitude, to: &parameters)
            Self.add("maxlatitude", maxlatitude, to: &parameters)
            Self.add("minlongitude", minlongitude, to: &parameters)
            Self.add("maxlongitude", maxlongitude, to: &parameters)
            return
        }
        guard edges.allSatisfy({ $0 == nil }) else {
            throw ValidationError("--bbox cannot be combined with the FDSN edges")
        }
        let box = bbox.split(separator: ",").compactMap { Double($0.trimmingBlanks) }
        guard box.count == 4, box[0] <= box[1], (-90...90).contains(box[0]), (-90...90).contains(box[1]),
              (-180...180).contains(box[2]), (-180...180).contains(box[3]) else {
            throw ValidationError("--bbox: expected minLat,maxLat,minLon,maxLon with minLat <= maxLat")
        }
        Self.add("minlatitude", box[0], to: &parameters)
        Self.add("maxlatitude", box[1], to: &parameters)
        Self.add("minlongitude", box[2], to: &parameters)
        // across 180°, as FDSN writes it
        Self.add("maxlongitude", box[3] < box[2] ? box[3] + 360 : box[3], to: &parameters)
    }

    /// `--near` and `--radius-km` as the service's circle parameters.
    private func addCircle(to parameters: inout [SyncFilter.Parameter]) throws {
        guard near != nil || radiusKm != nil else { return }
        let center = (near ?? "").split(separator: ",").compactMap { Double($0.trimmingBlanks) }
        guard center.count == 2, (-90...90).contains(center[0]), (-180...180).contains(center[1]),
              let radius = radiusKm, radius >= 0 else {
            throw ValidationError("--near LAT,LON needs --radius-km R >= 0, and the other way round")
        }
        Self.add("latitude", center[0], to: &parameters)
        Self.add("longitude", center[1], to: &parameters)
        Self.add("maxradiuskm", radius, to: &parameters)
    }

    private static func add(_ name: String, _ value: Double?, to parameters: inout [SyncFilter.Parameter]) {
        if let value { parameters.append(.init(name, String(value))) }
    }
}
