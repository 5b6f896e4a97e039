/// Why a date that is written the right way is still no date (`2024-02-30`, `2023-13-01`).
extension DateParsing {
    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                                     "September", "October", "November", "December"]

    /// The days of `month` (1...12) in `year`, by the proleptic Gregorian calendar.
    package static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// What is wrong with `text` when it has a date's shape (`YYYY-MM-DD`, then perhaps a time)
    /// but names a day, hour, minute or second that does not exist; nil when it is no date at
    /// all, or a real one.
    package static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        guard (1...12).contains(month) else { return "there is no month \(month) (months run 01 to 12)" }
        let last = days(inMonth: month, year: year)
        guard (1...last).contains(day) else {
            return "\(monthNames[month - 1]) \(year) has \(last) days"
        }
        guard bytes.count >= 13, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        if let hour = number(11..<13), hour > 23 { return "there is no hour \(hour) (hours run 00 to 23)" }
        if bytes.count >= 16, bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), minute > 59 {
            return "there is no minute \(minute) (minutes run 00 to 59)"
        }
        if bytes.count >= 19, bytes[16] == UInt8(ascii: ":"), let second = number(17..<19), second > 59 {
            return "there is no second \(second) (seconds run 00 to 59)"
        }
        return nil
    }
}
