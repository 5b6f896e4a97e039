import Foundation
import Testing
import QuakeInterchange

/// `--format kml` and the service's `format=kml`, read back by Python's `xml.etree.ElementTree`
/// (`Python/check_kml.py`) and compared with the USGS CSV they were loaded from.
@Suite(.serialized) struct KMLTests {
    /// A python for the checks: the venv's, else the system's (only the standard library is used).
    static let python: String? = [ServeTests.python, "/usr/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_kml.py").path
    /// Ridgecrest week: negative magnitudes and depths, events deeper than 500 km, quarry blasts,
    /// ice quakes and explosions.
    static let feed = CLI.usgs + "/csv_2019-06-30_2019-07-07_5834.csv"

    /// A store of the Ridgecrest week.
    static func store(_ tag: String) throws -> String {
        let d = CLI.tempDir(tag)
        let r = try CLI.run(["load", "--store", d + "/s", feed])
        #expect(r.status == 0, "\(r.stderr)")
        return d + "/s"
    }

    /// Runs `quakes ARGS`, its standard output to `file`.
    static func kml(_ args: [String], to file: String) throws {
        let r = try CLI.exec(CLI.binary, args, stdoutFile: file)
        #expect(r.status == 0, "\(args): \(r.stderr)")
    }

    static func check(_ args: [String]) throws {
        let r = try CLI.exec(try #require(python, "callers are enabled only where a python is found"), [script] + args)
        #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(r.stdout)\(r.stderr)")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: KMLTests.python != nil, "needs python3"))
    func queryAndExportMatchTheFeed() throws {
        let s = try Self.store("kmlfeed")
        let d = CLI.tempDir("kmlfeedout")
        try Self.kml(["query", "--store", s, "--format", "kml"], to: d + "/query.kml")
        try Self.check(["feed", Self.feed, d + "/query.kml"])
        try Self.kml(["export", "--store", s, "--format", "kml"], to: d + "/export.kml")
        try Self.check(["feed", Self.feed, d + "/export.kml"])
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: KMLTests.python != nil, "needs python3"))
    func theServiceGivesWhatTheCLIGives() throws {
        let s = try Self.store("kmlserve")
        let d = CLI.tempDir("kmlserveout")
        try Self.kml(["query", "--store", s, "--min-mag", "2.5", "--orderby", "time", "--format", "kml"],
                     to: d + "/cli.kml")
        let server = try ServeTests.Server(store: s)
        try Self.check(["serve", String(server.port), "minmagnitude=2.5&orderby=time", d + "/cli.kml"])
    }

    @Test(.enabled(if: KMLTests.python != nil, "needs python3"))
    func textIsEscaped() throws {
        let d = CLI.tempDir("kmlescape")
        let csv = """
            time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,\
            horizontalError,depthError,magError,magNst,status,locationSource,magSource
            2024-06-15T01:02:03.456Z,35.5,-117.25,8.123,4.45,m<l>,,,,,ci,ci1,2024-06-15T02:00:00.000Z,\
            "5 km N of ""A&B"" <Town> & O'Neil ]]> end",quarry,,,,,reviewed,ci,ci

            """
        try csv.write(toFile: d + "/feed.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/feed.csv"]).status == 0)
        try Self.kml(["query", "--store", d + "/s", "--format", "kml"], to: d + "/one.kml")
        try Self.check(["escape", d + "/one.kml"])
        let text = try String(contentsOfFile: d + "/one.kml", encoding: .utf8)
        #expect(text.contains("<coordinates>-117.25,35.5,-8123</coordinates>"))
    }

    @Test func xmlEscapingAndMagnitudeRounding() {
        var out: [UInt8] = []
        XMLText.escaped("a&b <c> \"d\" 'e'\u{1}".utf8, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; ")
        out = []
        XMLText.htmlInCDATA("x]]>y & \"z\"".utf8, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x]]&gt;y &amp; &quot;z&quot;")
        // scaled decimals: mantissa << 6 | scale
        func rounded(_ mantissa: Int64, scale: Int64) -> String {
            var o: [UInt8] = []
            KMLWriter.oneDecimal(mantissa << 6 | scale, into: &o)
            return String(decoding: o, as: UTF8.self)
        }
        #expect(rounded(445, scale: 2) == "4.5")
        #expect(rounded(5, scale: 0) == "5.0")
        #expect(rounded(-4, scale: 2) == "0.0")
        #expect(rounded(-125, scale: 2) == "-1.3")
        #expect(rounded(995, scale: 2) == "10.0")
        #expect(rounded(1_234_449_999, scale: 9) == "1.2")
        #expect(rounded(71, scale: 1) == "7.1")
    }

    @Test func kmlTakesNoFields() throws {
        let r = try CLI.run(["query", "--store", CLI.tempDir() + "/none", "--format", "kml", "--fields", "mag"])
        #expect(r.status == 2 && r.stderr.contains("--fields"), "\(r.stderr)")
    }
}
