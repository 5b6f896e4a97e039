import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport
import QuakeGenerator

/// The page's view parameters (`ViewRequest`): windows against hand-computed milliseconds, its
/// filters against the FDSN service's for the same parameters, and the checks that refuse the rest.
@Suite struct ViewRequestTests {
    static let day = Timestamp.parse("2019-07-06")!

    @Test func aDayIsItsUTCDay() throws {
        let v = try ViewRequest([("day", "2019-07-06")])
        #expect(v.start == Self.day && v.end == Self.day + 86_400_000)
        #expect(v.day == "2019-07-06" && v.label == "2019-07-06" && v.fileLabel == "2019-07-06")
        #expect(!v.needsNewestDay)
        var newest = try ViewRequest([("orderby", "magnitude")])
        #expect(newest.needsNewestDay)
        newest.resolve(newest: Self.day + 5_000_000)
        #expect(newest.start == Self.day && newest.day == "2019-07-06" && !newest.needsNewestDay)
    }

    @Test func aRangeKeepsItsEndtime() throws {
        let v = try ViewRequest([("starttime", "2019-07-04"), ("endtime", "2019-07-06T23:59:59.999")])
        #expect(v.start == Self.day - 2 * 86_400_000 && v.end == Self.day + 86_400_000)
        #expect(v.day == nil && v.label == "2019-07-04 to 2019-07-06" && v.fileLabel == "2019-07-04_2019-07-06")
        // FDSN's endtime is inclusive: the instant itself is in the window
        let instant = try ViewRequest([("starttime", "2019-07-06T03:19:53.040"),
                                       ("endtime", "2019-07-06T03:19:53.040")])
        #expect(instant.end - instant.start == 1)
        let month = try ViewRequest([("starttime", "2019-07-01"), ("endtime", "2019-08-01")])
        #expect(month.end - month.start == 31 * 86_400_000 + 1)
    }

    @Test func thePastHoursEndNow() throws {
        let now = Self.day + 12 * 3_600_000
        let presets: [(String, Int64)] = [("1h", 3_600_000), ("1d", 86_400_000), ("7d", 7 * 86_400_000),
                                          ("30d", 30 * 86_400_000)]
        for (name, ms) in presets {
            let v = try ViewRequest([("last", name)], now: now)
            #expect(v.end == now + 1 && v.end - v.start == ms, "\(name)")
            #expect(v.fileLabel == "last-" + name && v.label.hasPrefix("past "))
        }
    }

    @Test func theRestIsTheFDSNServicesFilter() throws {
        let cases: [[(String, String)]] = [
            [("search", "Fiji"), ("minmagnitude", "4.5"), ("orderby", "magnitude")],
            [("minlatitude", "-30"), ("maxlatitude", "-10"), ("minlongitude", "170"), ("maxlongitude", "190")],
            [("minlongitude", "-10"), ("maxlongitude", "10"), ("search", "")],
        ]
        for items in cases {
            let v = try ViewRequest(items)
            let fdsn = items.filter { !$0.1.isEmpty }.map { ($0.0 == "search" ? "placecontains" : $0.0, $0.1) }
            let want = try FDSNRequest(fdsn, maxEvents: .max)
            #expect(v.rest.filter.description == want.filter.description, "\(items)")
            #expect(v.rest.sort.map(\.column) == want.sort.map(\.column))
            #expect(v.filter.description.contains(v.window.description))
        }
        let d = try ViewRequest([("day", "2019-07-06"), ("format", "kml")], formats: true)
        #expect(d.rest.format == .kml)
    }

    @Test func badViewsAreRefused() {
        let bad: [[(String, String)]] = [
            [("day", "2024-02-30")], [("day", "x")], [("orderby", "up")], [("minmagnitude", "nan")],
            [("search", String(repeating: "x", count: 300))], [("what", "1")], [("format", "csv")],
            [("day", "2019-07-06"), ("last", "1d")], [("starttime", "2019-07-01")], [("endtime", "2019-07-01")],
            [("starttime", "2019-07-02"), ("endtime", "2019-07-01")],
            [("starttime", "2019-06-01"), ("endtime", "2019-07-06")], [("last", "2d")],
            [("minlatitude", "10"), ("maxlatitude", "5")], [("minlongitude", "20"), ("maxlongitude", "10")],
            [("minmagnitude", "4"), ("minmagnitude", "5")],
        ]
        for items in bad {
            #expect(throws: FDSNError.self, "\(items)") { try ViewRequest(items) }
        }
        #expect(throws: FDSNError.self) { try ViewRequest([("format", "kmz")], formats: true) }
    }
}
