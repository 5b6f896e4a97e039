import Foundation
import Testing

/// What a new user tripped over on real feeds (issue 21): mojibake, canonically equivalent text,
/// totals, load summaries and exit status, spreadsheet times, failed first loads, Ctrl-C, SQL
/// in `--where`, and choices in error messages.
@Suite struct NewUserTests {
    static let usgs = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/usgs").path
    static let pahalaFeed = usgs + "/csv_2024-09-10_2024-10-10_9239.csv"

    /// `text` as a spreadsheet that read UTF-8 as Windows-1252 and saved it as UTF-8 again.
    static func garble(_ text: String) -> String {
        let cp1252: [UInt8: UInt32] = [0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020,
                                       0x87: 0x2021, 0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152,
                                       0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022,
                                       0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
                                       0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178]
        var out = String.UnicodeScalarView()
        for b in text.utf8 {
            // undefined bytes (0x81, 0x8D, ...) pass through as C1 controls, as Windows does
            out.append(Unicode.Scalar(cp1252[b] ?? UInt32(b))!)
        }
        return String(out)
    }

    static func count(_ store: String, _ args: [String]) throws -> Int {
        let r = try CLI.run(["count", "--store", store] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs"))
    func mojibakeNeverReplacesCleanText() throws {
        let d = CLI.tempDir()
        let clean = try String(contentsOfFile: Self.pahalaFeed, encoding: .utf8)
        let garbled = d + "/resaved.csv"
        try Self.garble(clean).write(toFile: garbled, atomically: true, encoding: .utf8)
        let nonASCII = clean.split(separator: "\n").filter { $0.utf8.contains { $0 >= 0x80 } }.count
        #expect(nonASCII > 100)

        let s = d + "/s"
        #expect(try CLI.run(["load", "--store", s, Self.pahalaFeed]).status == 0)
        let before = try Self.count(s, ["--place-like", "pahala"])
        let exact = try Self.count(s, ["--place", "Pāhala"])
        #expect(before > 0 && before == exact)
        let r = try CLI.run(["load", "--store", s, garbled])
        #expect(r.status == 0, "\(r.stderr)")
        // said once for the file, with a count
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("double-encoded") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\(nonASCII) text fields") == true, "\(r.stderr)")
        #expect(warnings.first?.contains("--fix-text") == true)
        #expect(try Self.count(s, ["--place-like", "pahala"]) == before)
        #expect(try Self.count(s, ["--place", "Pāhala"]) == before)
        #expect(try Self.count(s, ["--place", "PÄ"]) == 0)

        // loaded alone with --fix-text, the garbled copy comes back clean
        let fixed = d + "/fixed"
        let f = try CLI.run(["load", "--store", fixed, "--fix-text", garbled])
        #expect(f.status == 0 && f.stderr.contains("all repaired"), "\(f.stderr)")
        #expect(try Self.count(fixed, ["--place", "Pāhala"]) == before)
        let a = try CLI.run(["query", "--store", s, "--format", "csv", "--fields", "id,place", "--limit", "100000"]).stdout
        let b = try CLI.run(["query", "--store", fixed, "--format", "csv", "--fields", "id,place", "--limit", "100000"]).stdout
        #expect(a == b)
        // without it, the garbled text is stored as it came (and counted)
        let raw = d + "/raw"
        #expect(try CLI.run(["load", "--store", raw, garbled]).status == 0)
        #expect(try Self.count(raw, ["--place", "Pāhala"]) == 0)
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs"))
    func canonicallyEquivalentTextMatches() throws {
        let d = CLI.tempDir()
        let s = d + "/s"
        #expect(try CLI.run(["load", "--store", s, Self.pahalaFeed]).status == 0)
        let composed = try Self.count(s, ["--place", "P\u{0101}hala"])
        #expect(composed > 0)
        #expect(try Self.count(s, ["--place", "Pa\u{0304}hala"]) == composed)
        #expect(try Self.count(s, ["--where", "place.contains(\"Pa\u{0304}hala\")"]) == composed)
        #expect(try Self.count(s, ["--where", "place LIKE '%Pa\u{0304}hala%'"]) == composed)
        // a feed written in decomposed form is stored composed
        let clean = try String(contentsOfFile: Self.pahalaFeed, encoding: .utf8)
        let decomposed = d + "/nfd.csv"
        try clean.replacingOccurrences(of: "\u{0101}", with: "a\u{0304}").write(toFile: decomposed, atomically: true, encoding: .utf8)
        let s2 = d + "/s2"
        #expect(try CLI.run(["load", "--store", s2, decomposed]).status == 0)
        #expect(try Self.count(s2, ["--place", "P\u{0101}hala"]) == composed)
    }

    @Test func footersAndEnvelopesGiveTheTotal() throws {
        let s = try CLI.generatedStore(rows: "20000", seed: 21)
        let days = try CLI.run(["agg", "--store", s, "--by", "day", "--format", "csv", "--sort", "count:desc", "--limit", "1"])
        let row = days.stdout.split(separator: "\n")[1].split(separator: ",")
        let day = String(row[0]), total = Int(row[1]) ?? 0
        #expect(total > 12)
        let p2 = try CLI.run(["query", "--store", s, "--day", day, "--page-size", "5", "--page", "2"])
        #expect(p2.stdout.split(separator: "\n").last == "(rows 6–10 of \(total))", "\(p2.stdout)")
        let p1 = try CLI.run(["query", "--store", s, "--day", day, "--page-size", "5", "--page", "1"])
        #expect(p1.stdout.split(separator: "\n").last == "(5 of \(total) rows)", "\(p1.stdout)")
        let j = try CLI.run(["query", "--store", s, "--day", day, "--limit", "2", "--offset", "3", "--format", "json"])
        let o = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        #expect((o?["count"] as? Int) == 2 && (o?["total"] as? Int) == total, "\(j.stdout.prefix(200))")
        let g = try CLI.run(["query", "--store", s, "--day", day, "--limit", "2", "--format", "geojson"])
        let meta = (try JSONSerialization.jsonObject(with: Data(g.stdout.utf8)) as? [String: Any])?["metadata"] as? [String: Any]
        #expect((meta?["count"] as? Int) == 2 && (meta?["total"] as? Int) == total)
        let whole = try CLI.run(["query", "--store", s, "--day", day, "--limit", "1000", "--format", "json"])
        let w = try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [String: Any]
        #expect((w?["count"] as? Int) == total && (w?["total"] as? Int) == total)
    }

    @Test func loadSummariesAddUp() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "3000", "--out", d + "/feed", "--seed", "4", "--overlap", "0"]).status == 0)
        let feed = try FileManager.default.contentsOfDirectory(atPath: d + "/feed").map { d + "/feed/" + $0 }.sorted()
        let bad = d + "/bad.csv"
        try "time,latitude,longitude,depth,mag,id,updated\nnot-a-time,1,2,3,4,x1,2024-01-01T00:00:00Z\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try CLI.run(["load", "--store", d + "/s", "--json"] + feed + feed + [bad])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        func n(_ k: String) -> Int { (o[k] as? Int) ?? -1 }
        #expect(n("rowsRead") == 6001 && n("new") == 3000 && n("duplicates") == 3000 && n("rejected") == 1)
        #expect(n("rowsRead") == n("rejected") + n("duplicates") + n("new") + n("updated") + n("unchanged"))
        #expect(n("filesRejected") == 1)
        let files = try #require(o["perFile"] as? [[String: Any]])
        #expect(files.count == feed.count * 2 + 1)
        #expect((files.last?["rows"] as? Int) == 1 && (files.last?["rejected"] as? Int) == 1)
        // again: everything is unchanged, and the table says how the rows add up
        let again = try CLI.run(["load", "--store", d + "/s", "--verbose"] + feed)
        #expect(again.status == 0)
        #expect(again.stdout.contains("unchanged") && again.stdout.contains("3,000"), "\(again.stdout)")
        #expect(again.stdout.contains("= rejected + duplicates + new + updated + unchanged"))
        #expect(again.stdout.split(separator: "\n").filter { $0.hasSuffix("loaded") }.count == feed.count)
    }

    @Test func partialLoadsCommitAndExitZeroUnlessStrict() throws {
        let d = CLI.tempDir()
        let f = d + "/mixed.csv"
        try """
        time,latitude,longitude,depth,mag,id,updated
        2024-01-01T00:00:00Z,1,2,3,4,ok1,2024-01-01T00:00:00Z
        2024-01-01T00:00:01Z,95,2,3,4,bad1,2024-01-01T00:00:00Z
        2024-01-01T00:00:02Z,1,2,3,4,ok2,2024-01-01T00:00:00Z

        """.write(toFile: f, atomically: true, encoding: .utf8)
        let strict = try CLI.run(["load", "--store", d + "/s", "--strict", f])
        #expect(strict.status == 1 && strict.stderr.contains("nothing committed"))
        #expect(!FileManager.default.fileExists(atPath: d + "/s"), "a failed first load leaves no store")
        let r = try CLI.run(["load", "--store", d + "/s", f])
        #expect(r.status == 0 && r.stdout.contains("committed"), "\(r.stderr)")
        #expect(r.stderr.contains("mixed.csv:3: latitude: 95.0 out of range"))
        #expect(try Self.count(d + "/s", []) == 2)
    }

    @Test func failedFirstLoadsLeaveNoStore() throws {
        let d = CLI.tempDir()
        let empty = d + "/empty.csv"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let r = try CLI.run(["load", "--store", d + "/s", empty])
        #expect(r.status == 1)
        #expect(!FileManager.default.fileExists(atPath: d + "/s"))
        let c = try CLI.run(["count", "--store", d + "/s"])
        #expect(c.status == 1 && c.stderr.contains("no store"))
        // an existing empty directory is left as it was
        try FileManager.default.createDirectory(atPath: d + "/mine", withIntermediateDirectories: true)
        #expect(try CLI.run(["load", "--store", d + "/mine", empty]).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d + "/mine").isEmpty)
    }

    @Test func aStoreWithoutItsManifestIsCalledDamagedByEveryCommand() throws {
        let s = try CLI.generatedStore(rows: "500", seed: 3)
        try FileManager.default.removeItem(atPath: s + "/manifest.qkm")
        for args in [["count"], ["query"], ["info"], ["agg", "--by", "year"], ["load", "/dev/null"]] {
            let r = try CLI.run(args + ["--store", s])
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.contains("quakes repair --store"), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("to create one"))
        }
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs"))
    func spreadsheetTimesAreToldOnceWithTheFix() throws {
        let d = CLI.tempDir()
        let lines = try String(contentsOfFile: Self.pahalaFeed, encoding: .utf8).split(separator: "\n")
        // time as a spreadsheet shows it: day first, two-digit year, no seconds
        var out = [String(lines[0])]
        var expected: [String: String] = [:]
        for l in lines.dropFirst() {
            let t = l.prefix(24)   // 2024-09-10T21:02:53.870Z
            let y = t.dropFirst(2).prefix(2), m = t.dropFirst(5).prefix(2), day = t.dropFirst(8).prefix(2)
            let hm = t.dropFirst(11).prefix(5)
            out.append("\(day)-\(m)-\(y) \(hm)" + l.dropFirst(24))
            let id = l.split(separator: ",", omittingEmptySubsequences: false)[11]
            expected[String(id)] = "\(t.prefix(16)):00.000Z"
        }
        let f = d + "/resaved.csv"
        try (out.joined(separator: "\n") + "\n").write(toFile: f, atomically: true, encoding: .utf8)
        let r = try CLI.run(["load", "--store", d + "/s", f])
        #expect(r.status == 1)
        let said = r.stderr.split(separator: "\n")
        #expect(said.count <= 3, "\(r.stderr.prefix(2000))")
        #expect(said.first?.contains("all \((lines.count - 1).formatted()) rows for the same reason") == true, "\(r.stderr)")
        #expect(r.stderr.contains("--time-format '%d-%m-%y %H:%M'"))
        #expect(r.stderr.contains("%y reads 00-68 as 2000-2068"))
        let ok = try CLI.run(["load", "--store", d + "/s", "--time-format", "%d-%m-%y %H:%M", f])
        #expect(ok.status == 0, "\(ok.stderr.prefix(500))")
        let rows = try CLI.run(["query", "--store", d + "/s", "--format", "csv", "--fields", "id,time", "--limit", "100000"])
            .stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == expected.count)
        for row in rows {
            let p = row.split(separator: ",")
            #expect(expected[String(p[0])] == String(p[1]), "\(row)")
        }
        let bad = try CLI.run(["load", "--store", d + "/x", "--time-format", "%d-%q", f])
        #expect(bad.status == 2 && bad.stderr.contains("%q is not a code"))
    }

    @Test func ctrlCStopsALoadAndRemovesWhatItWrote() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "20000", "--out", d + "/feed", "--seed", "5"]).status == 0)
        let s = d + "/s"
        let first = try FileManager.default.contentsOfDirectory(atPath: d + "/feed").sorted()[0]
        #expect(try CLI.run(["load", "--store", s, d + "/feed/" + first]).status == 0)
        let before = try Self.count(s, [])
        let text = try String(contentsOfFile: d + "/feed/" + first, encoding: .utf8)
        // standard input stays open, so the load is still reading when the signal comes
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["load", "--store", s, "-"]
        let inp = Pipe(), err = Pipe()
        p.standardInput = inp
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        inp.fileHandleForWriting.write(Data(text.utf8))
        Thread.sleep(forTimeInterval: 1.0)
        p.interrupt()
        try inp.fileHandleForWriting.close()   // a read that waits on the pipe ends, and the load sees the signal
        p.waitUntilExit()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 130)
        #expect(said.contains("quakes: interrupted; nothing committed"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: s + "/tmp"))
        let info = try CLI.run(["verify", "--store", s])
        #expect(info.status == 0, "\(info.stdout) \(info.stderr)")
        #expect(try Self.count(s, []) == before)
        // nothing but the committed files is left in the store
        let parts = try FileManager.default.contentsOfDirectory(atPath: s + "/partitions")
        #expect(parts.allSatisfy { $0.contains(".g1.") }, "\(parts)")
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

    @Test func aMapAroundFijiIsFittedAcrossTheAntimeridian() throws {
        let d = CLI.tempDir()
        var lines = ["time,latitude,longitude,depth,mag,id,updated,place"]
        let points: [(Double, Double)] = [(-17.5, 177.2), (-18.1, 179.6), (-19.0, -179.4), (-20.3, -178.1), (-16.2, 178.8)]
        for (k, p) in points.enumerated() {
            lines.append("2024-03-0\(k + 1)T00:00:00Z,\(p.0),\(p.1),500,\(5 + Double(k) / 10),fj\(k),2024-03-10T00:00:00Z,Fiji")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: d + "/fiji.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/fiji.csv"]).status == 0)
        let r = try CLI.run(["query", "--store", d + "/s", "--format", "svg", "--region", "fit", "--out", d + "/m.svg"])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: d + "/m.svg", encoding: .utf8)
        func numbers(_ attr: String, in text: Substring) -> [Double] {
            text.components(separatedBy: attr + "=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        }
        let map = try #require(svg.split(separator: "\n").first { $0.contains("id=\"map\"") })
        let left = numbers("x", in: map)[0], width = numbers("width", in: map)[0]
        let circles = svg.split(separator: "\n").filter { $0.hasPrefix("<circle") && $0.contains("data-mag") }
        let xs = circles.flatMap { numbers("cx", in: $0) }
        #expect(xs.count == points.count)
        // all five events lie together in the middle of the map, not split onto both edges
        #expect(xs.allSatisfy { $0 > left + width * 0.05 && $0 < left + width * 0.95 }, "\(xs)")
        #expect((xs.max() ?? 0) - (xs.min() ?? 0) < width * 0.9)
        // drawn largest first: 178.8°E (M5.4) lies left of 179.4°W (M5.2)
        #expect(xs[0] < xs[2], "\(xs)")
        #expect(svg.contains(">180°E<") || svg.contains(">180°W<"))
        #expect(svg.contains("°S</text>"), "latitude labels")
    }

    @Test func choicesAreListedInErrors() throws {
        let r = try CLI.run(["query", "--format", "xml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("table, csv, json, ndjson, geojson, text, parquet, arrow, svg"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }
}
