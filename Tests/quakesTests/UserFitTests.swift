import Foundation
import Testing

/// Habits of duckdb, sqlite3 and FDSN users: negative coordinates after options, version,
/// typos, help for every subcommand, ndjson aggregates.
@Suite struct UserFitTests {
    @Test func negativeValuesFollowTheirOptions() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let all = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "latitude,longitude,depth,mag",
                               "--limit", "100000"]).stdout.split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) } }
        func count(_ args: [String]) throws -> Int {
            let r = try CLI.run(["count", "--store", s] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let south = all.filter { ($0[0] ?? 0) <= -10 && ($0[0] ?? 0) >= -40 && (($0[1] ?? 0) >= 170 || ($0[1] ?? 0) <= -170) }
        #expect(try count(["--bbox", "-40,-10,170,-170"]) == south.count)
        #expect(try count(["--min-mag", "-1"]) == all.filter { ($0[3] ?? -9) >= -1 }.count)
        #expect(try count(["--min-depth", "-2"]) == all.filter { ($0[2] ?? -9) >= -2 }.count)
        #expect(try count(["--near", "-33.45,-70.66", "--radius-km", "20000"]) == all.count)
        let r = try CLI.run(["query", "--store", s, "--limit", "-5"])
        #expect(r.status == 2 && r.stderr == "quakes: --limit must be >= 0 (see 'quakes query --help')\n")
    }

    @Test func versionTyposAndHelp() throws {
        let v = try CLI.run(["--version"])
        #expect(v.status == 0 && v.stdout.hasPrefix("quakes "))
        let t = try CLI.run(["quer"])
        #expect(t.status == 2 && t.stderr == "quakes: unknown command 'quer'; did you mean 'query'? (see 'quakes --help')\n")
        let e = try CLI.run(["explain", "--help"])
        #expect(e.status == 0 && e.stdout.contains("Run a query, count, agg or sections command"))
        let eq = try CLI.run(["explain", "query", "--help"])
        #expect(eq.status == 0 && eq.stdout.contains("List matching events"))
        func flat(_ s: String) -> String { s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let ah = try CLI.run(["agg", "--help"])
        #expect(flat(ah.stdout).contains("(values: table, csv, json, ndjson;"))
        let sh = try CLI.run(["sections", "--help"])
        #expect(flat(sh.stdout).contains("(values: table, json, ndjson;"))
        let qh = try CLI.run(["query", "--help"])
        #expect(flat(qh.stdout).contains("(values: table, csv, json, ndjson, geojson, text, parquet, arrow, svg, kml;"))
        let hh = try CLI.run(["history", "--help"])
        #expect(flat(hh.stdout).contains("(values: table, csv, json, ndjson;"))
        let xh = try CLI.run(["export", "--help"])
        #expect(flat(xh.stdout).contains("(values: csv, geojson, parquet, kml;"))
    }

    @Test func aggregatesAsNDJSON() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let csv = try CLI.run(["agg", "--store", s, "--by", "year", "--format", "csv"]).stdout
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let nd = try CLI.run(["agg", "--store", s, "--by", "year", "--format", "ndjson"])
        #expect(nd.status == 0)
        let objs = nd.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objs.count == csv.count && !csv.isEmpty)
        for (o, row) in zip(objs, csv) {
            #expect(o["year"] as? String == row[0])
            #expect((o["count"] as? NSNumber)?.intValue == Int(row[1]))
        }
    }

    @Test func loadingNothingAndWrongStores() throws {
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/empty", withIntermediateDirectories: true)
        let r = try CLI.run(["load", "--store", d + "/s", d + "/empty"])
        #expect(r.status == 1)
        #expect(r.stderr == "quakes: \(d)/empty: no feed files (looked for names containing .csv, .geojson or .json); "
                + "nothing was loaded\n")
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
        FileManager.default.createFile(atPath: d + "/file", contents: Data("x".utf8))
        let f = try CLI.run(["count", "--store", d + "/file"])
        #expect(f.status == 1 && f.stderr == "quakes: \(d)/file is a file, not a store directory\n")
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let p = try CLI.run(["load", "--store", s, "--partition", "year", s + "/../feed"])
        #expect(p.status == 2)
        #expect(p.stderr.contains("is partitioned by month") && p.stderr.split(separator: "\n").count == 1)
        #expect(try CLI.run(["load", "--store", s, "--partition", "month", s + "/../feed"]).status == 0)
    }

    @Test func sqlStyleWhereMeansTheSame() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let pairs = [
            ("net = 'us' and mag > 2", "net == \"us\" && mag > 2"),
            ("not (net <> 'ak') OR depth >= 30", "!(net != \"ak\") || depth >= 30"),
            ("NOT mag < 1 AND place = 'x''y'", "!(mag < 1) && place == \"x'y\""),
        ]
        for (sql, swift) in pairs {
            let a = try CLI.run(["count", "--store", s, "--where", sql])
            let b = try CLI.run(["count", "--store", s, "--where", swift])
            #expect(a.status == 0 && a.stdout == b.stdout, "\(sql): \(a.stdout) \(a.stderr) vs \(b.stdout)")
        }
        #expect(try CLI.run(["count", "--store", s, "--where", "net = 'us'"]).stdout != "0\n")
    }

    @Test func rejectListsSayHowManyMoreAndGoToAFile() throws {
        let d = CLI.tempDir()
        var rows = ["time,latitude,longitude,depth,mag,net,id"]
        // three reasons, none of them most of the file's rows: each reject is listed
        for i in 0..<250 {
            rows.append(["2024-01-01T00:00:00Z,999,1,1,1,us,b\(i)", "2024-01-01T00:00:00Z,1,999,1,1,us,b\(i)",
                         "2024-13-01T00:00:00Z,1,1,1,1,us,b\(i)"][i % 3])
        }
        rows.append("2024-01-01T00:00:00Z,1,1,1,1,us,good")
        FileManager.default.createFile(atPath: d + "/f.csv", contents: Data((rows.joined(separator: "\n") + "\n").utf8))
        let r = try CLI.run(["load", "--store", d + "/s", d + "/f.csv"])
        #expect(r.status == 0)   // the good row is committed; the rejects are reported
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("rejected: \(d)/f.csv:") }.count == 100)
        #expect(lines.last == "rejected: … and 150 more (use --rejects FILE for all)")
        let all = try CLI.run(["load", "--store", d + "/s2", d + "/f.csv", "--rejects", d + "/rej.txt"])
        #expect(all.stderr.split(separator: "\n").last == "rejected: … and 150 more (all 250 are in \(d)/rej.txt)")
        let file = try String(contentsOfFile: d + "/rej.txt", encoding: .utf8).split(separator: "\n")
        #expect(file.count == 250)
        let numbers: Set<Substring> = Set(file.map { $0.split(separator: ":")[1] })
        let want: Set<Substring> = Set((2...251).map { Substring(String($0)) })
        #expect(numbers == want)
    }

    @Test func geoJSONHonoursFieldsAndStampsGenerated() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 8)
        let r = try CLI.run(["query", "--store", s, "--format", "geojson", "--fields", "mag,place", "--limit", "3"])
        let csv = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "id,depth,mag", "--limit", "3"]).stdout
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let d = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let meta = d?["metadata"] as? [String: Any]
        #expect(((meta?["generated"] as? NSNumber)?.int64Value ?? 0) > 1_700_000_000_000)
        let features = d?["features"] as? [[String: Any]] ?? []
        #expect(features.count == 3)
        for (f, row) in zip(features, csv) {
            #expect(Set((f["properties"] as? [String: Any] ?? [:]).keys) == ["mag", "place"])
            #expect(f["id"] as? String == String(row[0]))
            let coords = (f["geometry"] as? [String: Any])?["coordinates"] as? [NSNumber]
            #expect(coords?.count == 3)
            #expect(coords?.last?.doubleValue == Double(row[1]))
        }
    }
}
