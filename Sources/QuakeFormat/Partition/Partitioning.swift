/// How events are bucketed into partitions by their time (UTC).
///
/// A store keeps one file per partition, so the partitioning is the grain of pruning (a query
/// for one day reads only the partitions that overlap it) and of rewriting (a load rewrites
/// the partitions it touches): smaller partitions make small loads cheaper, larger ones mean
/// fewer files. It is chosen when the store is created, with
/// ``Store/openOrCreate(path:partitioning:)`` (`month` by default), and fixed from then on.
public enum Partitioning: String, Codable, Sendable, CaseIterable {
    /// One partition per UTC day, keyed `2024-06-15`.
    case day
    /// One partition per UTC month, keyed `2024-06`.
    case month
    /// One partition per UTC year, keyed `2024`.
    case year

    /// A dense number for the partition holding `t`: day number, `year * 12 + month - 1`, or year.
    @inline(__always)
    package func ordinal(_ t: Int64) -> Int {
        let day = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        if self == .day { return day }
        let (yearNumber, monthNumber, _) = Timestamp.civil(days: day)
        return self == .month ? yearNumber * 12 + monthNumber - 1 : yearNumber
    }

    /// The first instant of partition `o`, in epoch milliseconds.
    package func start(ordinal o: Int) -> Int64 {
        switch self {
        case .day: return Int64(o) * 86_400_000
        case .month:
            let yearNumber = o >= 0 ? o / 12 : (o - 11) / 12
            return Int64(Timestamp.days(year: yearNumber, month: o - yearNumber * 12 + 1, day: 1)) * 86_400_000
        case .year: return Int64(Timestamp.days(year: o, month: 1, day: 1)) * 86_400_000
        }
    }

    /// The key of partition `o`.
    package func key(ordinal o: Int) -> String { key(start(ordinal: o)) }

    /// The partition key of an epoch-milliseconds time: `2011-03-11`, `2011-03` or `2011`.
    package func key(_ t: Int64) -> String {
        let day = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let (yearNumber, monthNumber, dayNumber) = Timestamp.civil(days: day)
        guard (0...9999).contains(yearNumber) else {
            func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let year = String(format4: yearNumber)
            switch self {
            case .day: return "\(year)-\(two(monthNumber))-\(two(dayNumber))"
            case .month: return "\(year)-\(two(monthNumber))"
            case .year: return year
            }
        }
        // digits written straight into a small string: a manifest read checks every partition's key
        let length = self == .day ? 10 : self == .month ? 7 : 4
        // SAFETY: yearNumber is in 0...9999 (the guard), monthNumber and dayNumber have two digits, so every write
        // b[position] has position < length,
        // the capacity asked for, and all `length` bytes are written before they are counted.
        return String(unsafeUninitializedCapacity: length) { b in
            func digits(_ v: Int, _ at: Int, _ n: Int) {
                var remaining = v, position = at + n - 1
                while position >= at {
                    b[position] = UInt8(48 + remaining % 10)
                    remaining /= 10
                    position -= 1
                }
            }
            digits(yearNumber, 0, 4)
            if length > 4 {
                b[4] = UInt8(ascii: "-")
                digits(monthNumber, 5, 2)
            }
            if length > 7 {
                b[7] = UInt8(ascii: "-")
                digits(dayNumber, 8, 2)
            }
            return length
        }
    }

    /// The start of the partition holding `t`, and of the next one, in epoch milliseconds.
    package func span(_ t: Int64) -> (start: Int64, end: Int64) {
        let day = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let (yearNumber, monthNumber, _) = Timestamp.civil(days: day)
        let ms: (Int) -> Int64 = { Int64($0) * 86_400_000 }
        switch self {
        case .day: return (ms(day), ms(day + 1))
        case .month:
            let startDay = Timestamp.days(year: yearNumber, month: monthNumber, day: 1)
            let endDay = monthNumber == 12 ? Timestamp.days(year: yearNumber + 1, month: 1, day: 1)
                : Timestamp.days(year: yearNumber, month: monthNumber + 1, day: 1)
            return (ms(startDay), ms(endDay))
        case .year:
            return (ms(Timestamp.days(year: yearNumber, month: 1, day: 1)),
                    ms(Timestamp.days(year: yearNumber + 1, month: 1, day: 1)))
        }
    }
}

extension String {
    package init(format4 v: Int) {
        let digits = String(abs(v))
        self = (v < 0 ? "-" : "") + String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}
