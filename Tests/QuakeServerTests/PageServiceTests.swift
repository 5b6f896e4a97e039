import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeServer
@testable import QuakeStore
@testable import QuakeTestSupport

/// The quake browser's page and its data requests, in process, against the stored rows and the
/// FDSN service's own answers.
@Suite struct PageServiceTests {
    @Test func thePageIsHTMLWithItsAssets() async throws {
        try await ServedStore.app().test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "text/html; charset=utf-8")
                let html = String(buffer: r.body)
                #expect(html.hasPrefix("<!doctype html>"))
                #expect(html.contains("</html>"))
                // the stylesheet and scripts are written into the page, not linked
                #expect(!html.contains("<script src=\"/assets/app.js\"></script>"))
                #expect(!html.contains("<script src=\"/assets/stats.js\"></script>") && html.contains("QuakeStats"))
                return html
            }
            try await client.execute(uri: "/index.html", method: .get) { r in
                #expect(r.status == .ok && String(buffer: r.body) == page)
            }
            for (name, type) in [("app.js", "text/javascript"), ("map.js", "text/javascript"),
                                 ("stats.js", "text/javascript"), ("app.css", "text/css")] {
                try await client.execute(uri: "/assets/" + name, method: .get) { r in
                    #expect(r.status == .ok, "\(name)")
                    #expect(r.headers[.contentType] == type + "; charset=utf-8")
                    #expect(r.body.readableBytes > 0)
                }
            }
            // the assets are a fixed table: nothing else, and no path reaches the disk
            for uri in ["/assets/nothing.js", "/assets/..%2FPackage.swift", "/nothing"] {
                try await client.execute(uri: uri, method: .get) { r in #expect(r.status == .notFound, "\(uri)") }
            }
            try await client.execute(uri: "/healthz", method: .get) { r in
                #expect(r.status == .ok && String(buffer: r.body) == "ok\n")
            }
            // the coastlines when the dataset is installed, a JSON 404 saying so when it is not
            try await client.execute(uri: "/api/coastlines", method: .get) { r in
                if FileManager.default.fileExists(atPath: Coastlines.defaultPath) {
                    #expect(r.status == .ok && r.headers[.contentType] == "application/geo+json")
                    let j = try ServedStore.json(r.body)
                    #expect(j["type"] as? String == "FeatureCollection")
                } else {
                    #expect(r.status == .notFound && ((try? ServedStore.json(r.body))?["error"] as? String) != nil)
                }
            }
        }
    }

    @Test func aDayListsTheSameEventsAsTheFDSNQuery() async throws {
        let day = ServedStore.newestDay
        let ofDay = ServedStore.loaded.live.filter { ServedStore.day($0.timeMilliseconds) == day }
        try #require(ofDay.count > 1)
        let generation = String(ServedStore.loaded.store.manifest.generation)
        try await ServedStore.app().test(.router) { client in
            let fdsn = try await client.execute(
                uri: "/fdsnws/event/1/query?format=text&orderby=time-asc&starttime=\(day)&endtime=\(day)T23:59:59.999",
                method: .get
            ) { ServedStore.textIds(String(buffer: $0.body)) }
            try await client.execute(uri: "/api/day?day=\(day)&orderby=time-asc", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "application/json; charset=utf-8")
                #expect(r.headers[ServedStore.generation] == generation)
                let j = try ServedStore.json(r.body)
                let events = try #require(j["events"] as? [[Any]])
                #expect(events.compactMap { $0[0] as? String } == fdsn)
                #expect(Set(fdsn) == Set(ofDay.map(\.id)))
                #expect(j["day"] as? String == day && j["label"] as? String == day)
                #expect(j["matched"] as? Int == ofDay.count && j["total"] as? Int == ofDay.count)
                #expect(j["generation"] as? Int == ServedStore.loaded.store.manifest.generation)
                // times in the day's window, ascending
                let times = events.compactMap { ($0[1] as? Int).map(Int64.init) }
                #expect(times.count == events.count && times == times.sorted())
                #expect(times.allSatisfy { ServedStore.day($0) == day })
            }
            // filtered and sorted: `total` still counts the whole day, `matched` the list
            let strong = ofDay.filter { ($0.magnitude ?? -99) >= 2.5 }
            try await client.execute(uri: "/api/day?day=\(day)&minmagnitude=2.5&orderby=magnitude", method: .get) { r in
                let j = try ServedStore.json(r.body)
                let events = try #require(j["events"] as? [[Any]])
                let mags = events.compactMap { $0[2] as? Double }
                #expect(j["total"] as? Int == ofDay.count && j["matched"] as? Int == strong.count)
                #expect(Set(events.compactMap { $0[0] as? String }) == Set(strong.map(\.id)))
                #expect(mags.count == strong.count && mags == mags.sorted(by: >))
            }
        }
    }

    @Test func theDefaultDayEmptyDaysAndRefusals() async throws {
        let live = ServedStore.loaded.live
        let oldest = ServedStore.day(live.map(\.timeMilliseconds).min()!)
        let newest = ServedStore.newestDay
        try await ServedStore.app().test(.router) { client in
            // no window: the newest event's day
            try await client.execute(uri: "/api/day", method: .get) { r in
                let j = try ServedStore.json(r.body)
                #expect(r.status == .ok && j["day"] as? String == newest)
            }
            // an empty day names the nearest days with events
            try await client.execute(uri: "/api/day?day=1900-01-01", method: .get) { r in
                let j = try ServedStore.json(r.body)
                #expect(r.status == .ok && j["matched"] as? Int == 0 && (j["events"] as? [Any])?.isEmpty == true)
                #expect(j["before"] is NSNull && j["after"] as? String == oldest)
            }
            try await client.execute(uri: "/api/day?day=2100-01-01", method: .get) { r in
                let j = try ServedStore.json(r.body)
                #expect(j["before"] as? String == newest && j["after"] is NSNull)
            }
            for query in ["day=2024-02-30", "day=x", "orderby=up", "minmagnitude=nan", "what=1", "last=2d",
                          "day=2024-01-01&last=1d", "starttime=2019-01-01", "starttime=2019-01-01&endtime=2019-03-01",
                          "search=" + String(repeating: "x", count: 300), "format=csv"] {
                for path in ["/api/day?", "/api/live?"] where path == "/api/day?" || query.hasPrefix("day=") {
                    try await client.execute(uri: path + query, method: .get) { r in
                        #expect(r.status == .badRequest, "\(path)\(query)")
                        #expect(r.headers[.contentType] == "application/json; charset=utf-8")
                        #expect(((try? ServedStore.json(r.body))?["error"] as? String) != nil, "\(path)\(query)")
                    }
                }
            }
        }
    }

    @Test func anEventByIdAnd404ForAnUnknownId() async throws {
        let q = try #require(ServedStore.loaded.live.first { $0.magnitude != nil && $0.place != nil })
        try await ServedStore.app().test(.router) { client in
            try await client.execute(uri: "/api/event?id=\(q.id)", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "application/json; charset=utf-8")
                let j = try ServedStore.json(r.body)
                #expect(j["id"] as? String == q.id)
                #expect(j["mag"] as? Double == q.magnitude)
                #expect(j["place"] as? String == q.place)
                #expect(j["latitude"] as? Double == q.latitude && j["longitude"] as? Double == q.longitude)
                var time: [UInt8] = []
                Timestamp.format(q.timeMilliseconds, into: &time)
                #expect(j["time"] as? String == String(decoding: time, as: UTF8.self))
                // every column, in storage order
                #expect(j.count == Column.allCases.count)
            }
            try await client.execute(uri: "/api/event?id=zz-no-such-event", method: .get) { r in
                #expect(r.status == .notFound)
                let j = try ServedStore.json(r.body)
                #expect(j["error"] as? String == "No event has id 'zz-no-such-event'")
            }
            for query in ["", "id=", "id=\(q.id)&id=\(q.id)", "eventid=\(q.id)"] {
                try await client.execute(uri: "/api/event?" + query, method: .get) { r in
                    #expect(r.status == .badRequest, "\(query)")
                }
            }
        }
    }

    @Test func aDownloadIsTheListAsAnAttachment() async throws {
        let day = ServedStore.newestDay
        try await ServedStore.app(maxEvents: 1).test(.router) { client in
            let listed = try await client.execute(uri: "/api/day?day=\(day)", method: .get) { r in
                try #require(try ServedStore.json(r.body)["events"] as? [[Any]]).compactMap { $0[0] as? String }
            }
            try #require(listed.count > 1)
            // not capped by --max-events, which is 1 here
            try await client.execute(uri: "/api/download?day=\(day)&format=csv", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(r.headers[.contentDisposition] == "attachment; filename=\"quakes-\(day).csv\"")
                let rows = NaiveCSV.parse(String(buffer: r.body))
                let id = try #require(rows.first?.firstIndex(of: "id"))
                #expect(rows.dropFirst().map { $0[id] } == listed)
            }
            for query in ["day=\(day)", "day=\(day)&format=kmz", "format=csv&what=1"] {
                try await client.execute(uri: "/api/download?" + query, method: .get) { r in
                    #expect(r.status == .badRequest, "\(query)")
                }
            }
        }
    }
}
