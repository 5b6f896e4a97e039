import Foundation
import Testing

/// Table and csv habits of duckdb and sqlite3: row-cap footers, NULL cells, header-less output,
/// and a cursor only when there is another page.
@Suite struct TableOutputTests {
    static func grouped(_ n: Int) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US")
        return f.string(from: NSNumber(value: n)) ?? ""
    }

    @Test func cappedTablesSayHowManyMatched() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 12)
        let n = Int(try CLI.run(["count", "--store", s, "--min-mag", "1"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(n > 1000)
        let r = try CLI.run(["query", "--store", s, "--min-mag", "1"])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 103 && lines.last == "(100 of \(Self.grouped(n)) rows; use --limit)")
        let limited = try CLI.run(["query", "--store", s, "--min-mag", "1", "--limit", "5"])
        #expect(limited.stdout.split(separator: "\n").last.map(String.init) == "(5 of \(Self.grouped(n)) rows)")
        let few = try CLI.run(["query", "--store", s, "--min-mag", "1", "--sort", "mag:desc", "--limit", String(n + 5)])
        #expect(few.stdout.split(separator: "\n").last.map(String.init) == "(\(Self.grouped(n)) rows)")
    }

    @Test func nullsAndHeaders() throws {
        let d = CLI.tempDir()
        let csv = """
            time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,horizontalError,depthError,magError,magNst,status,locationSource,magSource
            2024-06-15T01:00:00.000Z,61.5,-150.1,,2.5,ml,,,,,ak,ak1,2024-06-15T02:00:00.000Z,"5 km N of Willow, Alaska",earthquake,,,,,reviewed,ak,ak
            2024-06-15T02:00:00.000Z,19.4,-155.3,3.25,,,,,,,hv,hv1,,,earthquake,,,,,automatic,hv,hv

            """
        try csv.write(toFile: d + "/f.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/f.csv"]).status == 0)
        let t = try CLI.run(["query", "--store", d + "/s", "--fields", "id,mag,depth,place", "--sort", "time"])
        #expect(t.stdout == """
            id    mag  depth  place
            ---  ----  -----  ------------------------
            ak1   2.5   NULL  5 km N of Willow, Alaska
            hv1  NULL   3.25  NULL
            (2 rows)

            """)
        let h = try CLI.run(["query", "--store", d + "/s", "--fields", "id,mag", "--sort", "time", "--no-header"])
        #expect(h.stdout == "ak1   2.5\nhv1  NULL\n(2 rows)\n")
        let c = try CLI.run(["query", "--store", d + "/s", "--fields", "id,mag,depth,place", "--sort", "time",
                             "--format", "csv", "--no-header"])
        #expect(c.stdout == "ak1,2.5,,\"5 km N of Willow, Alaska\"\nhv1,,3.25,\n")
        let agg = try CLI.run(["agg", "--store", d + "/s", "--by", "net", "--metrics", "count,avg(mag)", "--no-header",
                               "--format", "csv"])
        #expect(agg.stdout == "ak,1,2.5\nhv,1,\n")
        let aggTable = try CLI.run(["agg", "--store", d + "/s", "--by", "net", "--metrics", "count,avg(mag)"])
        #expect(aggTable.stdout == "net  count  avg(mag)\n---  -----  --------\nak       1       2.5\nhv       1      NULL\n(2 groups)\n")
    }

    /// Columns line up by characters, not bytes, and a cell past 80 characters ends in `…`:
    /// ASCII cells take the byte-count path, the others the grapheme path.
    @Test func cellsAlignByCharacters() throws {
        let d = CLI.tempDir()
        let long = String(repeating: "Aleutian ", count: 12) + "Islands"
        let csv = """
            time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,horizontalError,depthError,magError,magNst,status,locationSource,magSource
            2024-06-15T01:00:00.000Z,61.5,-150.1,,2.5,ml,,,,,ak,ak1,,"5 km N of Willow, Alaska",earthquake,,,,,reviewed,ak,ak
            2024-06-15T02:00:00.000Z,33.2,131.6,10,4.1,mb,,,,,us,us1,,"12 km SE of Ōita, Japan",earthquake,,,,,reviewed,us,us
            2024-06-15T03:00:00.000Z,51.5,-175.1,20,3.0,ml,,,,,ak,ak2,,"\(long)",earthquake,,,,,reviewed,ak,ak

            """
        try csv.write(toFile: d + "/f.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/f.csv"]).status == 0)
        let t = try CLI.run(["query", "--store", d + "/s", "--fields", "place,id", "--sort", "time"])
        func row(_ place: String, _ id: String) -> String {
            place + String(repeating: " ", count: 80 - place.count) + "  " + id
        }
        let cut = String(long.prefix(79)) + "…"
        #expect(t.stdout.split(separator: "\n").map(String.init) == [
            row("place", "id"), String(repeating: "-", count: 80) + "  ---",
            row("5 km N of Willow, Alaska", "ak1"), row("12 km SE of Ōita, Japan", "us1"), row(cut, "ak2"),
            "(3 rows)",
        ])
    }

    @Test func cursorOnlyWhenAnotherPageExists() throws {
        let s = try CLI.generatedStore(rows: "3000", seed: 12)
        let n = Int(try CLI.run(["count", "--store", s, "--min-mag", "3"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(n > 20)
        let first = try CLI.run(["query", "--store", s, "--min-mag", "3", "--limit", "20", "--format", "csv"])
        #expect(first.stderr.hasPrefix("cursor: "))
        let token = first.stderr.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines)
        let rest = try CLI.run(["query", "--store", s, "--min-mag", "3", "--limit", String(n), "--after", token, "--format", "csv"])
        #expect(rest.status == 0 && rest.stderr.isEmpty)
        #expect(rest.stdout.split(separator: "\n").count == n - 20 + 1)
        let exact = try CLI.run(["query", "--store", s, "--min-mag", "3", "--limit", String(n - 20), "--after", token,
                                 "--format", "csv"])
        #expect(exact.stderr.isEmpty && exact.stdout == rest.stdout)
        let asked = try CLI.run(["query", "--store", s, "--min-mag", "3", "--limit", String(n), "--after", token,
                                 "--format", "csv", "--cursor"])
        #expect(asked.stderr.hasPrefix("cursor: ") && asked.stdout == rest.stdout)
        let json = try CLI.run(["query", "--store", s, "--min-mag", "3", "--format", "json"]).stdout
        #expect(json.hasPrefix("{\"count\":\(n),\"total\":\(n),\"cursor\":null,"))
        let all = try CLI.run(["query", "--store", s, "--min-mag", "3", "--page", "2", "--page-size", String(n)])
        let grouped = String(n).reversed().enumerated().map { $0 > 0 && $0 % 3 == 0 ? ",\($1)" : "\($1)" }
            .joined().reversed()
        #expect(all.stderr.isEmpty && all.stdout.hasSuffix("(0 rows: the page starts after all \(String(grouped)))\n"),
                "\(all.stdout.suffix(80))")
    }

    @Test func sectionsAsNDJSONWithEscapedIds() throws {
        let d = CLI.tempDir()
        let csv = """
            time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,horizontalError,depthError,magError,magNst,status,locationSource,magSource
            2024-06-15T01:00:00.000Z,61.5,-150.1,10,2.5,ml,,,,,"a""b\\c",x1,,Somewhere,earthquake,,,,,reviewed,ak,ak
            2024-06-15T02:00:00.000Z,19.4,-155.3,3,1.5,ml,,,,,hv,x2,,Elsewhere,earthquake,,,,,automatic,hv,hv
            2024-06-15T03:00:00.000Z,19.4,-155.3,3,1.7,ml,,,,,hv,x3,,Elsewhere,earthquake,,,,,automatic,hv,hv

            """
        try csv.write(toFile: d + "/f.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/f.csv"]).status == 0)
        let nd = try CLI.run(["sections", "--store", d + "/s", "--by", "net", "--format", "ndjson", "--fields", "id,mag",
                              "--sort", "mag:desc", "--limit-per-section", "1"])
        #expect(nd.status == 0)
        let objs = nd.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objs.count == 2)
        #expect(objs.map { $0["section"] as? String } == ["a\"b\\c", "hv"])
        #expect(objs.map { ($0["count"] as? NSNumber)?.intValue } == [1, 2])
        #expect((objs.last?["rows"] as? [[String: Any]])?.map { $0["id"] as? String } == ["x3"])
        let json = try CLI.run(["sections", "--store", d + "/s", "--by", "net", "--format", "json"]).stdout
        let arr = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(arr?.map { $0["section"] as? String } == ["a\"b\\c", "hv"])
    }
}
