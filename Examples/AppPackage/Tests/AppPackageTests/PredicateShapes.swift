import Foundation
import QuakeStore
import Testing

/// The predicate shapes the semantics tests compare with Foundation's own `evaluate`, by name.
enum PredicateShapes {
    static let cutoff = Date(timeIntervalSince1970: 1_530_000_000)   // 2018-06-26
    static let end = Date(timeIntervalSince1970: 1_600_000_000)
    static let name = "Hawaii"
    static let minimum = 4.5

    static var all: [(name: String, predicate: Predicate<Quake>)] { [
        ("forced >= 4.5", #Predicate { $0.magnitude! >= 4.5 }),
        ("nil test && forced", #Predicate { $0.magnitude != nil && $0.magnitude! >= 4.5 }),
        ("== nil || forced", #Predicate { $0.magnitude == nil || $0.magnitude! > 2 }),
        ("forced arithmetic", #Predicate { $0.magnitude! * 2 > 9 }),
        ("?? >= captured", #Predicate { ($0.magnitude ?? 0) >= minimum }),
        ("?? arithmetic", #Predicate { ($0.gap ?? 0) * 1.0 > 100 }),
        ("?? negative default", #Predicate { ($0.depth ?? -1) < 0 }),
        ("?? string contains", #Predicate { ($0.place ?? "").contains("CA") }),
        ("optional chain contains", #Predicate { $0.place?.contains("Alaska") == true }),
        ("captured contains", #Predicate { ($0.place ?? "").contains(name) }),
        ("not contains", #Predicate { !($0.place ?? "").contains("Hawaii") }),
        ("forced place contains", #Predicate { $0.place!.contains("km") }),
        ("ternary", #Predicate { $0.magnitude != nil ? $0.magnitude! > 3 : false }),
        ("flatMap", #Predicate { $0.magnitude.flatMap { $0 > 3 } ?? false }),
        ("not and", #Predicate { !(($0.magnitude ?? 0) > 2) && $0.depth != nil }),
        ("or of equals", #Predicate { $0.net == "us" || $0.net == "hv" }),
        ("and equal", #Predicate { $0.magType == "ml" && ($0.magnitude ?? 0) >= 1 }),
        ("coordinates box", #Predicate { $0.latitude > 19 && $0.latitude < 20 && $0.longitude < -155 }),
        ("time captured", #Predicate { $0.time >= cutoff }),
        ("time range", #Predicate { $0.time >= cutoff && $0.time < end }),
        ("forced or forced", #Predicate { $0.depth! > 10 || $0.magnitude! > 3 }),
        ("forced first and", #Predicate { $0.magnitude! >= 4.5 && $0.net == "us" }),
        ("forced after and", #Predicate { $0.net == "us" && $0.magnitude! >= 4.5 }),
        ("int nil", #Predicate { $0.nst == nil }),
        ("int ??", #Predicate { ($0.nst ?? 0) > 20 }),
        ("status !=", #Predicate { ($0.status ?? "") != "reviewed" }),
        ("optional ==", #Predicate { $0.status == "automatic" }),
        ("id starts", #Predicate { $0.id.starts(with: "ci") }),
        ("double ==", #Predicate { $0.magnitude == 2.5 }),
        ("not of or", #Predicate { !($0.net == "ci" || ($0.depth ?? 0) > 5) }),
        ("true", #Predicate { _ in true }),
        ("false", #Predicate { _ in false }),
    ] }

    static var names: [String] { all.map(\.name) }

    static func named(_ n: String) -> Predicate<Quake>? { all.first { $0.name == n }?.predicate }
}

/// The sorts compared with Foundation's `sorted(using:)`, by name.
enum SortShapes {
    static var all: [(name: String, sort: [SortDescriptor<Quake>])] { [
        ("magnitude", [SortDescriptor(\.magnitude)]),
        ("magnitude reverse", [SortDescriptor(\.magnitude, order: .reverse)]),
        ("depth", [SortDescriptor(\.depth)]),
        ("depth reverse", [SortDescriptor(\.depth, order: .reverse)]),
        ("place default comparator", [SortDescriptor(\.place)]),
        ("place lexical", [SortDescriptor(\.place, comparator: .lexical)]),
        ("place lexical reverse", [SortDescriptor(\.place, comparator: .lexical, order: .reverse)]),
        ("time", [SortDescriptor(\.time)]),
        ("time reverse", [SortDescriptor(\.time, order: .reverse)]),
        ("net lexical, magnitude reverse", [SortDescriptor(\.net, comparator: .lexical),
                                            SortDescriptor(\.magnitude, order: .reverse)]),
        ("magnitude reverse, depth", [SortDescriptor(\.magnitude, order: .reverse), SortDescriptor(\.depth)]),
        ("net, time", [SortDescriptor(\.net), SortDescriptor(\.time)]),
        ("nst, gap reverse", [SortDescriptor(\.nst), SortDescriptor(\.gap, order: .reverse)]),
    ] }

    static var names: [String] { all.map(\.name) }

    static func named(_ n: String) -> [SortDescriptor<Quake>]? { all.first { $0.name == n }?.sort }
}

/// The events `evaluate` keeps, or nil when it throws for one of them.
func evaluated(_ p: Predicate<Quake>, _ quakes: [Quake]) -> [Quake]? {
    try? quakes.filter { try p.evaluate($0) }
}

/// Foundation's order with the store's tie-break, the id in code-point order, as the final key.
func foundationOrder(_ quakes: [Quake], _ sort: [SortDescriptor<Quake>]) -> [String] {
    quakes.sorted(using: sort + [SortDescriptor(\.id, comparator: .lexical)]).map(\.id)
}

/// The first index where two id lists differ, or -1.
func firstDifference(_ a: [String], _ b: [String]) -> Int {
    for k in 0..<min(a.count, b.count) where a[k] != b[k] { return k }
    return a.count == b.count ? -1 : min(a.count, b.count)
}

/// Folding for a search that ignores case and diacritics.
func folded(_ s: String) -> String {
    s.lowercased().folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
}

/// Records an issue when two id lists differ, naming the counts and the first difference (not
/// the whole lists, which can hold 40,000 ids).
func expectSameIds(_ got: [String], _ want: [String], _ label: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let k = firstDifference(got, want)
    if k >= 0 {
        let near = { (ids: [String]) in Array(ids[min(ids.count, max(0, k - 2))..<min(ids.count, k + 3)]) }
        let text = "\(label): \(got.count) ids, Foundation's \(want.count); first difference at \(k): "
            + "got \(near(got)), Foundation \(near(want))"
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}
