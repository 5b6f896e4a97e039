/// A strptime pattern for feed times that are not ISO 8601 (`quakes load --time-format`), with
/// the codes DuckDB's `strptime` and C's take:
///
/// | code | meaning |
/// |---|---|
/// | `%Y` | year, 4 digits |
/// | `%y` | year, 2 digits: 00-68 are 2000-2068, 69-99 are 1969-1999 (the POSIX rule) |
/// | `%m`, `%d` | month and day, 1 or 2 digits |
/// | `%b`, `%B` | month name, abbreviated or full, English, any case |
/// | `%H`, `%I` | hour, 24-hour or 12-hour (with `%p`), 1 or 2 digits |
/// | `%M`, `%S` | minute and second, 1 or 2 digits |
/// | `%f` | fraction of a second, 1 to 9 digits (kept to the millisecond) |
/// | `%p` | AM or PM |
/// | `%z` | `Z`, `±HH:MM` or `±HHMM`: the time is converted to UTC |
/// | `%T` | `%H:%M:%S` |
/// | `%%` | a percent sign |
///
/// Other characters match themselves; a space matches one or more spaces. Times without `%z`
/// are UTC, as USGS writes them.
public struct TimeFormat: Sendable, Equatable {
    package enum Error: Swift.Error, Equatable { case badPattern(String) }

    private enum Piece: Equatable {
        case literal(UInt8), space
        case year4, year2, month, monthName, day, hour, hour12, minute, second, fraction, ampm, zone
    }

    /// The pattern as given.
    public let pattern: String
    private let pieces: [Piece]

    /// The format `pattern` describes, such as `"%d-%m-%y %H:%M"` (see the table above).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a lone `%` or a code this reader does not know.
    public init(pattern: String) throws(QuakeError) {
        do {
            try self.init(pattern)
        } catch {
            switch error {
            case .badPattern(let detail): throw QuakeError(.invalidArgument, detail: "time format " + detail)
            }
        }
    }

