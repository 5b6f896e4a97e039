/// UTC timestamps as epoch milliseconds, parsed from and written as the USGS ISO-8601 form
/// `YYYY-MM-DDTHH:MM:SS.sssZ`.
package enum Timestamp {
    package enum ParseError: Error { case malformed }

    /// Epoch milliseconds of years 0000 through 9999, the times a row may hold: what the
    /// four-digit ISO form can write back, and far from overflow in any day arithmetic.
    package static let storable: Range<Int64> = -62_167_219_200_000..<253_402_300_800_000

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    @inline(__always)
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yoe = shiftedYear - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The (year, month, day) of a day number.
    @inline(__always)
    package static func civil(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = z0 + 719468
        let era = (shifted >= 0 ? shifted : shifted - 146096) / 146097
        let doe = shifted - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let yearNumber = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let dayNumber = doy - (153 * mp + 2) / 5 + 1
        let monthNumber = mp < 10 ? mp + 3 : mp - 9
        return (monthNumber <= 2 ? yearNumber + 1 : yearNumber, monthNumber, dayNumber)
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    @inline(__always)
    package static func daysInMonth(year: Int, month: Int) -> Int {
        if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31
    }

    /// Parses `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM|±HHMM]`; an offset is converted to UTC.
    /// Impossible dates and times (`2024-02-30`, `23:59:60`) are malformed, not rolled over.
    package static func parse(_ p: UnsafeRawBufferPointer) throws(ParseError) -> Int64 {
        let count = p.count
        // SAFETY: num reads p[at..<at + len] only after at + len <= count = p.count.
        @inline(__always) func num(_ at: Int, _ len: Int) throws(ParseError) -> Int {
            guard at + len <= count else { throw .malformed }
            var value = 0
            for k in at..<(at + len) {
                let digit = Int(p[k]) - 48
                guard digit >= 0 && digit <= 9 else { throw .malformed }
                value = value * 10 + digit
            }
            return value
        }
        // SAFETY: count >= 10 covers p[4] and p[7]; every later p[k] follows k < count (or num's own check).
        guard count >= 10, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-") else { throw .malformed }
        let year = try num(0, 4), month = try num(5, 2), day = try num(8, 2)
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else {
            throw .malformed
        }
        var ms = 0
        var position = 10
        if position < count && (p[position] == UInt8(ascii: "T") || p[position] == UInt8(ascii: " ")) {
            let hours = try num(11, 2)
            guard 13 < count, p[13] == UInt8(ascii: ":") else { throw .malformed }
            let mi = try num(14, 2)
            var seconds = 0
            position = 16
            if position < count && p[position] == UInt8(ascii: ":") {
                seconds = try num(17, 2)
                position = 19
            }
            guard hours < 24, mi < 60, seconds < 60 else { throw .malformed }
            ms = ((hours * 60 + mi) * 60 + seconds) * 1000
            if position < count && p[position] == UInt8(ascii: ".") {
                position += 1
                var scale = 100
                while position < count, p[position] >= 48, p[position] <= 57 {
                    ms += Int(p[position] - 48) * scale
                    scale /= 10
                    position += 1
                }
            }
        }
        if position < count && p[position] == UInt8(ascii: "Z") { position += 1 }
        else if position < count && position > 10
            && (p[position] == UInt8(ascii: "+") || p[position] == UInt8(ascii: "-")) {
            // an offset east of UTC (+) is subtracted to reach UTC
            let sign = p[position] == UInt8(ascii: "+") ? 1 : -1
            let oh = try num(position + 1, 2)
            let colon = position + 3 < count && p[position + 3] == UInt8(ascii: ":") ? 1 : 0
            let om = try num(position + 3 + colon, 2)
            guard oh < 24, om < 60 else { throw .malformed }
            ms -= sign * (oh * 60 + om) * 60_000
            position += 5 + colon
        }
        guard position == count else { throw .malformed }
        return Int64(days(year: year, month: month, day: day)) * 86_400_000 + Int64(ms)
    }

    package static func parse(_ s: String) -> Int64? {
        var text = s
        // SAFETY: `u` is valid only inside this closure, and parse does not keep the pointer.
        return text.withUTF8 { u in try? parse(UnsafeRawBufferPointer(u)) }
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.sssZ`.
    package static func format(_ t: Int64, into out: inout [UInt8]) {
        let dayNum = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let msOfDay = Int(t) - dayNum * 86_400_000
        let (yearNumber, monthNumber, dayNumber) = civil(days: dayNum)
        @inline(__always) func put(_ v: Int, _ width: Int) {
            var div = 1
            for _ in 1..<width { div *= 10 }
            var remaining = v
            while div > 0 {
                out.append(UInt8(48 + remaining / div))
                remaining %= div
                div /= 10
            }
        }
        put(yearNumber, 4)
        out.append(45)
        put(monthNumber, 2)
        out.append(45)
        put(dayNumber, 2)
        out.append(84)
        put(msOfDay / 3_600_000, 2)
        out.append(58)
        put(msOfDay / 60_000 % 60, 2)
        out.append(58)
        put(msOfDay / 1000 % 60, 2)
        out.append(46)
        put(msOfDay % 1000, 3)
        out.append(90)
    }

    /// The ISO-8601 text of `t`.
    package static func string(_ t: Int64) -> String {
        var out: [UInt8] = []
        format(t, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
