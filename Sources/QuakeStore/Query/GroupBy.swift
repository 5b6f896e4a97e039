import Foundation
import QuakeFormat

/// A grouping dimension for aggregates and sections.
///
/// ```swift
/// let byMonth: GroupBy = .time(.month)                 // keys 2024-01, 2024-02, ...
/// let bySixHours: GroupBy = .interval(milliseconds: 6 * 3_600_000)  // time:6h
/// let byHour: GroupBy = .part(.hourOfDay)              // keys 0 ... 23
/// let byNet: GroupBy = .value(.net)                    // keys us, ci, ak, ...
/// let byRegion: GroupBy = .region                      // "10 km NE of Ridgecrest, CA" → "Ridgecrest, CA"
/// let byHalfMag: GroupBy = .bin(.mag, width: 0.5)      // keys 4, 4.5, 5, ... (bin starts)
/// ```
///
/// Used by ``Store/aggregate(_:by:metrics:)`` (up to eight at once) and
/// ``Store/fetchSections(_:by:limitPerSection:)``.
public enum GroupBy: Sendable, Equatable, CustomStringConvertible {
    /// A UTC calendar bucket of ``Quake/time``: `hour`, `day`, `week` (starting on Monday),
    /// `month` or `year`. Its raw value is the name the CLI's `--by` takes and the key's name.
    public enum TimeBucket: String, Sendable, CaseIterable {
        /// The UTC hour.
        case hour
        /// The UTC day.
        case day
        /// The week, Monday to Sunday, UTC.
        case week
        /// The calendar month, UTC.
        case month
        /// The calendar year, UTC.
        case year
    }

    /// A cyclic part of ``Quake/time`` (UTC), as DuckDB's date parts: its raw value is the
    /// CLI's name.
    public enum DatePart: String, Sendable, CaseIterable {
        /// The hour of the day, 0 to 23.
        case hourOfDay = "hourofday"
        /// The day of the week, 0 (Sunday) to 6 (Saturday), as DuckDB's `dayofweek`.
        case dayOfWeek = "dayofweek"
        /// The quarter of the year, 1 to 4.
        case quarter
    }

    /// UTC time buckets (weeks start on Monday).
    case time(TimeBucket)
    /// Fixed-length time buckets (`time:6h`), aligned as DuckDB's `time_bucket`: on Monday
    /// 2000-01-03 00:00 UTC. Keys are each bucket's start.
    case interval(milliseconds: Int64)
    /// A cyclic part of the time (hour of day, day of week, quarter).
    case part(DatePart)
    /// The part of ``Quake/place`` after "N km DIR of " (USGS's "10 km NE of Ridgecrest, CA"
    /// is "Ridgecrest, CA"), or the whole place when it does not read that way.
    case region
    /// The values of a string column (net, magType, type, status, place, ...).
    case value(Column)
    /// Fixed-width bins of a numeric column: `mag:0.5`, `depth:10`.
    case bin(Column, width: Double)

    /// The origin of ``interval(milliseconds:)`` buckets: Monday 2000-01-03 00:00 UTC, DuckDB's.
    package static let intervalOrigin: Int64 = 946_857_600_000

    /// Parses the CLI's `--by` text: `hour|day|week|month|year`, `time:N(m|h|d|w)`,
    /// `hourofday|dayofweek|quarter`, `region`, a string column's USGS name (`net`, `magType`,
    /// `type`, `status`, `place`, ...), or a numeric column and a bin width (`mag:0.5`,
    /// `depth:10`). Nil for anything else.
    public init?(parsing text: String) {
        if let bucket = TimeBucket(rawValue: text) {
            self = .time(bucket)
            return
        }
        if let part = DatePart(rawValue: text.lowercased()) {
            self = .part(part)
            return
        }
        if text == "region" {
            self = .region
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, parts[0] == "time" {
            guard let length = GroupBy.milliseconds(parts[1]) else { return nil }
            self = .interval(milliseconds: length)
            return
        }
        guard let column = Column(name: parts[0]) else { return nil }
        if parts.count == 2 {
            guard let width = Double(parts[1]), width > 0, column.kind == .decimal else { return nil }
            self = .bin(column, width: width)
        } else if parts.count == 1, column.kind == .category || column.kind == .text || column.kind == .place {
            self = .value(column)
        } else {
            return nil
        }
    }

    /// `15m`, `6h`, `2d`, `1w` in milliseconds; nil for anything else.
    private static func milliseconds(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count > 0, count <= 100_000 else { return nil }
        switch unit {
        case "m": return count * 60_000
        case "h": return count * 3_600_000
        case "d": return count * 86_400_000
        case "w": return count * 7 * 86_400_000
        default: return nil
        }
    }

    /// The grouping's name, as ``init(parsing:)`` reads it (`month`, `net`), which also names
    /// its key in an ``AggregateRow``.
    public var description: String { spelled(\.name) }

    /// The key's name after the ``Quake`` property: `day`, `net`, `magnitude:0.5`.
    public var key: String { spelled(\.propertyName) }

    /// Whether the key is a number (a bin, a date part or a year) in typed output (JSON, Arrow).
    public var isNumeric: Bool {
        switch self {
        case .bin, .part, .time(.year): return true
        default: return false
        }
    }

    /// The name, with each column spelled by `name`.
    private func spelled(_ name: (Column) -> String) -> String {
        switch self {
        case .time(let bucket): return bucket.rawValue
        case .interval(let length): return "time:" + GroupBy.lengthText(length)
        case .part(let part): return part.rawValue
        case .region: return "region"
        case .value(let column): return name(column)
        case .bin(let column, let width): return "\(name(column)):\(ScaledDecimal.trimmed(width))"
        }
    }

    /// `6h`, `90m`, `2w`: the largest unit that divides the length.
    private static func lengthText(_ length: Int64) -> String {
        for (unit, size) in [("w", Int64(7 * 86_400_000)), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000)]
        where length % size == 0 {
            return "\(length / size)\(unit)"
        }
        return "\(length)ms"
    }

    /// Throws ``QuakeError/Kind/invalidArgument`` for a grouping the column cannot take: values
    /// of a numeric column, bins of a text column, or a bin width or interval that is not
    /// finite and positive.
    package func validate() throws(QuakeError) {
        switch self {
        case .time, .part, .region: return
        case .interval(let length):
            guard length > 0 && length <= 100_000 * 7 * 86_400_000 else {
                throw .argument("GroupBy.interval", "a positive length of at most 100,000 weeks, not \(length) ms")
            }
        case .value(let column):
            guard column.kind == .category || column.kind == .text || column.kind == .place else {
                throw .argument("GroupBy.value(\(column.propertyName))", "a text property (net, magType, place, ...); "
                    + "bin a number with .bin(_:width:)")
            }
        case .bin(let column, let width):
            guard column.kind == .decimal else {
                throw .argument("GroupBy.bin(\(column.propertyName))", "a numeric property (magnitude, depth, ...)")
            }
            guard width.isFinite && width > 0 && width <= 1e12 else {
                throw .argument("the bin width", "finite and greater than 0, not \(width)")
            }
        }
    }
}

extension ScaledDecimal {
    /// A double as short text (`0.5`, `10`).
    package static func trimmed(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