    package init(_ pattern: String) throws(Error) {
        self.pattern = pattern
        var pieces: [Piece] = []
        var it = Array(pattern.utf8).makeIterator()
        while let byte = it.next() {
            if byte == UInt8(ascii: " ") {
                if pieces.last != .space { pieces.append(.space) }
                continue
            }
            guard byte == UInt8(ascii: "%") else {
                pieces.append(.literal(byte))
                continue
            }
            guard let code = it.next() else { throw .badPattern("'\(pattern)' ends with a lone %") }
            switch code {
            case UInt8(ascii: "Y"): pieces.append(.year4)
            case UInt8(ascii: "y"): pieces.append(.year2)
            case UInt8(ascii: "m"): pieces.append(.month)
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "h"): pieces.append(.monthName)
            case UInt8(ascii: "d"), UInt8(ascii: "e"): pieces.append(.day)
            case UInt8(ascii: "H"): pieces.append(.hour)
            case UInt8(ascii: "I"): pieces.append(.hour12)
            case UInt8(ascii: "M"): pieces.append(.minute)
            case UInt8(ascii: "S"): pieces.append(.second)
            case UInt8(ascii: "f"): pieces.append(.fraction)
            case UInt8(ascii: "p"): pieces.append(.ampm)
            case UInt8(ascii: "z"): pieces.append(.zone)
            case UInt8(ascii: "T"): pieces += [.hour, .literal(UInt8(ascii: ":")), .minute,
                                               .literal(UInt8(ascii: ":")), .second]
            case UInt8(ascii: "%"): pieces.append(.literal(UInt8(ascii: "%")))
            default:
                throw .badPattern("'\(pattern)': %\(Character(Unicode.Scalar(code))) is not a code this reader knows "
                    + "(%Y %y %m %d %b %H %I %M %S %f %p %z %T %%)")
            }
        }
        let dates = pieces.filter { [.year4, .year2].contains($0) }.count
        guard dates == 1, pieces.contains(.day), pieces.contains(.month) || pieces.contains(.monthName) else {
            throw .badPattern("'\(pattern)' needs a year (%Y or %y), a month (%m or %b) and a day (%d)")
        }
        if pieces.contains(.hour12) != pieces.contains(.ampm) {
            throw .badPattern("'\(pattern)': %I and %p go together")
        }
        self.pieces = pieces
    }

    /// Epoch milliseconds (UTC) of `p`, or nil when it does not match the pattern or names an
    /// impossible date or time.
    /// - Complexity: O(n) in the length of `p`.
    package func parse(_ p: UnsafeRawBufferPointer) -> Int64? {
        var position = 0
        let count = p.count
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0, offset = 0
        var pm: Bool?
        func digits(_ most: Int) -> Int? { TimeFormat.digits(p, &position, most) }
        // SAFETY: every p[k] below follows a check that k < count.
        for piece in pieces {
            switch piece {
            case .literal(let byte):
                guard position < count, p[position] == byte else { return nil }
                position += 1
            case .space:
                guard position < count, p[position] == 0x20 else { return nil }
                while position < count, p[position] == 0x20 { position += 1 }
            case .year4:
                let start = position
                guard let fullYear = digits(4), position - start == 4 else { return nil }
                year = fullYear
            case .year2:
                let start = position
                guard let shortYear = digits(2), position - start == 2 else { return nil }
                year = shortYear < 69 ? 2000 + shortYear : 1900 + shortYear
            case .month:
                guard let monthValue = digits(2) else { return nil }
                month = monthValue
            case .day:
                guard let dayValue = digits(2) else { return nil }
                day = dayValue
            case .hour, .hour12:
                guard let hourValue = digits(2) else { return nil }
                hour = hourValue
            case .minute:
                guard let minuteValue = digits(2) else { return nil }
                minute = minuteValue
            case .second:
                guard let secondValue = digits(2) else { return nil }
                second = secondValue
            case .fraction:
                guard let ms = TimeFormat.millis(p, &position) else { return nil }
                millis = ms
            case .monthName:
                guard let (monthNumber, length) = TimeFormat.monthName(p, at: position) else { return nil }
                month = monthNumber
                position += length
            case .ampm:
                guard let afternoon = TimeFormat.ampm(p, &position) else { return nil }
                pm = afternoon
            case .zone:
                guard TimeFormat.zone(p, &position, offset: &offset) else { return nil }
            }
        }
        guard position == count else { return nil }
        return TimeFormat.epochMillis(year: year, month: month, day: day, hour: hour, minute: minute,
                                      second: second, millis: millis, offset: offset, pm: pm)
    }

    /// Epoch milliseconds (UTC) of the parsed fields (`hour` of a 12-hour clock when `pm` is
    /// given, `offset` in minutes east of UTC), or nil for an impossible date or time.
    private static func epochMillis(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                                    millis: Int, offset: Int, pm: Bool?) -> Int64? {
        var hour = hour
        if let pm {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (pm ? 12 : 0)
        }
        guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = Int64(Timestamp.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// The decimal number of at most `most` digits at `position` in `p`, moving past it; nil
    /// when no digit is there.
    private static func digits(_ p: UnsafeRawBufferPointer, _ position: inout Int, _ most: Int) -> Int? {
        var value = 0, taken = 0
        // SAFETY: reads p[position] only while position < p.count.
        while taken < most, position < p.count, p[position] >= 48, p[position] <= 57 {
            value = value * 10 + Int(p[position] - 48)
            position += 1
            taken += 1
        }
        return taken == 0 ? nil : value
    }

    /// Whether the `am` or `pm` (any case) at `position` is `pm`, moving past it; nil when neither is there.
    private static func ampm(_ p: UnsafeRawBufferPointer, _ position: inout Int) -> Bool? {
        // SAFETY: both bytes read follow the check that position + 1 < p.count.
        guard position + 1 < p.count, p[position + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
        let afternoon: Bool
        switch p[position] | 0x20 {
        case UInt8(ascii: "a"): afternoon = false
        case UInt8(ascii: "p"): afternoon = true
        default: return nil
        }
        position += 2
        return afternoon
    }

    /// The milliseconds of the fraction of a second (1 to 9 digits) at `position`, moving past it.
    private static func millis(_ p: UnsafeRawBufferPointer, _ position: inout Int) -> Int? {
        let start = position
        guard let value = digits(p, &position, 9) else { return nil }
        var ms = value
        var len = position - start
        while len > 3 {
            ms /= 10
            len -= 1
        }
        while len < 3 {
            ms *= 10
            len += 1
        }
        return ms
    }

    /// Reads a zone at `position` (`Z`, or `+HH:MM`, `-HHMM`), moving past it and setting `offset`
    /// (in minutes east of UTC) for a numeric one; false when none is there.
    private static func zone(_ p: UnsafeRawBufferPointer, _ position: inout Int, offset: inout Int) -> Bool {
        let count = p.count
        // SAFETY: every p[position] below follows a check that position < count.
        guard position < count else { return false }
        if p[position] == UInt8(ascii: "Z") {
            position += 1
            return true
        }
        guard p[position] == UInt8(ascii: "+") || p[position] == UInt8(ascii: "-") else { return false }
        let sign = p[position] == UInt8(ascii: "-") ? -1 : 1
        position += 1
        let start = position
        guard let hours = digits(p, &position, 2), position - start == 2 else { return false }
        if position < count, p[position] == UInt8(ascii: ":") { position += 1 }
        let mStart = position
        guard let minutes = digits(p, &position, 2), position - mStart == 2, hours <= 23, minutes <= 59 else {
            return false
        }
        offset = sign * (hours * 60 + minutes)
        return true
    }

    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                                 "september", "october", "november", "december"].map { Array($0.utf8) }

    /// The month named at `i` (full name or its first three letters, any case) and its length.
    private static func monthName(_ p: UnsafeRawBufferPointer, at i: Int) -> (Int, Int)? {
        // SAFETY: matches reads p[i + j] only after i + length <= p.count, with j < length.
        for (k, name) in months.enumerated() {
            func matches(_ length: Int) -> Bool {
                guard i + length <= p.count else { return false }
                for j in 0..<length where p[i + j] | 0x20 != name[j] { return false }
                return true
            }
            if matches(name.count) { return (k + 1, name.count) }
            if matches(3) { return (k + 1, 3) }
        }
        return nil
    }
}
