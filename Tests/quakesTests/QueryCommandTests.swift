import Foundation
import Testing

/// End-to-end runs of query, count, agg, sections and explain on a generated store.
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
}
