import Foundation
import QuakeFormat
import QuakeStore

/// The page's data request, `/api/day?day=YYYY-MM-DD&orderby=...&search=TEXT&minmagnitude=M`:
/// one UTC day's events, filtered by a place search (case and diacritics ignored, as
/// `localizedStandardContains`) and a minimum magnitude, in one of the four FDSN orders.
struct DayRequest: Sendable {
    /// The day's first millisecond; nil until ``resolve(newest:)`` picks the newest event's day.
    var day: Int64 = 0
    var dayText = ""
    var sort: [SortKey] = [SortKey(.time, ascending: false)]
    var search: String?
    var minMagnitude: Double?

    static let columns: [Column] = [.id, .time, .mag, .place, .depth, .latitude, .longitude, .magType, .type]

    init(_ items: [(name: String, value: String)]) throws(FDSNError) {
        var day: String?
        for (name, value) in items {
            switch name {
            case "day": day = value
            case "orderby":
                switch value {
                case "time": sort = [SortKey(.time, ascending: false)]
                case "time-asc": sort = [SortKey(.time, ascending: true)]
                case "magnitude": sort = [SortKey(.mag, ascending: false)]
                case "magnitude-asc": sort = [SortKey(.mag, ascending: true)]
                default: throw .badRequest("Bad orderby value '\(value)': use time, time-asc, magnitude or magnitude-asc")
                }
            case "search":
                guard value.utf8.count <= 200 else { throw .badRequest("search: at most 200 bytes") }
                search = value.isEmpty ? nil : value
            case "minmagnitude":
                if value.isEmpty { continue }
                guard value.utf8.count <= 20, let m = Double(value), m.isFinite, (-10...12).contains(m) else {
                    throw .badRequest("Bad minmagnitude value '\(value)': a number in -10...12")
                }
                minMagnitude = m
            case "selected", "_": continue
            default: throw .badRequest("Unknown parameter '\(name)': day, orderby, search, minmagnitude")
            }
        }
        guard let day else { return }
        guard day.utf8.count == 10, let t = Timestamp.parse(day) else {
            throw .badRequest("Bad day value '\(day)': use YYYY-MM-DD")
        }
        self.day = t
        dayText = day
    }

    /// When no day was asked for: the day of `newest` (the newest event), or today with none.
    mutating func resolve(newest: Int64?) {
        guard dayText.isEmpty else { return }
        let t = newest ?? Int64(Date().timeIntervalSince1970 * 1000)
        day = t - ((t % 86_400_000) + 86_400_000) % 86_400_000
        var out: [UInt8] = []
        Timestamp.format(day, into: &out)
        dayText = String(decoding: out.prefix(10), as: UTF8.self)
    }

    /// The whole day, tombstones left out.
    var dayFilter: Filter { .conjunction([.timeRange(.time, lower: day, upper: day + 86_400_000), Filter.notDeleted]) }

    /// The day, searched and filtered.
    var filter: Filter {
        var parts = [dayFilter]
        if let search { parts.append(.contains(.place, CanonicalText.nfc(search), insensitive: true)) }
        if let minMagnitude { parts.append(.numberRange(.mag, lower: .init(minMagnitude), upper: nil)) }
        return .conjunction(parts)
    }
}
