import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import QuakeFormat
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport

/// `/api/fmd` in process: the page's view's frequency–magnitude distribution equals the library's
/// ``Store/frequencyMagnitude(_:bin:mc:)`` for the same events, field by field; its counts in time
/// add up; bad parameters are 400s with a one-line message, never 500s.
@Suite struct FmdEndpointTests {
    /// The answer's extra members beside the distribution's.
    struct Window: Decodable {
        struct Counts: Decodable {
            let start: Int64
            let width: Int64
            let unit: String
            let values: [Int]
        }

        let generation: Int
        let day: String?
        let label: String
        let start: Int64
        let end: Int64
        let counts: Counts
    }

    static let dayMilliseconds: Int64 = 86_400_000

    /// The first millisecond of `day` (`YYYY-MM-DD`).
    static func dayStart(_ day: String) throws -> Int64 { try #require(Timestamp.parse(day)) }

    /// The library's distribution of the stored events in `from..<to` that `keep` keeps.
    static func library(from: Int64, to: Int64, bin: Double = 0.1,
                        mc: MagnitudeOfCompleteness = .maximumCurvature(correction: 0.2),
                        box: (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)? = nil)
        throws -> FrequencyMagnitude {
        let first = Date(timeIntervalSince1970: Double(from) / 1000)
        let past = Date(timeIntervalSince1970: Double(to) / 1000)
        let store = ServedStore.loaded.store
        guard let box else {
            let descriptor = FetchDescriptor<Quake>(predicate: #Predicate { $0.time >= first && $0.time < past })
            return try store.frequencyMagnitude(descriptor, bin: bin, mc: mc)
        }
        let (minLat, maxLat, minLon, maxLon) = box
        let descriptor = FetchDescriptor<Quake>(predicate: #Predicate {
            $0.time >= first && $0.time < past && $0.latitude >= minLat && $0.latitude <= maxLat
                && $0.longitude >= minLon && $0.longitude <= maxLon
        })
        return try store.frequencyMagnitude(descriptor, bin: bin, mc: mc)
    }

    /// `/api/fmd?query`'s answer, decoded as the distribution and as its window, after checking
    /// it is a 200 of JSON with the generation.
    static func fetch(_ client: some TestClientProtocol, _ query: String) async throws
        -> (FrequencyMagnitude, Window) {
        try await client.execute(uri: "/api/fmd?" + query, method: .get) { response in
            #expect(response.status == .ok, "\(query): \(String(buffer: response.body))")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(response.headers[ServedStore.generation] == String(ServedStore.loaded.store.manifest.generation))
            let body = Data(String(buffer: response.body).utf8)
            return (try JSONDecoder().decode(FrequencyMagnitude.self, from: body),
                    try JSONDecoder().decode(Window.self, from: body))
        }
    }

    /// Every figure of `got` against `want`, one by one (so that a failure names the field), then whole.
    static func expectSame(_ got: FrequencyMagnitude, _ want: FrequencyMagnitude, _ what: String) {
        #expect(got.count == want.count, "\(what): count")
        #expect(got.withoutMagnitude == want.withoutMagnitude, "\(what): without_magnitude")
        #expect(got.bin == want.bin, "\(what): bin")
        #expect(got.mc == want.mc, "\(what): mc")
        #expect(got.eventsAboveMc == want.eventsAboveMc, "\(what): events_above_mc")
        #expect(got.b == want.b, "\(what): b")
        #expect(got.bUncertainty == want.bUncertainty, "\(what): b_uncertainty")
        #expect(got.a == want.a, "\(what): a")
        #expect(got.bins == want.bins, "\(what): bins")
        #expect(got == want, "\(what)")
    }

    @Test func aDayARangeAndABoxEqualTheLibrary() async throws {
        let day = ServedStore.newestDay
        let dayStart = try Self.dayStart(day)
        let firstDay = ServedStore.day(dayStart - 30 * Self.dayMilliseconds)
        let rangeStart = try Self.dayStart(firstDay)
        let rangeEnd = dayStart + Self.dayMilliseconds
        let box = (minLat: -40.0, maxLat: 60.0, minLon: -150.0, maxLon: 100.0)
        let boxQuery = "&minlatitude=-40&maxlatitude=60&minlongitude=-150&maxlongitude=100"
        let range = "starttime=\(firstDay)&endtime=\(day)T23:59:59.999"
        try await ServedStore.app().test(.router) { client in
            let (ofDay, dayWindow) = try await Self.fetch(client, "day=\(day)")
            Self.expectSame(ofDay, try Self.library(from: dayStart, to: rangeEnd), "day \(day)")
            #expect(ofDay.count > 1 && dayWindow.day == day && dayWindow.label == day)
            #expect(dayWindow.counts.width == 3_600_000 && dayWindow.counts.unit == "1h")
            #expect(dayWindow.counts.values.count == 24 && dayWindow.counts.values.reduce(0, +) == ofDay.count)
            #expect(dayWindow.start == dayStart && dayWindow.end == rangeEnd)

            let (ofRange, rangeWindow) = try await Self.fetch(client, range + "&orderby=magnitude")
            Self.expectSame(ofRange, try Self.library(from: rangeStart, to: rangeEnd), "range \(range)")
            #expect(ofRange.count > ofDay.count && rangeWindow.day == nil)
            #expect(rangeWindow.counts.unit == "1d" && rangeWindow.counts.values.count == 31)
            #expect(rangeWindow.counts.values.reduce(0, +) == ofRange.count)

            let (ofBox, boxWindow) = try await Self.fetch(client, range + boxQuery)
            Self.expectSame(ofBox, try Self.library(from: rangeStart, to: rangeEnd, box: box), "box")
            #expect(ofBox.count > 0 && ofBox.count < ofRange.count)
            #expect(boxWindow.counts.values.reduce(0, +) == ofBox.count)
            // the naive reference agrees on the count
            let naive = ServedStore.loaded.live.filter { quake in
                quake.timeMilliseconds >= rangeStart && quake.timeMilliseconds < rangeEnd
                    && (box.minLat...box.maxLat).contains(quake.latitude)
                    && (box.minLon...box.maxLon).contains(quake.longitude)
            }
            #expect(naive.count == ofBox.count)

            // no window: the newest event's day, as /api/day picks it
            let (newest, newestWindow) = try await Self.fetch(client, "")
            #expect(newestWindow.day == day && newest == ofDay)
        }
    }

    @Test func aFixedMcAndOtherBinsAreTheLibrarys() async throws {
        let day = ServedStore.newestDay
        let end = ServedStore.day(try Self.dayStart(day) - 30 * Self.dayMilliseconds)
        let from = try Self.dayStart(end)
        let to = try Self.dayStart(day) + Self.dayMilliseconds
        let range = "starttime=\(end)&endtime=\(day)T23:59:59.999"
        try await ServedStore.app().test(.router) { client in
            let (fixed, _) = try await Self.fetch(client, range + "&mc=2.5")
            #expect(fixed.mc == 2.5)
            Self.expectSame(fixed, try Self.library(from: from, to: to, mc: .fixed(2.5)), "mc=2.5")
            let (wide, _) = try await Self.fetch(client, range + "&bin=0.2")
            #expect(wide.bin == 0.2 && wide.bins.count > 1)
            #expect(wide.bins.allSatisfy { abs(($0.magnitude / 0.2).rounded() * 0.2 - $0.magnitude) < 1e-9 })
            Self.expectSame(wide, try Self.library(from: from, to: to, bin: 0.2), "bin=0.2")
            let (corrected, _) = try await Self.fetch(client, range + "&mc=maxc&mc_correction=0&bin=0.5")
            Self.expectSame(corrected, try Self.library(from: from, to: to, bin: 0.5,
                                                        mc: .maximumCurvature(correction: 0)), "mc_correction=0")
        }
    }

    @Test func badParametersAre400sNever500s() async throws {
        let refused = [
            "bin=0", "bin=-0.1", "bin=0.000000001", "bin=x", "bin=", "bin=nan", "bin=inf", "bin=1e308", "bin=1000",
            "bin=0.0000000001",
            "bin=" + String(repeating: "9", count: 400), "mc=abc", "mc=nan", "mc=-inf", "mc=1e300",
            "mc=2.5&mc_correction=0.1", "mc_correction=x", "mc_correction=1e300", "bin=0.1&bin=0.2", "mc=2&mc=3",
            "day=2024-02-30", "day=x", "what=1", "format=csv", "starttime=2019-01-01", "minmagnitude=nan",
            "starttime=2019-01-01&endtime=2019-03-01", "minlatitude=80&maxlatitude=10", "%zz", "last=2d",
        ]
        try await ServedStore.app().test(.router) { client in
            for query in refused {
                try await client.execute(uri: "/api/fmd?" + query, method: .get) { response in
                    #expect(response.status == .badRequest, "\(query): \(response.status)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    let message = try ServedStore.json(response.body)["error"] as? String
                    #expect(message?.isEmpty == false && message?.contains("\n") == false,
                            "\(query): \(message ?? "")")
                }
            }
            // the unknown parameter's message names the distribution's own
            try await client.execute(uri: "/api/fmd?what=1", method: .get) { response in
                let message = try ServedStore.json(response.body)["error"] as? String ?? ""
                #expect(message.hasSuffix("bin, mc, mc_correction"), "\(message)")
            }
            // far but legal figures are answered, not failed
            for query in ["mc=99999999", "mc=-99999999", "bin=100", "mc_correction=-50"] {
                try await client.execute(uri: "/api/fmd?" + query, method: .get) { response in
                    #expect(response.status == .ok, "\(query): \(response.status) \(String(buffer: response.body))")
                }
            }
        }
    }

    @Test func answersAreKeptPerGenerationLikeTheDays() async throws {
        let source = SnapshotSource(store: ServedStore.loaded.store)
        var options = QuakeServer.Options()
        options.log = nil
        let app = QuakeServer.buildApplication(source: source, options: options).app
        let query = "/api/fmd?day=\(ServedStore.newestDay)&bin=0.2"
        try await app.test(.router) { client in
            let first = try await client.execute(uri: query, method: .get) { String(buffer: $0.body) }
            let hitsBefore = source.answers.counts.hits
            let second = try await client.execute(uri: query, method: .get) { String(buffer: $0.body) }
            #expect(second == first && source.answers.counts.hits == hitsBefore + 1)
            // the past hours follow the clock: never kept
            _ = try await client.execute(uri: "/api/fmd?last=1h", method: .get) { $0.status }
            let hitsLast = source.answers.counts.hits
            let window = try await client.execute(uri: "/api/fmd?last=1h", method: .get) { response in
                try JSONDecoder().decode(Window.self, from: Data(String(buffer: response.body).utf8))
            }
            #expect(source.answers.counts.hits == hitsLast)
            #expect(window.counts.unit == "5m" && window.counts.values.count == 12)
        }
    }
}
