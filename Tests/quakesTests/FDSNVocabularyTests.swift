import Foundation
import Testing

/// The FDSN event service's parameter names as flags (longitudes past ±180 among them), its text
/// format, and epoch-seconds feeds.
@Suite struct FDSNVocabularyTests {
    private func count(_ s: String, _ args: [String]) throws -> Int {
        let r = try CLI.run(["count", "--store", s] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func aliasesMatchTheNativeFlags() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 11)
        let pairs: [([String], [String])] = [
            (["--starttime", "2024-03-01", "--endtime", "2024-09-01"], ["--from", "2024-03-01", "--to", "2024-09-01"]),
            (["--minmagnitude", "2.5", "--maxmagnitude", "4"], ["--min-mag", "2.5", "--max-mag", "4"]),
            (["--mindepth", "-1", "--maxdepth", "30"], ["--min-depth", "-1", "--max-depth", "30"]),
            (["--minlatitude", "-40", "--maxlatitude", "50", "--minlongitude", "-170", "--maxlongitude", "-60"],
             ["--bbox", "-40,50,-170,-60"]),
            (["--minlatitude", "10"], ["--bbox", "10,90,-180,180"]),
            (["--latitude", "35", "--longitude", "-118", "--maxradiuskm", "800"], ["--near", "35,-118", "--radius-km", "800"]),
            (["--latitude", "35", "--longitude", "-118", "--maxradius", "7.5"],
             ["--near", "35,-118", "--radius-km", String(7.5 * 6371.0088 * Double.pi / 180)]),
            (["--catalog", "ak,us"], ["--net", "ak,us"]),
            (["--eventtype", "earthquake"], ["--type", "earthquake"]),
            (["--magnitudetype", "ml"], ["--mag-type", "ml"]),
        ]
        for (fdsn, native) in pairs {
            let n = try count(s, native)
            #expect(try count(s, fdsn) == n, "\(fdsn)")
            #expect(n > 0, "\(native) matches nothing, so the comparison proves little")
        }
        let ids = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "id", "--limit", "3", "--no-header"])
            .stdout.split(separator: "\n").joined(separator: ",")
        #expect(try count(s, ["--id", ids]) == 3)
        // the service's eventid is one event, found by any of its ids
        let first = String(ids.split(separator: ",")[0])
        #expect(try count(s, ["--eventid", first]) == 1)
        // one id: a list is a usage error, not a search for the text ",a,b," in the ids lists
        let two = try CLI.run(["count", "--store", s, "--eventid", ids])
        #expect(two.status == 2 && two.stderr.contains("without commas"), "\(two.stderr)")
        let none = try CLI.run(["count", "--store", s, "--id", " , "])
        #expect(none.status == 2 && none.stderr.contains("--id"), "\(none.stderr)")
        #expect(try count(s, ["--id", first + "," + first + ", " + first]) == 1)
        // updatedafter: against the updated column itself
        let updated = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "updated", "--no-header"])
            .stdout.split(separator: "\n").map(String.init)
        let cut = updated.sorted()[updated.count / 2]
        #expect(try count(s, ["--updatedafter", cut]) == updated.filter { $0 >= cut }.count)
        // orderby equals the sort it names
        for (o, sort) in [("time", "time:desc"), ("time-asc", "time:asc"), ("magnitude", "mag:desc"),
                          ("magnitude-asc", "mag:asc")] {
            let a = try CLI.run(["query", "--store", s, "--orderby", o, "--limit", "40", "--format", "csv"])
            let b = try CLI.run(["query", "--store", s, "--sort", sort, "--limit", "40", "--format", "csv"])
            #expect(a.status == 0 && a.stdout == b.stdout && a.stderr == b.stderr)
        }
        let bad = try CLI.run(["query", "--store", s, "--orderby", "mag"])
        #expect(bad.status == 2 && bad.stderr == "quakes: --orderby: expected time, time-asc, magnitude or magnitude-asc "
            + "(see 'quakes query --help')\n")
        let both = try CLI.run(["count", "--store", s, "--bbox", "0,1,0,1", "--minlatitude", "0"])
        #expect(both.status == 2 && both.stderr.hasPrefix("quakes: --bbox cannot be combined with --minlatitude"))
        let half = try CLI.run(["count", "--store", s, "--latitude", "35", "--maxradius", "2"])
        #expect(half.status == 2 && half.stderr == "quakes: --latitude and --longitude go together (see 'quakes count --help')\n")
    }

    @Test func textFormatIsTheServicesPipeFormat() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 11)
        let text = try CLI.run(["query", "--store", s, "--format", "text", "--sort", "mag:desc", "--limit", "50"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.first == "#EventID|Time|Latitude|Longitude|Depth/km|Author|Catalog|Contributor|ContributorID|"
            + "MagType|Magnitude|MagAuthor|EventLocationName")
        let csv = try CLI.run(["query", "--store", s, "--format", "json", "--sort", "mag:desc", "--limit", "50"]).stdout
        let rows = try #require((try JSONSerialization.jsonObject(with: Data(csv.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])
        #expect(lines.count == 51 && rows.count == 50)
        for (line, row) in zip(lines.dropFirst(), rows) {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            func str(_ k: String) -> String { (row[k] as? String) ?? "" }
            func num(_ k: String) -> String { (row[k] as? NSNumber).map { "\($0)" } ?? "" }
            #expect(f.count == 13)
            #expect(f[0] == str("id") && f[8] == str("id"))
            #expect(f[1] + "Z" == str("time"))
            #expect(Double(f[2]) == (row["latitude"] as? Double) && Double(f[3]) == (row["longitude"] as? Double))
            #expect(Double(f[4]) == (row["depth"] as? Double))
            #expect(f[5] == str("locationSource") && f[6] == str("net") && f[7] == str("net"))
            #expect(f[9] == str("magType") && Double(f[10]) == (row["mag"] as? Double) && f[11] == str("magSource"))
            #expect(f[12] == str("place"))
        }
        let noHeader = try CLI.run(["query", "--store", s, "--format", "text", "--sort", "mag:desc", "--limit", "50",
                                    "--no-header"])
        #expect(noHeader.stdout == lines.dropFirst().map { $0 + "\n" }.joined())
        let fields = try CLI.run(["query", "--store", s, "--format", "text", "--fields", "mag"])
        #expect(fields.status == 2 && fields.stderr.hasPrefix("quakes: --fields: the text format has fixed FDSN columns"))
    }

    /// A real GeoJSON feed re-saved with times in seconds, and one odd row among milliseconds.
    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func epochSecondsAreDetectedPerFile() throws {
        let d = CLI.tempDir()
        let real = CLI.usgs + "/geojson_2019-01-29_2019-01-30_233.geojson"
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: real))) as? [String: Any])
        var features = try #require(doc["features"] as? [[String: Any]])
        func resave(_ path: String, _ change: (Int, inout [String: Any]) -> Void) throws {
            var fs = features
            for i in fs.indices {
                var p = fs[i]["properties"] as? [String: Any] ?? [:]
                change(i, &p)
                fs[i]["properties"] = p
            }
            doc["features"] = fs
            try JSONSerialization.data(withJSONObject: doc).write(to: URL(fileURLWithPath: path))
        }
        func seconds(_ p: inout [String: Any], _ k: String) {
            if let v = (p[k] as? NSNumber)?.int64Value { p[k] = v / 1000 }
        }
        try resave(d + "/sec.geojson") { _, p in seconds(&p, "time"); seconds(&p, "updated") }
        try resave(d + "/ms.geojson") { _, p in p["time"] = ((p["time"] as? NSNumber)?.int64Value ?? 0) / 1000 * 1000
            p["updated"] = ((p["updated"] as? NSNumber)?.int64Value ?? 0) / 1000 * 1000 }
        try resave(d + "/mixed.geojson") { i, p in if i == 7 { seconds(&p, "time") } }
        features = []

        let first = try CLI.run(["load", "--store", d + "/a", d + "/sec.geojson"])
        #expect(first.status == 0)
        let warning = first.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warning.count == 1)
        #expect(warning.first?.contains("sec.geojson: reading integer times as epoch seconds (") == true)
        #expect(warning.first?.hasSuffix("pass --time-unit ms if that is wrong") == true)
        #expect(try CLI.run(["load", "--store", d + "/b", d + "/ms.geojson"]).status == 0)
        let a = try CLI.run(["export", "--store", d + "/a"]).stdout, b = try CLI.run(["export", "--store", d + "/b"]).stdout
        #expect(a == b && a.split(separator: "\n").count == 234)
        #expect(!a.contains("1970-"))

        let strict = try CLI.run(["load", "--store", d + "/c", "--strict", d + "/sec.geojson"])
        #expect(strict.status == 1 && strict.stdout.isEmpty)
        #expect(strict.stderr.split(separator: "\n").count == 1)
        #expect(strict.stderr.contains("sec.geojson: integer times look like epoch seconds"))
        #expect(strict.stderr.hasSuffix("say which with --time-unit s or --time-unit ms; nothing committed\n"))
        #expect(try CLI.run(["load", "--store", d + "/c", "--strict", "--time-unit", "s", d + "/sec.geojson"]).status == 0)
        #expect(try CLI.run(["export", "--store", d + "/c"]).stdout == a)
        let forced = try CLI.run(["load", "--store", d + "/e", "--time-unit", "ms", d + "/sec.geojson"])
        #expect(forced.status == 0 && !forced.stderr.contains("warning:"))
        #expect(try count(d + "/e", ["--to", "1971-01-01"]) == 233)

        let mixed = try CLI.run(["load", "--store", d + "/m", d + "/mixed.geojson"])
        #expect(mixed.status == 0)  // a load with rejects commits the rest, reports them, and exits 0
        #expect(mixed.stderr.contains("mixed.geojson: feature 7: time: "))
        #expect(mixed.stderr.contains("looks like epoch seconds in a file of milliseconds"))
        #expect(try count(d + "/m", []) == 232)
        #expect(try count(d + "/m", ["--to", "1971-01-01"]) == 0)
    }

    /// Longitudes past ±180 on the CLI, as the service takes them: 170...190 is the box across 180°.
    @Test func longitudesPastTheAntimeridian() throws {
        let store = try CLI.generatedStore(rows: "4000", seed: 53)
        let across = try CLI.run(["count", "--store", store, "--minlongitude", "170", "--maxlongitude", "190"])
        #expect(across.status == 0, "\(across.stderr)")
        let bbox = try CLI.run(["count", "--store", store, "--bbox", "-90,90,170,-170"])
        #expect(across.stdout == bbox.stdout)
        let west = try CLI.run(["count", "--store", store, "--minlon", "-190", "--maxlon", "-170"])
        #expect(west.stdout == bbox.stdout)
        let bad = try CLI.run(["count", "--store", store, "--minlongitude", "200", "--maxlongitude", "100"])
        #expect(bad.status == 2 && bad.stderr.contains("minlongitude"))
    }
}
