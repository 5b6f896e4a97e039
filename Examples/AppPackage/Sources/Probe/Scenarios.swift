import Foundation
import QuakeStore

/// Writes `key=value` to standard output at once (unbuffered: a parent may be reading it live).
func report(_ key: String, _ value: String) {
    FileHandle.standardOutput.write(Data("\(key)=\(value)\n".utf8))
}

func report(_ key: String, _ value: Int) { report(key, String(value)) }

/// An error as fields: its kind, and its path, errno and position when it has them.
func report(_ e: QuakeError) {
    report("error", e.kind.rawValue)
    if let p = e.path { report("errorPath", p) }
    if let n = e.errno { report("errorErrno", Int(n)) }
    if let p = e.position { report("errorPosition", p.description) }
    report("errorHasDetail", e.detail.isEmpty ? "0" : "1")
}

/// The scenarios, one per risky item: each either finishes (its findings printed) or traps.
enum Scenario: String, CaseIterable {
    /// `load STORE FILE...`: loads the files as another process would (fresh-read tests).
    case load
    /// `load-announce STORE FILE...`: a load that prints `reading=1` at its first progress report.
    case loadAnnounce = "load-announce"
    /// `fetchLimit = .max` with each of several sorts.
    case limitMax = "limit-max"
    /// Limits and offsets near `Int.max`, whose sums overflow.
    case limitHuge = "limit-huge"
    /// `enumerate(batchSize: .max)` and `fetchCursor(batchSize: .max)`.
    case enumerateMax = "enumerate-max"
    /// `fetchSections(limitPerSection: .max)`.
    case sectionsMax = "sections-max"
    /// `invalid STORE NAME`: one bad argument (see ``InvalidCall``), which must throw.
    case invalid
    /// A bin width so small that `value / width` leaves the range of an integer.
    case binTiny = "bin-tiny"

    func run(store path: String, arguments: [String]) throws {
        switch self {
        case .load, .loadAnnounce:
            try probeLoad(path, arguments, announce: self == .loadAnnounce)
        case .limitMax:
            try probeLimitMax(Store(path: path))
        case .limitHuge:
            try probeLimitHuge(Store(path: path))
        case .enumerateMax:
            try probeEnumerateMax(Store(path: path))
        case .sectionsMax:
            try probeSectionsMax(Store(path: path))
        case .invalid:
            guard let name = arguments.first, let call = InvalidCall(rawValue: name) else {
                report("error", "unknownCall")
                return
            }
            try call.run(Store(path: path))
        case .binTiny:
            try probeBinTiny(Store(path: path))
        }
    }
}

/// What the first progress report has been seen: only the first one announces.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    /// True the first time only.
    func first() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        done = true
        return true
    }
}

func probeLoad(_ path: String, _ files: [String], announce: Bool) throws {
    let store = try Store.openOrCreate(path: path)
    var options = LoadOptions()
    if announce {
        let once = Once()
        options.onProgress = { _ in if once.first() { report("reading", "1") } }
    }
    let summary = try store.load(files, options: options)
    report("new", summary.new)
    report("updated", summary.updated)
    report("committed", summary.committed ? "1" : "0")
    report("generation", try store.info().generation)
}

/// The sorts the limit scenarios try: native ones, nil-first ones and in-memory ones.
let probeSorts: [(String, [SortDescriptor<Quake>])] = [
    ("magnitudeReverse", [SortDescriptor(\.magnitude, order: .reverse)]),
    ("magnitude", [SortDescriptor(\.magnitude)]),
    ("timeReverse", [SortDescriptor(\.time, order: .reverse)]),
    ("depth", [SortDescriptor(\.depth), SortDescriptor(\.time)]),
    ("placeLexical", [SortDescriptor(\.place, comparator: .lexical)]),
    ("placeLocalized", [SortDescriptor(\.place)]),
]

func probeLimitMax(_ store: Store) throws {
    report("all", try store.fetchCount(FetchDescriptor()))
    for (name, sort) in probeSorts {
        var d = FetchDescriptor<Quake>(sortBy: sort)
        d.fetchLimit = .max
        report("fetch.\(name)", try store.fetch(d).count)
        report("count.\(name)", try store.fetchCount(d))
        report("ids.\(name)", try store.fetchIdentifiers(d).count)
    }
}

func probeLimitHuge(_ store: Store) throws {
    let all = try store.fetchCount(FetchDescriptor())
    report("all", all)
    let cases: [(String, Int, Int, Int)] = [
        // name, limit, offset, the count expected
        ("nearMax", Int.max - 1, 1, max(0, all - 1)),
        ("maxOffsetMax", Int.max, Int.max, 0),
        ("halves", Int.max / 2 + 1, Int.max / 2 + 1, 0),
        ("maxOffset3", Int.max, 3, max(0, all - 3)),
    ]
    for (name, limit, offset, expected) in cases {
        report("expected.\(name)", expected)
        for (sortName, sort) in probeSorts.prefix(3) {
            var d = FetchDescriptor<Quake>(sortBy: sort)
            d.fetchLimit = limit
            d.fetchOffset = offset
            report("fetch.\(name).\(sortName)", try store.fetch(d).count)
            report("count.\(name).\(sortName)", try store.fetchCount(d))
            var n = 0
            try store.enumerate(d, batchSize: 1000) { _ in n += 1 }
            report("enumerate.\(name).\(sortName)", n)
        }
    }
}

