import Foundation
import QuakeStore
import Testing

/// Spreadsheet times through the public API alone (issue 69): `LoadOptions.timeFormat` and
/// `TimeFormat(pattern:)`, as `quakes load --time-format` reads them.
@Suite struct TimeFormatTests {
    @Test func aSpreadsheetsTimesLoadWithAPattern() throws {
        let store = try Generated.freshStore("time-format")
        let feed = try Paths.temporary("time-format-feed").appendingPathComponent("resaved.csv")
        let tail = ",earthquake,,,,,reviewed,nc,nc"
        let rows = [
            "04-02-19 21:55,38.1,-122.2,5.5,2.5,md,,,,,nc,nc9001,05-02-19 01:00,\"10 km N of Town, CA\"" + tail,
            "2019-02-04T22:00:00.000Z,38.1,-122.2,5.5,2.6,md,,,,,nc,nc9002,2019-02-05T01:00:00.000Z,Town" + tail,
        ]
        try Data((Generated.header + "\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: feed)
        var options = LoadOptions(strict: true)
        options.timeFormat = try TimeFormat(pattern: "%d-%m-%y %H:%M")
        let summary = try store.load([feed.path], options: options)
        #expect(summary.new == 2)
        let first = try store.fetch(FetchDescriptor<Quake>(predicate: #Predicate { $0.id == "nc9001" })).first
        #expect(first?.time == Date(timeIntervalSince1970: 1_549_317_300), "\(String(describing: first?.time))")
        #expect(throws: QuakeError.self) { _ = try TimeFormat(pattern: "%Q") }
    }
}
