import Foundation
import Testing

/// End-to-end runs of query, count, agg, sections and explain on generated stores: formats and
/// paging, `--where` in SQL's spelling against the native one and a naive reference, negative
/// values after their options, and the time window's bounds.
@Suite struct QueryCommandTests {
    static let store: String = {
        let d = CLI.tempDir("querycli")
        _ = try! CLI.run(["generate", "--rows", "5000", "--out", d + "/gen", "--years", "2024-2024", "--seed", "11"])
        _ = try! CLI.run(["load", "--store", d + "/s", d + "/gen"])
        return d + "/s"
    }()

    @Test func badQueriesExitTwoWithOneLineHint() throws {
        let cases: [[String]] = [
            ["query", "--fields", "time,bogus"], ["query", "--from", "2024-13-45"], ["query", "--where", "mag >= "],
            ["query", "--sort", "nope:desc"], ["query", "--sort", ""], ["query", "--sort", ":desc"], ["count", "--bbox", "1,2,3"], ["agg", "--by", "planet"], ["agg", "--metrics", "mode(mag)"],
            ["query", "--after", "not-a-cursor"], ["sections", "--by", "year"], ["explain", "frobnicate"], ["query", "--day", "2024-6-1"],
        ]
        for args in cases {
            let r = try CLI.run(args + ["--store", Self.store])
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        let w = try CLI.run(["query", "--store", Self.store, "--where", "mag >= 4 && bogus == 1"])
        #expect(w.stderr.contains("column 13") && w.stderr.contains("bogus"))
    }

    @Test func formatsAndCursorPaging() throws {
        let s = Self.store
        let all = try CLI.run(["query", "--store", s, "--sort", "mag:desc", "--format", "csv", "--fields", "id,mag"])
        let ids = all.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
        #expect(ids.count == 5000)
        // three pages through the cursor equal the first 300 rows
        var after: String?
        var paged: [String] = []
        for _ in 0..<3 {
            var args = ["query", "--store", s, "--sort", "mag:desc", "--format", "ndjson", "--fields", "id", "--limit", "100"]
            if let after { args += ["--after", after] }
            let r = try CLI.run(args)
            for line in r.stdout.split(separator: "\n") {
                let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                paged.append(o["id"] as! String)
            }
            after = r.stderr.split(separator: "\n").first { $0.hasPrefix("cursor: ") }.map { String($0.dropFirst(8)) }
        }
        #expect(paged == Array(ids.prefix(300)))
        // --page 2 equals rows 51...100
        let p2 = try CLI.run(["query", "--store", s, "--sort", "mag:desc", "--page", "2", "--page-size", "50", "--format", "json", "--fields", "id"])
        let env = try JSONSerialization.jsonObject(with: Data(p2.stdout.utf8)) as! [String: Any]
        #expect((env["rows"] as! [[String: Any]]).map { $0["id"] as! String } == Array(ids[50..<100]))
        #expect(env["cursor"] is String && env["count"] as? Int == 50)
        // csv and geojson output load again into an equal store
        for f in ["csv", "geojson"] {
            let d = CLI.tempDir("reload")
            let out = try CLI.run(["query", "--store", s, "--format", f, "--limit", "1000000"])
            try out.stdout.write(toFile: d + "/out." + f, atomically: true, encoding: .utf8)
            let l = try CLI.run(["load", "--store", d + "/s", d + "/out." + f])
            #expect(l.status == 0, "\(f): \(l.stderr)")
            #expect(try CLI.run(["count", "--store", d + "/s"]).stdout == "5000\n")
        }
        let table = try CLI.run(["query", "--store", s, "--place-like", "pahala", "--limit", "3"])
        let matched = Int(try CLI.run(["count", "--store", s, "--place-like", "pahala"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(table.stdout.contains("Pāhala"))
        #expect(table.stdout.hasSuffix(matched > 3 ? "(3 of \(TableOutputTests.grouped(matched)) rows)\n" : "(3 rows)\n"))
        // csv counts only as far as the row past the page: a cursor exactly when rows remain
        for (limit, offset) in [(matched - 1, 0), (matched, 0), (1, matched - 1), (1, matched - 2)] where limit > 0 {
            let r = try CLI.run(["query", "--store", s, "--place-like", "pahala", "--sort", "mag:desc", "--format", "csv",
                                 "--limit", "\(limit)", "--offset", "\(offset)", "--fields", "id"])
            #expect(r.stderr.contains("cursor: ") == (offset + limit < matched), "limit \(limit) offset \(offset) of \(matched)")
        }
    }

    @Test func countAggSectionsAndExplainAgree() throws {
        let s = Self.store
        let n = Int(try CLI.run(["count", "--store", s, "--min-mag", "2"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))!
        let agg = try CLI.run(["agg", "--store", s, "--min-mag", "2", "--by", "month", "--metrics", "count,max(mag)", "--format", "json"])
        let groups = (try JSONSerialization.jsonObject(with: Data(agg.stdout.utf8)) as! [String: Any])["groups"] as! [[String: Any]]
        #expect(groups.reduce(0) { $0 + ($1["count"] as! Int) } == n && groups.count == 12)
        let sec = try CLI.run(["sections", "--store", s, "--min-mag", "2", "--by", "net", "--format", "json", "--limit-per-section", "1"])
        let secs = try JSONSerialization.jsonObject(with: Data(sec.stdout.utf8)) as! [[String: Any]]
        #expect(secs.reduce(0) { $0 + ($1["count"] as! Int) } == n)
        let ex = try CLI.run(["explain", "count", "--store", s, "--min-mag", "2"])
        #expect(ex.status == 0 && ex.stdout.contains("count:       \(n)") && ex.stdout.contains("kernels:"))
        let slow = try CLI.run(["explain", "query", "--store", s, "--day", "2024-03-01", "--sort", "mag:desc", "--limit", "5"])
        #expect(slow.stdout.contains("pruned by the time index") && slow.stdout.contains("slow path:   none"))
    }

    static func count(_ store: String, _ args: [String]) throws -> Int {
        let r = try CLI.run(["count", "--store", store] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func sqlHabitsInWhereMatchANaiveReference() throws {
        let s = try CLI.generatedStore(rows: "4000", seed: 12)
        // and events with empty fields, for the three-valued logic
        var extra = ["time,latitude,longitude,depth,mag,magType,net,id,updated,place"]
        for k in 0..<300 {
            let depth = k % 3 == 0 ? "" : "\(Double(k % 40) / 2)", mag = k % 5 == 0 ? "" : "\(Double(k % 60) / 10)"
            let net = k % 7 == 0 ? "" : ["us", "ak", "nc"][k % 3], place = k % 4 == 0 ? "" : "\"\(k % 30) km N of Town \(k), CA\""
            extra.append("2020-01-01T00:\(String(format: "%02d:%02d", k / 60, k % 60))Z,10,20,\(depth),\(mag),ml,\(net),x\(k),"
                + "2020-02-01T00:00:00Z,\(place)")
        }
        let extraFile = CLI.tempDir() + "/nulls.csv"
        try (extra.joined(separator: "\n") + "\n").write(toFile: extraFile, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", s, extraFile]).status == 0)
        let csv = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "id,mag,depth,net,place,magType",
                               "--limit", "100000"]).stdout
        struct Row { var id: String; var mag: Double?; var depth: Double?; var net: String?; var place: String?; var magType: String? }
        let rows: [Row] = csv.split(separator: "\n").dropFirst().map { line in
            var fields: [String] = []
            var cur = "", quoted = false
            for ch in line {
                if ch == "\"" { quoted.toggle(); continue }
                if ch == "," && !quoted { fields.append(cur); cur = ""; continue }
                cur.append(ch)
            }
            fields.append(cur)
            func t(_ k: Int) -> String? { fields[k].isEmpty ? nil : fields[k] }
            return Row(id: fields[0], mag: Double(fields[1]), depth: Double(fields[2]), net: t(3), place: t(4), magType: t(5))
        }
        #expect(rows.count == 4300)
        #expect(rows.contains { $0.depth == nil } && rows.contains { $0.mag == nil })
        func check(_ w: String, _ ref: (Row) -> Bool) throws {
            #expect(try Self.count(s, ["--where", w]) == rows.filter(ref).count, "\(w)")
        }
        try check("not depth < 10") { r in r.depth.map { !($0 < 10) } ?? false }
        try check("!(depth < 10 or mag > 3)") { r in
            guard let d = r.depth, let m = r.mag else { return false }   // NOT of an unknown is unknown
            return d >= 10 && m <= 3
        }
        try check("not not depth < 10") { r in r.depth.map { $0 < 10 } ?? false }
        try check("depth != 10") { r in r.depth.map { $0 != 10 } ?? false }
        try check("mag BETWEEN 2 AND 3.5") { r in r.mag.map { $0 >= 2 && $0 <= 3.5 } ?? false }
        try check("mag NOT BETWEEN 2 AND 3.5") { r in r.mag.map { !($0 >= 2 && $0 <= 3.5) } ?? false }
        try check("net IN ('us', 'ak', 'ci')") { r in ["us", "ak", "ci"].contains(r.net ?? "") }
        try check("net NOT IN ('us', 'ak')") { r in r.net.map { !["us", "ak"].contains($0) } ?? false }
        try check("depth IS NULL") { $0.depth == nil }
        try check("depth IS NOT NULL and mag is null") { $0.depth != nil && $0.mag == nil }
        try check("place LIKE '%of%'") { $0.place?.contains("of") ?? false }
        try check("place LIKE '1_ km%'") { r in
            guard let p = r.place, p.hasPrefix("1"), p.count >= 5 else { return false }
            return Array(p)[2...4].map(String.init).joined() == " km"
        }
        try check("place ILIKE '%ALASKA'") { $0.place?.lowercased().hasSuffix("alaska") ?? false }
        try check("place NOT LIKE '%, CA'") { r in r.place.map { !$0.hasSuffix(", CA") } ?? false }
        try check("magType LIKE 'm_'") { r in r.magType.map { $0.count == 2 && $0.hasPrefix("m") } ?? false }
        let bad = try CLI.run(["count", "--store", s, "--where", "mag BETWEEN 2"])
        #expect(bad.status == 2 && bad.stderr.contains("expected AND"))
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

    @Test func fromAfterToIsAUsageError() throws {
        let store = try CLI.generatedStore(rows: "500", seed: 50)
        let r = try CLI.run(["count", "--store", store, "--from", "2024-02-01", "--to", "2024-01-01"])
        #expect(r.status == 2 && r.stderr.contains("--from 2024-02-01 is after --to 2024-01-01"), "\(r.stderr)")
        let q = try CLI.run(["query", "--store", store, "--starttime", "2024-02-01", "--endtime", "2024-01-01"])
        #expect(q.status == 2 && q.stderr.contains("is after --endtime"))
        // the same instant is one instant with the inclusive --endtime, an empty window with --to
        let first = try CLI.run(["query", "--store", store, "--orderby", "time-asc", "--limit", "1", "--format", "csv",
                                 "--fields", "time"]).stdout.split(separator: "\n")
        let t = String(try #require(first.last))
        #expect(try CLI.run(["count", "--store", store, "--starttime", t, "--endtime", t]).stdout == "1\n")
        #expect(try CLI.run(["count", "--store", store, "--from", t, "--to", t]).stdout == "0\n")
        // digits past the millisecond never widen a bound: t is .xyz, so .xyz1 starts after it
        let later = String(t.dropLast()) + "1Z", earlier = String(t.dropLast()) + "0Z"
        #expect(t.hasSuffix("Z") && t.count == 24)
        #expect(try CLI.run(["count", "--store", store, "--from", t, "--to", later]).stdout == "1\n")
        #expect(try CLI.run(["count", "--store", store, "--from", later, "--to", later]).stdout == "0\n")
        #expect(try CLI.run(["count", "--store", store, "--starttime", later, "--endtime", later]).stdout == "0\n")
        #expect(try CLI.run(["count", "--store", store, "--starttime", earlier, "--endtime", later]).stdout == "1\n")
    }
}