func probeEnumerateMax(_ store: Store) throws {
    report("all", try store.fetchCount(FetchDescriptor()))
    for (name, sort) in probeSorts {
        var n = 0
        try store.enumerate(FetchDescriptor(sortBy: sort), batchSize: .max) { _ in n += 1 }
        report("enumerate.\(name)", n)
        let cursor = try store.fetchCursor(FetchDescriptor(sortBy: sort), batchSize: .max)
        var m = 0
        while try cursor.next() != nil { m += 1 }
        report("cursor.\(name)", m)
        var limited = FetchDescriptor<Quake>(sortBy: sort)
        limited.fetchLimit = .max
        var k = 0
        try store.enumerate(limited, batchSize: .max) { _ in k += 1 }
        report("enumerateLimitMax.\(name)", k)
    }
}

func probeSectionsMax(_ store: Store) throws {
    report("all", try store.fetchCount(FetchDescriptor()))
    let keys: [(String, GroupBy)] = [("net", .value(.net)), ("month", .time(.month)), ("mag", .bin(.mag, width: 1))]
    for (name, key) in keys {
        let sections = try store.fetchSections(FetchDescriptor(), by: key, limitPerSection: .max)
        report("elements.\(name)", sections.reduce(0) { $0 + $1.count })
        report("totals.\(name)", sections.reduce(0) { $0 + $1.totalCount })
        var d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.time, order: .reverse)])
        d.fetchLimit = .max
        let paged = try store.fetchSections(d, by: key, limitPerSection: .max)
        report("pagedElements.\(name)", paged.reduce(0) { $0 + $1.count })
        report("pagedTotals.\(name)", paged.reduce(0) { $0 + $1.totalCount })
    }
}

func probeBinTiny(_ store: Store) throws {
    let rows = try store.aggregate(nil, by: [.bin(.depth, width: 1e-300)], metrics: [.count])
    report("groups", rows.count)
    report("nilGroup", Int(rows.first { $0.keys[0] == nil }?.value(.count) ?? 0))
    report("nilDepth", try store.fetchCount(FetchDescriptor(predicate: #Predicate { $0.depth == nil })))
    report("total", Int(rows.reduce(0) { $0 + ($1.value(.count) ?? 0) }))
}

/// One call with an argument out of its range. Each must throw `invalidArgument`.
enum InvalidCall: String, CaseIterable {
    case avgNet = "avg-net"
    case sumPlace = "sum-place"
    case binNet = "bin-net"
    case binZero = "bin-zero"
    case binNegative = "bin-negative"
    case binNaN = "bin-nan"
    case percentile150 = "percentile-150"
    case percentileNegative = "percentile-negative"
    case offsetNegative = "offset-negative"
    case limitNegative = "limit-negative"
    case countLimitNegative = "count-limit-negative"
    case batchZero = "batch-zero"
    case batchNegative = "batch-negative"
    case cursorZero = "cursor-zero"
    case sectionsNegative = "sections-negative"
    case sectionsBinZero = "sections-bin-zero"

    func run(_ store: Store) throws {
        switch self {
        case .avgNet: try aggregate(store, [], [.avg(.net)])
        case .sumPlace: try aggregate(store, [], [.sum(.place)])
        case .binNet: try aggregate(store, [.bin(.net, width: 1)], [.count])
        case .binZero: try aggregate(store, [.bin(.mag, width: 0)], [.count])
        case .binNegative: try aggregate(store, [.bin(.mag, width: -0.5)], [.count])
        case .binNaN: try aggregate(store, [.bin(.mag, width: .nan)], [.count])
        case .percentile150: try aggregate(store, [], [.percentile(150, .mag)])
        case .percentileNegative: try aggregate(store, [], [.percentile(-1, .mag)])
        case .offsetNegative:
            var d = FetchDescriptor<Quake>()
            d.fetchOffset = -5
            report("result", try store.fetch(d).count)
        case .limitNegative:
            var d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
            d.fetchLimit = -1
            report("result", try store.fetch(d).count)
        case .countLimitNegative:
            var d = FetchDescriptor<Quake>()
            d.fetchLimit = -1
            report("result", try store.fetchCount(d))
        case .batchZero:
            var n = 0
            try store.enumerate(FetchDescriptor(), batchSize: 0) { _ in n += 1 }
            report("result", n)
        case .batchNegative:
            var n = 0
            try store.enumerate(FetchDescriptor(), batchSize: -3) { _ in n += 1 }
            report("result", n)
        case .cursorZero:
            let c = try store.fetchCursor(FetchDescriptor(), batchSize: 0)
            report("result", try c.next() == nil ? 0 : 1)
        case .sectionsNegative:
            report("result", try store.fetchSections(FetchDescriptor(), by: .value(.net), limitPerSection: -1).count)
        case .sectionsBinZero:
            report("result", try store.fetchSections(FetchDescriptor(), by: .bin(.depth, width: 0)).count)
        }
    }

    private func aggregate(_ store: Store, _ groups: [GroupBy], _ metrics: [Metric]) throws {
        let rows = try store.aggregate(nil, by: groups, metrics: metrics)
        report("result", rows.count)
        report("firstKey", rows.first?.keys.first.map { $0 ?? "nil" } ?? "none")
    }
}
