import Foundation
import QuakeFormat
import QuakeStore

/// What the page shows, read from its parameters (`/api/day`, `/api/download`; the page's own URL
/// uses the same names): a time window, a place search, a minimum magnitude, a region and an order.
///
/// The window is one of `day=YYYY-MM-DD`, `starttime=…&endtime=…` (FDSN times, endtime inclusive,
/// at most 31 days) or `last=1h|1d|7d|30d` (the past hour, day, week or month, ending now); with
/// none, the newest event's day. The rest are the FDSN service's parameters: `orderby`,
/// `minmagnitude`, `search` (its `placecontains`: case and diacritics ignored), and the box
/// `minlatitude`, `maxlatitude`, `minlongitude`, `maxlongitude` (longitudes up to ±360, so that a
/// box may run across 180°). So the list, the downloads and `quakes query` agree on every event.
struct ViewRequest: Sendable {
    /// The window's first millisecond and the one past its last.
    var start: Int64 = 0
    var end: Int64 = 0
    /// `YYYY-MM-DD` for a day's window; nil for a range or the past hours.
    var day: String?
    /// The window in words ("2019-07-06", "2019-07-01 to 2019-07-07", "past 7 days").
    var label = ""
    /// The window in a file name ("2019-07-06", "2019-07-01_2019-07-07", "last-7d").
    var fileLabel = ""
    /// The search, magnitude, region and order, with tombstones left out; the time is not in it.
    var rest: FDSNRequest
    /// True until ``resolve(newest:)`` has picked a day (no window was asked for).
    var needsNewestDay = false
    /// Whether the window depends on the clock: the past hours (`last`), or the newest day, which
    /// is today on an empty store.
    var followsClock: Bool { needsNewestDay || fileLabel.hasPrefix("last-") }

    static let columns: [Column] = [.id, .time, .mag, .place, .depth, .latitude, .longitude, .magType, .type]
    /// The longest range the page lists.
    static let maxSpan: Int64 = 31 * 86_400_000
    static let presets: [(name: String, ms: Int64, words: String)] = [
        ("1h", 3_600_000, "past hour"), ("1d", 86_400_000, "past day"),
        ("7d", 7 * 86_400_000, "past 7 days"), ("30d", 30 * 86_400_000, "past 30 days"),
    ]
    private static let passed: Set<String> = [
        "orderby", "minmagnitude", "minlatitude", "maxlatitude", "minlongitude", "maxlongitude",
    ]
    private static let ignored: Set<String> = ["selected", "map", "inview", "_"]

    /// - Parameters:
    ///   - formats: whether `format` is taken (downloads); the list's request refuses it.
    ///   - now: the clock, in milliseconds since 1970, for `last`.
    init(_ items: [(name: String, value: String)], formats: Bool = false,
         now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws(FDSNError) {
        var fdsn: [(name: String, value: String)] = []
        var day: String?, startText: String?, endText: String?, last: String?
        for (name, value) in items {
            switch name {
            case "day": day = value
            case "starttime": startText = value
            case "endtime": endText = value
            case "last": last = value
            case "search": if !value.isEmpty { fdsn.append(("placecontains", value)) }
            case "format" where formats: fdsn.append((name, value))
            case let parameter where Self.passed.contains(parameter): if !value.isEmpty { fdsn.append((name, value)) }
            case let parameter where Self.ignored.contains(parameter): continue
            default:
                throw .badRequest("Unknown parameter '\(name)': day, starttime, endtime, last, orderby, search, "
                    + "minmagnitude, minlatitude, maxlatitude, minlongitude, maxlongitude"
                    + (formats ? ", format" : ""))
            }
        }
        let names = Set(fdsn.map(\.name))
        guard names.count == fdsn.count else { throw .badRequest("A parameter is given more than once") }
        rest = try FDSNRequest(fdsn, maxEvents: .max)
        let windows = [day != nil, startText != nil || endText != nil, last != nil].filter { $0 }.count
        guard windows <= 1 else { throw .badRequest("Give one of day, starttime and endtime, or last") }
        if let day {
            guard day.utf8.count == 10, let dayStart = Timestamp.parse(day) else {
                let problem = day.utf8.count <= 40 ? DateParsing.problem(day) : nil
                throw .badRequest("Bad day value '\(day)': " + (problem ?? "use YYYY-MM-DD"))
            }
            setDay(dayStart)
        } else if startText != nil || endText != nil {
            guard let startText, let endText else { throw .badRequest("starttime and endtime go together") }
            start = try FDSNRequest.time(startText, "starttime", roundingUp: true)
            end = try FDSNRequest.time(endText, "endtime") + 1  // endtime is inclusive
            guard start < end else { throw .badRequest("starttime must be before endtime") }
            guard end - start <= Self.maxSpan + 1 else {
                throw .badRequest("The page lists at most 31 days: narrow starttime to endtime")
            }
            let firstDay = Self.dayText(start)
            let lastDay = Self.dayText(end - 1)
            label = firstDay == lastDay ? firstDay : "\(firstDay) to \(lastDay)"
            fileLabel = firstDay == lastDay ? firstDay : "\(firstDay)_\(lastDay)"
        } else if let last {
            guard let preset = Self.presets.first(where: { $0.name == last }) else {
                throw .badRequest("Bad last value '\(last)': use 1h, 1d, 7d or 30d")
            }
            end = now + 1
            start = end - preset.ms
            label = preset.words
            fileLabel = "last-" + preset.name
        } else {
            needsNewestDay = true
        }
    }

    private mutating func setDay(_ t: Int64) {
        start = t - ((t % 86_400_000) + 86_400_000) % 86_400_000
        end = start + 86_400_000
        let text = Self.dayText(start)
        day = text
        label = text
        fileLabel = text
    }

    /// With no window asked for: the day of `newest` (the newest event), or today with none.
    mutating func resolve(newest: Int64?, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        guard needsNewestDay else { return }
        setDay(newest ?? now)
        needsNewestDay = false
    }

    static func dayText(_ t: Int64) -> String {
        var out: [UInt8] = []
        Timestamp.format(t, into: &out)
        return String(decoding: out.prefix(10), as: UTF8.self)
    }

    var window: Filter { .timeRange(.time, lower: start, upper: end) }

    /// The whole window, tombstones left out: what "of N quakes" counts.
    var windowFilter: Filter { .conjunction([window, Filter.notDeleted]) }

    /// The window, searched and filtered: what the list holds.
    var filter: Filter { .conjunction([window, rest.filter]) }

    /// The list's query, in its order.
    var spec: QuerySpec { QuerySpec(filter: filter, sort: rest.sort) }
}
