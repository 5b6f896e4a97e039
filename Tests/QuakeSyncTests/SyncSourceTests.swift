import Testing
import QuakeFormat
@testable import QuakeSync

/// What a sync URL names and the filter's canonical key, against hand-written answers.
@Suite struct SyncSourceTests {
    @Test func urlsNameAFeedOrAServiceBase() throws {
        let feed = "https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/all_hour.geojson"
        #expect(try SyncSource(url: feed) == .feed(feed))
        #expect(try SyncSource(url: "http://127.0.0.1:8080/f.CSV?x=1") == .feed("http://127.0.0.1:8080/f.CSV?x=1"))
        let base = "http://127.0.0.1:8080/fdsnws/event/1/"
        for tail in ["", "query", "count", "version", "application.wadl"] {
            #expect(try SyncSource(url: "http://127.0.0.1:8080/fdsnws/event/1/" + tail) == .fdsn(base), "\(tail)")
        }
        #expect(try SyncSource(url: "http://127.0.0.1:8080/fdsnws/event/1") == .fdsn(base))
        for bad in ["ftp://x/y", "earthquake.usgs.gov", "http://", base + "query?minmag=5"] {
            #expect(throws: QuakeError.self, "\(bad)") { try SyncSource(url: bad) }
            do { _ = try SyncSource(url: bad) } catch { #expect(error.kind == .invalidArgument) }
        }
    }

    @Test func theFiltersKeyIsCanonical() {
        let a = SyncFilter(start: 0, end: 86_400_000, parameters: [.init("minmagnitude", "5"), .init("catalog", "us")])
        let b = SyncFilter(start: 0, end: 86_400_000, parameters: [.init("catalog", "us"), .init("minmagnitude", "5")])
        #expect(a == b && a.key == b.key)
        #expect(a.key == "starttime=1970-01-01T00:00:00.000Z&endtime<1970-01-02T00:00:00.000Z&catalog=us&minmagnitude=5")
        #expect(SyncFilter().key.isEmpty)
        #expect(SyncFilter(parameters: [.init("minmagnitude", "4")]).key != a.key)
    }
}
