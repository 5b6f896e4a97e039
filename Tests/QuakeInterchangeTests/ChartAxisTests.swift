import Foundation
import Testing
@testable import QuakeInterchange
import QuakeFormat

/// The chart axes' ticks: 1-2-5 steps on linear axes, decades with minor ticks on log axes,
/// whole hours, days (Mondays for weeks), months and years on time axes; spans that are empty
/// or not finite made drawable.
@Suite struct ChartAxisTests {
    static func instant(_ text: String) throws -> Double {
        Double(try #require(Timestamp.parse(text), "\(text)"))
    }

    @Test func linearTicksFallOnOneTwoFiveSteps() {
        let tens = ChartAxis(scale: .linear, lower: 0, upper: 10).ticks()
        #expect(tens.map(\.value) == [0, 2, 4, 6, 8, 10])
        #expect(tens.map(\.label) == ["0", "2", "4", "6", "8", "10"])
        let small = ChartAxis(scale: .linear, lower: -0.25, upper: 0.25).ticks()
        #expect(small.map(\.label) == ["-0.2", "-0.1", "0.0", "0.1", "0.2"])
        let large = ChartAxis(scale: .linear, lower: 0, upper: 4321).ticks()
        #expect(large.map(\.value) == [0, 1000, 2000, 3000, 4000])
        #expect(ChartAxis.niceStep(7, target: 6) == 2)
        #expect(ChartAxis.niceStep(30, target: 6) == 5)
        #expect(ChartAxis.niceStep(0.9, target: 6) == 0.2)
    }

    @Test func aLinearAxisCoversItsValuesWithWholeTicks() {
        let axis = ChartAxis.linear(covering: 0.3, 4.7)
        #expect(axis.lower == 0 && axis.upper == 5)
        #expect(axis.ticks().map(\.label) == ["0", "1", "2", "3", "4", "5"])
        let single = ChartAxis.linear(covering: 3, 3)
        #expect(single.lower < 3 && single.upper > 3)
        #expect(axis.fraction(2.5) == 0.5)
        #expect(axis.value(atFraction: 0.2) == 1)
    }

    @Test func logAxesTickEachDecadeWithMinorTicks() {
        let axis = ChartAxis.logarithmic(covering: 1, 4321)
        #expect(axis.lower == 1 && axis.upper == 10_000)
        let ticks = axis.ticks()
        #expect(ticks.filter(\.isMajor).map(\.label) == ["1", "10", "100", "1000", "10000"])
        #expect(ticks.filter(\.isMajor).map(\.value) == [1, 10, 100, 1000, 10_000])
        #expect(ticks.filter { !$0.isMajor }.count == 4 * 8)
        #expect(ticks.filter { !$0.isMajor }.prefix(3).map(\.value) == [2, 3, 4])
        #expect(ticks.allSatisfy { $0.isMajor || $0.label.isEmpty })
        #expect(abs((axis.fraction(100) ?? -1) - 0.5) < 1e-12)
        #expect(axis.fraction(0) == nil && axis.fraction(-3) == nil && axis.fraction(.nan) == nil)
        #expect(ChartAxis.power(6) == "10⁶" && ChartAxis.power(-4) == "10⁻⁴" && ChartAxis.power(-2) == "0.01")
    }

    @Test func timeAxesTickWholeMonthsDaysYearsAndHours() throws {
        let year = ChartAxis(scale: .time, lower: try Self.instant("2024-01-01"), upper: try Self.instant("2025-01-01"))
        #expect(ChartAxis.timeStep(year.lower, year.upper) == .months(2))
        #expect(year.ticks().map(\.label) == ["2024-01", "2024-03", "2024-05", "2024-07", "2024-09", "2024-11",
                                              "2025-01"])
        #expect(year.ticks().first?.value == year.lower)
        let week = ChartAxis(scale: .time, lower: try Self.instant("2019-07-01"), upper: try Self.instant("2019-07-08"))
        #expect(week.ticks().map(\.label) == (1...8).map { "2019-07-0\($0)" })
        let decades = ChartAxis(scale: .time, lower: try Self.instant("2000-01-01"),
                                upper: try Self.instant("2024-01-01"))
        #expect(decades.ticks().map(\.label) == ["2000", "2005", "2010", "2015", "2020"])
        let hours = ChartAxis(scale: .time, lower: try Self.instant("2024-06-15T00:30:00Z"),
                              upper: try Self.instant("2024-06-15T06:10:00Z"))
        #expect(hours.ticks().map(\.label) == ["06-15 01:00", "06-15 02:00", "06-15 03:00", "06-15 04:00",
                                               "06-15 05:00", "06-15 06:00"])
        let weeks = ChartAxis(scale: .time, lower: try Self.instant("2024-05-20T12:00:00Z"),
                              upper: try Self.instant("2024-07-01"))
        #expect(ChartAxis.timeStep(weeks.lower, weeks.upper) == .days(7))
        let mondays = weeks.ticks().map { Int64($0.value) / 86_400_000 % 7 }
        #expect(!mondays.isEmpty && mondays.allSatisfy { $0 == 4 }, "1970-01-05, day 4, was a Monday")
        #expect(weeks.ticks().first?.label == "2024-05-27")
    }

    @Test func spansThatCannotBeDrawnAreReplaced() {
        let linear = ChartAxis(scale: .linear, lower: .nan, upper: .infinity)
        #expect(linear.lower == 0 && linear.upper == 1)
        let log = ChartAxis(scale: .logarithmic, lower: 0, upper: -5)
        #expect(log.lower == 1 && log.upper == 10)
        let time = ChartAxis(scale: .time, lower: -.infinity, upper: 1e300)
        #expect(time.lower.isFinite && time.upper <= Double(Timestamp.storable.upperBound))
        #expect(!time.ticks().isEmpty)
        #expect(ChartAxis.linear(covering: .nan, 3).lower == 0)
        #expect(ChartAxis.logarithmic(covering: -1, .nan).upper == 10)
    }
}
