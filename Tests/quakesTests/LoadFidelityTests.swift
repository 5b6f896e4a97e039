import Foundation
import Testing

/// What a load keeps of a real feed re-saved by other software: text garbled as Windows
/// re-saves it (mojibake) and canonically equivalent spellings of one name, times as a
/// spreadsheet shows them, and a coarser time never replacing a precise one. Every test starts
/// from a real feed.
@Suite(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
struct LoadFidelityTests {
    static let pahalaFeed = CLI.usgs + "/csv_2024-09-10_2024-10-10_9239.csv"
    static let week = CLI.usgs + "/csv_2016-04-24_2016-05-01_1386.csv"

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

    /// The feed as a spreadsheet re-saves it: each time as `dd-mm-yy HH:MM` (seconds and
    /// milliseconds gone), every other field as it was. Returns the copy's text and how many
    /// times lost digits.
    static func spreadsheetCopy(_ text: String) -> (String, Int) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var coarser = 0
        for k in 1..<lines.count where !lines[k].isEmpty {
            guard let comma = lines[k].firstIndex(of: ",") else { continue }
            let t = lines[k][..<comma]   // 2016-04-30T22:36:58.110Z
            let y = t.dropFirst(2).prefix(2), m = t.dropFirst(5).prefix(2), d = t.dropFirst(8).prefix(2)
            let hm = t.dropFirst(11).prefix(5)
            if t.dropFirst(17).prefix(6) != "00.000" { coarser += 1 }
            lines[k] = "\(d)-\(m)-\(y) \(hm)" + lines[k][comma...]
        }
        return (lines.joined(separator: "\n"), coarser)
    }

    @Test func mojibakeNeverReplacesCleanText() throws {
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

    @Test func canonicallyEquivalentTextMatches() throws {
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

    @Test func spreadsheetTimesAreToldOnceWithTheFix() throws {
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

    @Test func aCoarserTimeNeverReplacesAPreciseOne() throws {
        let d = CLI.tempDir()
        let text = try String(contentsOfFile: Self.week, encoding: .utf8)
        let (copy, coarser) = Self.spreadsheetCopy(text)
        #expect(coarser > 1000)
        try copy.write(toFile: d + "/resaved.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", d + "/s", Self.week]).status == 0)
        let before = try CLI.run(["export", "--store", d + "/s"]).stdout
        let r = try CLI.run(["load", "--store", d + "/s", "--time-format", "%d-%m-%y %H:%M", d + "/resaved.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: kept the full-precision time of \(coarser.formatted()) events"), "\(r.stderr)")
        #expect(r.stdout.contains("nothing to commit"))
        #expect(try CLI.run(["export", "--store", d + "/s"]).stdout == before)
        // the other way round, the precise feed replaces the coarse times
        #expect(try CLI.run(["load", "--store", d + "/c", "--time-format", "%d-%m-%y %H:%M", d + "/resaved.csv"])
            .status == 0)
        #expect(try CLI.run(["load", "--store", d + "/c", Self.week]).status == 0)
        #expect(try CLI.run(["export", "--store", d + "/c"]).stdout == before)
    }
}
