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
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The (year, month, day) of a day number.
    @inline(__always)
    package static func civil(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
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
        let n = p.count
        // SAFETY: num reads p[at..<at + len] only after at + len <= n = p.count.
        @inline(__always) func num(_ at: Int, _ len: Int) throws(ParseError) -> Int {
            guard at + len <= n else { throw .malformed }
            var v = 0
            for k in at..<(at + len) {
                let d = Int(p[k]) - 48
                guard d >= 0 && d <= 9 else { throw .malformed }
                v = v * 10 + d
            }
            return v
        }
        // SAFETY: n >= 10 covers p[4] and p[7]; every later p[k] follows k < n (or num's own check).
        guard n >= 10, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-") else { throw .malformed }
        let year = try num(0, 4), month = try num(5, 2), day = try num(8, 2)
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else {
            throw .malformed
        }
        var ms = 0
        var i = 10
        if i < n && (p[i] == UInt8(ascii: "T") || p[i] == UInt8(ascii: " ")) {
            let h = try num(11, 2)
            guard 13 < n, p[13] == UInt8(ascii: ":") else { throw .malformed }
            let mi = try num(14, 2)
            var s = 0
            i = 16
            if i < n && p[i] == UInt8(ascii: ":") { s = try num(17, 2); i = 19 }
            guard h < 24, mi < 60, s < 60 else { throw .malformed }
            ms = ((h * 60 + mi) * 60 + s) * 1000
            if i < n && p[i] == UInt8(ascii: ".") {
                i += 1
                var scale = 100
                while i < n, p[i] >= 48, p[i] <= 57 {
                    ms += Int(p[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
            }
        }
        if i < n && p[i] == UInt8(ascii: "Z") { i += 1 }
        else if i < n && i > 10 && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) {
            // an offset east of UTC (+) is subtracted to reach UTC
            let sign = p[i] == UInt8(ascii: "+") ? 1 : -1
            let oh = try num(i + 1, 2)
            let colon = i + 3 < n && p[i + 3] == UInt8(ascii: ":") ? 1 : 0
            let om = try num(i + 3 + colon, 2)
            guard oh < 24, om < 60 else { throw .malformed }
            ms -= sign * (oh * 60 + om) * 60_000
            i += 5 + colon
        }
        guard i == n else { throw .malformed }
        return Int64(days(year: year, month: month, day: day)) * 86_400_000 + Int64(ms)
    }

    package static func parse(_ s: String) -> Int64? {
        var s = s
        // SAFETY: `u` is valid only inside this closure, and parse does not keep the pointer.
        return s.withUTF8 { u in try? parse(UnsafeRawBufferPointer(u)) }
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.sssZ`.
    package static func format(_ t: Int64, into out: inout [UInt8]) {
        let dayNum = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let msOfDay = Int(t) - dayNum * 86_400_000
        let (y, m, d) = civil(days: dayNum)
        @inline(__always) func put(_ v: Int, _ width: Int) {
            var div = 1
            for _ in 1..<width { div *= 10 }
            var v = v
            while div > 0 { out.append(UInt8(48 + v / div)); v %= div; div /= 10 }
        }
        put(y, 4); out.append(45); put(m, 2); out.append(45); put(d, 2); out.append(84)
        put(msOfDay / 3_600_000, 2); out.append(58); put(msOfDay / 60_000 % 60, 2); out.append(58)
        put(msOfDay / 1000 % 60, 2); out.append(46); put(msOfDay % 1000, 3); out.append(90)
    }

    /// The ISO-8601 text of `t`.
    package static func string(_ t: Int64) -> String {
        var out: [UInt8] = []
        format(t, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
