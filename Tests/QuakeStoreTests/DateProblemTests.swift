import Foundation
import Testing
@testable import QuakeStore

/// `DateParsing.problem` against Foundation's Gregorian calendar, the naive reference: every day
/// number 0...32 of months 0...13 in leap and common years, centuries included.
@Suite struct DateProblemTests {
    @Test func impossibleDaysAreNamedAndRealOnesPass() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for year in [1900, 1999, 2000, 2023, 2024, 2100] {
            for month in 0...13 {
                for day in 0...32 {
                    let text = String(format: "%04d-%02d-%02d", year, month, day)
                    let components = DateComponents(year: year, month: month, day: day)
                    let real = (1...12).contains(month) && components.isValidDate(in: calendar)
                    let problem = DateParsing.problem(text)
                    #expect((problem == nil) == real, "\(text): \(problem ?? "no problem")")
                    #expect((DateParsing.parse(text) != nil) == real, "\(text) parses as a date: \(real)")
                    if !real && (1...12).contains(month) {
                        let last = calendar.range(of: .day, in: .month, for: calendar.date(from:
                            DateComponents(year: year, month: month, day: 1))!)!.count
                        #expect(problem?.hasSuffix("\(year) has \(last) days") == true, "\(text): \(problem ?? "")")
                    }
                }
            }
        }
        #expect(DateParsing.problem("2024-01-01T25:00:00Z") == "there is no hour 25 (hours run 00 to 23)")
        #expect(DateParsing.problem("2024-01-01T10:61") == "there is no minute 61 (minutes run 00 to 59)")
        #expect(DateParsing.problem("tomorrow") == nil && DateParsing.problem("2024-1-1") == nil)
    }
}
