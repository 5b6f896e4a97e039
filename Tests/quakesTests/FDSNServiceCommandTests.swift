import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `quakes serve` to the letter of fdsnws-event and of HTTP: contributor, inclusive endtime,
/// HEAD/405/CORS, USGS titles, QuakeML's horizontal uncertainty, and stopping on a signal
/// whatever is connected. A live server on the real feeds, asked over plain sockets; every test
/// needs them. (Bind errors, which need no data, are in `ServeTests`.)
@Suite(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
struct FDSNServiceCommandTests {
    static let usgs = CLI.usgs
    static let csvTwin = "csv_2019-06-19_2019-07-19_3121.csv"
    static let geoJSONTwin = "geojson_2019-06-19_2019-07-19_3121.geojson"
    static let kilauea = "geojson_2018-06-07_2018-06-14_4711.geojson"

    /// One store for the suite: the 2019 CSV (Ridgecrest; no titles, no sources) and a 2018 GeoJSON
    /// week (titles and sources), which do not overlap.
    static let store: String? = {
        guard CLI.hasRealFeeds else { return nil }
        let d = CLI.tempDir("fit3store")
        let r = try? CLI.run(["load", "--store", d + "/s", usgs + "/" + csvTwin, usgs + "/" + kilauea])
        return r?.status == 0 ? d + "/s" : nil
    }()

    static func get(_ port: Int, _ path: String, _ method: String = "GET") throws -> HTTPProbe.Answer {
        try HTTPProbe.request(port: port, method, path)
    }

    static func count(_ port: Int, _ query: String) throws -> Int? {
        Int(try get(port, "/fdsnws/event/1/count?" + query).text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A feed file's bytes.
    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: usgs + "/" + name)))
    }

    /// `id` -> GeoJSON feature properties, from a feed.
    static func features(_ json: [UInt8]) throws -> [String: [String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let list = try #require(root["features"] as? [[String: Any]])
        var out: [String: [String: Any]] = [:]
        for f in list {
            if let id = f["id"] as? String, let p = f["properties"] as? [String: Any] { out[id] = p }
        }
        return out
    }

    // MARK: 1. contributor

    @Test func contributorIsTheSourcesOrElseTheNet() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let p = server.port
        // a CSV event: the text format prints its net as Contributor, and contributor finds it by that
        let text = try Self.get(p, "/fdsnws/event/1/query?eventid=ci38457511&format=text").text
        #expect(text.split(separator: "\n").last?.split(separator: "|", omittingEmptySubsequences: false)[7] == "ci")
        #expect(try Self.count(p, "eventid=ci38457511&contributor=ci") == 1)
        #expect(try Self.count(p, "eventid=ci38457511&contributor=us") == 0)
        // a GeoJSON event with sources ",hv,us,": either one finds it, another does not
        #expect(try Self.count(p, "eventid=hv70264436&contributor=us") == 1)
        #expect(try Self.count(p, "eventid=hv70264436&contributor=hv,ci") == 1)
        #expect(try Self.count(p, "eventid=hv70264436&contributor=ci") == 0)
        // every event: CSV rows by their net (the 11th field, before any quoted one), GeoJSON by sources
        let csv = try String(contentsOfFile: Self.usgs + "/" + Self.csvTwin, encoding: .utf8)
        let nets = csv.split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", maxSplits: 11, omittingEmptySubsequences: false)[10] }
        let geo = try Self.features(Self.file(Self.kilauea))
        for name in ["us", "ci", "hv"] {
            let byNet = nets.filter { $0 == name }.count
            let bySources = geo.values.filter { ($0["sources"] as? String)?.contains("," + name + ",") == true }.count
            #expect(try Self.count(p, "contributor=" + name) == byNet + bySources,
                    "contributor=\(name): \(byNet) + \(bySources)")
        }
    }

    // MARK: 2. endtime

    @Test func endtimeIsOnOrBefore() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let p = server.port
        let id = "eventid=ci38457511&"  // at 2019-07-06T03:19:53.040Z in this feed
        #expect(try Self.count(p, id + "starttime=2019-07-06T03:19:53Z&endtime=2019-07-06T03:19:53.040Z") == 1)
        #expect(try Self.count(p, id + "starttime=2019-07-06T03:19:53Z&endtime=2019-07-06T03:19:53.039Z") == 0)
        // starttime == endtime is the one instant, in either spelling
        #expect(try Self.count(p, id + "starttime=2019-07-06T03:19:53.040&endtime=2019-07-06T03:19:53.040") == 1)
        #expect(try Self.count(p, id + "start=2019-07-06T03:19:53.040Z&end=2019-07-06T03:19:53.04") == 1)
        #expect(try Self.count(p, "starttime=2019-07-06T03:19:53.040&endtime=2019-07-06T03:19:53.040") == 1)
        // digits past the millisecond do not widen the window
        #expect(try Self.count(p, id + "starttime=2019-07-06T03:19:53.0401&endtime=2019-07-06T03:19:54") == 0)
        #expect(try Self.count(p, id + "starttime=2019-07-06T03:19:53&endtime=2019-07-06T03:19:53.0409") == 1)
        // the answer of query agrees with count
        let instant = "starttime=2019-07-06T03:19:53.040&endtime=2019-07-06T03:19:53.040"
        let q = try Self.get(p, "/fdsnws/event/1/query?" + instant + "&format=text")
        #expect(q.status == 200 && q.text.contains("\nci38457511|"))
        // a start after the end is still a bad request
        let bad = try Self.get(p, "/fdsnws/event/1/query?starttime=2019-07-06T03:19:53.041"
                               + "&endtime=2019-07-06T03:19:53.040")
        #expect(bad.status == 400 && bad.text.contains("starttime"))
    }

    // MARK: 3. methods and CORS

    @Test func headIsGetWithoutABodyOtherMethodsAre405AndEveryAnswerAllowsAnyOrigin() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let p = server.port
        for path in ["/fdsnws/event/1/query?eventid=ci38457511&format=geojson",
                     "/fdsnws/event/1/query?eventid=ci38457511",
                     "/fdsnws/event/1/count?minmagnitude=5", "/fdsnws/event/1/version", "/", "/assets/app.js",
                     "/api/day?day=2019-07-06", "/healthz"] {
            let get = try Self.get(p, path), head = try Self.get(p, path, "HEAD")
            #expect(get.status == 200 && head.status == 200, "\(path): \(get.status) \(head.status)")
            #expect(head.body.isEmpty && !get.body.isEmpty, "\(path)")
            let type = get.headers["content-type"]
            #expect(type != nil && head.headers["content-type"] == type, "\(path)")
            #expect(head.headers["content-length"] == get.headers["content-length"], "\(path)")
            #expect(head.headers["x-quakes-rows"] == get.headers["x-quakes-rows"], "\(path)")
            #expect(get.headers["access-control-allow-origin"] == "*", "\(path)")
            #expect(head.headers["access-control-allow-origin"] == "*", "\(path)")
        }
        let page = try Self.get(p, "/", "HEAD")
        #expect(page.headers["content-length"] == String(try Self.get(p, "/").body.count))
        // OPTIONS is a browser's CORS preflight: 204, GET and HEAD from any origin
        for path in ["/fdsnws/event/1/query?limit=1", "/fdsnws/event/1/count", "/", "/api/day"] {
            let o = try Self.get(p, path, "OPTIONS")
            #expect(o.status == 204 && o.headers["access-control-allow-methods"] == "GET, HEAD", "\(path): \(o.status)")
            #expect(o.headers["access-control-allow-origin"] == "*" && o.headers["allow"] == "GET, HEAD, OPTIONS")
        }
        #expect(try Self.get(p, "/no/such/path", "OPTIONS").status == 404)
        for method in ["POST", "PUT", "DELETE", "PATCH", "PROPFIND"] {
            for path in ["/fdsnws/event/1/query?limit=1", "/fdsnws/event/1/count", "/fdsnws/event/1/application.wadl",
                         "/", "/assets/app.js", "/api/day", "/api/live", "/api/coastlines"] {
                let a = try Self.get(p, path, method)
                #expect(a.status == 405 && a.headers["allow"] == "GET, HEAD", "\(method) \(path): \(a.status)")
                #expect(a.headers["access-control-allow-origin"] == "*", "\(method) \(path)")
            }
            let unknown = try Self.get(p, "/no/such/path", method)
            #expect(unknown.status == 404 && unknown.headers["access-control-allow-origin"] == "*", "\(method) 404")
        }
        // errors and empty answers carry it too
        for (path, status) in [("/no/such/path", 404), ("/fdsnws/event/1/query?starttime=2100-01-01", 204),
                               ("/fdsnws/event/1/query?starttime=2100-01-01&nodata=404", 404),
                               ("/fdsnws/event/1/query?minmagnitude=abc", 400), ("/api/day?day=x", 400)] {
            for method in ["GET", "HEAD"] {
                let a = try Self.get(p, path, method)
                #expect(a.status == status && a.headers["access-control-allow-origin"] == "*", "\(method) \(path)")
            }
        }
        #expect(server.process.isRunning)
    }

    // MARK: 4. titles

    @Test func csvEventsGetUSGSTitlesAndStoredTitlesAreKept() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let p = server.port
        // the CSV twin of a GeoJSON feed: every title the service makes is USGS's own
        let twin = try Self.features(Self.file(Self.geoJSONTwin))
        let got = try Self.features(try Self.get(p, "/fdsnws/event/1/query?format=geojson"
                                                 + "&starttime=2019-06-19&endtime=2019-07-20").body)
        #expect(got.count == twin.count && got.count == 3121)
        let wrong = got.filter { id, props in (props["title"] as? String) != (twin[id]?["title"] as? String) }
        let example = wrong.first.map { "\($0.key): \($0.value["title"] ?? "nil")" } ?? ""
        #expect(wrong.isEmpty, "\(wrong.count) titles differ, e.g. \(example)")
        #expect(got["ci38457511"]?["title"] as? String == "M 7.1 - 2019 Ridgecrest Earthquake Sequence")
        // GeoJSON events keep the title they were loaded with
        let kilauea = try Self.features(Self.file(Self.kilauea))
        let served = try Self.features(try Self.get(p, "/fdsnws/event/1/query?format=geojson&starttime=2018-06-01"
                                                    + "&endtime=2018-06-30").body)
        #expect(served.count == kilauea.count)
        #expect(served.allSatisfy { id, props in (props["title"] as? String) == (kilauea[id]?["title"] as? String) })
    }

    /// A feed with its titles taken out: the titles made from mag, type and place are USGS's, for
    /// small and negative magnitudes (`M -0.0`), halves (2.65 is `2.7`) and named types
    /// (`M 1.1 Explosion - ...`); a title that is there is written as stored, even one USGS would not make.
    @Test func titlesMadeForEveryMagnitudeAndType() throws {
        let file = Self.usgs + "/geojson_2023-03-31_2023-04-07_2389.geojson"
        let original = try String(contentsOfFile: file, encoding: .utf8)
        let untitled = original.replacingOccurrences(of: #",\s*"title"\s*:\s*"(?:[^"\\]|\\.)*""#, with: "",
                                                     options: .regularExpression)
        #expect(!untitled.contains("\"title\""))
        let d = CLI.tempDir()
        try untitled.write(toFile: d + "/untitled.geojson", atomically: true, encoding: .utf8)
        let kept = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"mag":1.0,"#
            + #""place":"here","time":1680300000000,"updated":1680300000000,"net":"zz","code":"1","type":"earthquake","#
            + #""title":"A title of its own"},"geometry":{"type":"Point","coordinates":[1,2,3]},"id":"zz1"}]}"#
        try kept.write(toFile: d + "/kept.geojson", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/untitled.geojson", d + "/kept.geojson"]).status == 0)
        let want = try Self.features(Array(original.utf8))
        let r = try CLI.run(["query", "--store", d + "/s", "--format", "geojson", "--limit", "10000"])
        let got = try Self.features(Array(r.stdout.utf8))
        #expect(got.count == want.count + 1)
        let wrong = want.filter { id, props in (props["title"] as? String) != (got[id]?["title"] as? String) }
        let example = wrong.first.map { "\($0.key): \(got[$0.key]?["title"] ?? "nil")" } ?? ""
        #expect(wrong.isEmpty, "\(wrong.count) differ, e.g. \(example)")
        #expect(got["zz1"]?["title"] as? String == "A title of its own")
        // the cases that matter are in the feed
        let titles = Set(want.values.compactMap { $0["title"] as? String }.map { $0.prefix(9) })
        #expect(titles.contains("M -0.0 - ") && titles.contains { $0.hasPrefix("M 1.1 Exp") })
    }

    // MARK: 5. QuakeML horizontal uncertainty

    @Test func quakeMLCarriesTheHorizontalUncertaintyInMetres() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let p = server.port
        // horizontalError 0.19 km in the CSV
        let one = try Self.get(p, "/fdsnws/event/1/query?eventid=ci38457511").text
        #expect(one.contains("<originUncertainty><horizontalUncertainty>190</horizontalUncertainty>"
            + "<preferredDescription>horizontal uncertainty</preferredDescription></originUncertainty>"))
        // one per event that has a horizontalError (the 16th CSV field), none for the others
        let csv = try String(contentsOfFile: Self.usgs + "/" + Self.csvTwin, encoding: .utf8)
        let day = csv.split(separator: "\n").dropFirst().filter { $0.hasPrefix("2019-07-06") }
        let withError = try day.filter { row in
            // the place may be quoted and hold commas: count fields from the end, where none are quoted
            let tail = row.split(separator: ",", omittingEmptySubsequences: false).suffix(7)
            return !(try #require(tail.first)).isEmpty
        }
        let xml = try Self.get(p, "/fdsnws/event/1/query?starttime=2019-07-06&endtime=2019-07-06T23:59:59.999").text
        #expect(xml.components(separatedBy: "<event ").count - 1 == day.count)
        #expect(xml.components(separatedBy: "<horizontalUncertainty>").count - 1 == withError.count)
        #expect(withError.count > 100)
    }

    @Test(.enabled(if: ServeTests.hasObsPy, "needs obspy in the venv (its QuakeML XSD; make test installs it)"))
    func quakeMLWithUncertaintiesPassesObsPysSchema() throws {
        let server = try ServeTests.Server(store: try #require(Self.store))
        let path = CLI.tempDir() + "/day.xml"
        let xml = try Self.get(server.port, "/fdsnws/event/1/query?starttime=2019-07-06&endtime=2019-07-07").body
        try Data(xml).write(to: URL(fileURLWithPath: path))
        // the XSD (QuakeML-1.2.xsd imports the BED schema) and ObsPy's own RelaxNG check
        let script = """
            import os, sys
            from lxml import etree
            import obspy.io.quakeml.core as q
            xsd = os.path.join(os.path.dirname(q.__file__), "data", "QuakeML-1.2.xsd")
            schema = etree.XMLSchema(etree.parse(xsd))
            doc = etree.parse(sys.argv[1])
            ok = schema.validate(doc) and q._validate(sys.argv[1])
            print("valid" if ok else "invalid", schema.error_log.last_error)
            """
        let r = try CLI.exec(ServeTests.python, ["-c", script, path])
        #expect(r.stdout.hasPrefix("valid"), "\(r.stdout)\(r.stderr)")
    }

    // MARK: 6. stop on signal

    @Test func sigtermStopsWithinTwoSecondsWhateverIsConnected() throws {
        try stops(on: SIGTERM)
    }

    @Test func sigintStopsWithinTwoSecondsWhateverIsConnected() throws {
        try stops(on: SIGINT)
    }

    /// A page's live feed, an idle keep-alive connection and a client that does not read a large
    /// answer are all connected when the signal comes; the process is gone within 2 s, and the live
    /// feed's connection is ended.
    func stops(on sig: Int32) throws {
        let server = try ServeTests.Server(store: try #require(Self.store), ["--max-events", "100000"])
        let p = server.port
        let live = try HTTPProbe.connect(port: p, timeout: 10)
        defer { close(live) }
        try HTTPProbe.send(live, "GET", "/api/live", close: false)
        #expect(HTTPProbe.read(live, until: "event: hello"))
        let idle = try HTTPProbe.connect(port: p, timeout: 10)
        defer { close(idle) }
        try HTTPProbe.send(idle, "GET", "/healthz", close: false)
        #expect(HTTPProbe.read(idle, until: "ok\n"))
        let slow = try HTTPProbe.connect(port: p, receiveBuffer: 4096, timeout: 10)
        defer { close(slow) }
        try HTTPProbe.send(slow, "GET", "/fdsnws/event/1/query?format=xml")
        #expect(HTTPProbe.read(slow, until: "<q:quakeml"))
        Thread.sleep(forTimeInterval: 0.5)  // the answer fills the socket buffers and waits
        #expect(server.process.isRunning)
        let start = Date()
        kill(server.process.processIdentifier, sig)
        while server.process.isRunning && Date().timeIntervalSince(start) < 10 { Thread.sleep(forTimeInterval: 0.01) }
        let took = Date().timeIntervalSince(start)
        #expect(!server.process.isRunning && took < 2, "still running \(took) s after signal \(sig)")
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        #expect(HTTPProbe.readToEnd(live).ended, "the live feed's connection was closed")
    }
}
