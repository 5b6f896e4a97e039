import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeStore

/// Mojibake detection and repair, strptime time formats and SQL LIKE patterns, each against a
/// naive reference.
@Suite struct TextRulesTests {
    /// The naive reference for double encoding: UTF-8 bytes read as Windows-1252 (undefined bytes
    /// as C1 controls, or as U+FFFD when `lossy`), written as UTF-8.
    static func garble(_ s: String, lossy: Bool = false) -> [UInt8] {
        var out = ""
        for b in s.utf8 {
            if b < 0x80 || b >= 0xA0 { out.unicodeScalars.append(Unicode.Scalar(b)); continue }
            if [0x81, 0x8D, 0x8F, 0x90, 0x9D].contains(b) {
                out.unicodeScalars.append(lossy ? "\u{FFFD}" : Unicode.Scalar(b))
                continue
            }
            let decoded = String(data: Data([b]), encoding: .windowsCP1252) ?? "?"
            out += decoded
        }
        return Array(out.utf8)
    }

    static let samples = ["Serdán", "Pāhala", "São Paulo", "Ciudad Hidalgo, Mexico", "Kīlauea", "Çanakkale", "Œuvre — “quoted”",
                          "Ñuñoa", "Đakovo", "Ağrı", "ĝis", "Zürich", "Ōita", "€100", "naïve"]

    @Test func mojibakeIsFoundRepairedAndMatched() {
        for s in Self.samples {
            let clean = Array(s.utf8)
            let g = Self.garble(s)
            let isASCII = clean.allSatisfy { $0 < 0x80 }
            g.withUnsafeBytes { gp in
                clean.withUnsafeBytes { cp in
                    #expect(Mojibake.isGarbled(gp) == !isASCII, "\(s)")
                    #expect(Mojibake.repaired(gp) == (isASCII ? nil : clean), "\(s)")
                    #expect(Mojibake.garbles(gp, of: cp) == !isASCII, "\(s)")
                    // clean text is never taken for mojibake
                    #expect(!Mojibake.isGarbled(cp), "\(s)")
                    #expect(Mojibake.repaired(cp) == nil)
                }
            }
            // a byte lost to U+FFFD: still recognised and matched, but not repaired
            let lossy = Self.garble(s, lossy: true)
            if lossy != g {
                lossy.withUnsafeBytes { lp in
                    clean.withUnsafeBytes { cp in
                        #expect(Mojibake.isGarbled(lp) && Mojibake.repaired(lp) == nil && Mojibake.garbles(lp, of: cp), "\(s)")
                    }
                }
            }
        }
        // different text is not "garbled" clean text
        let a = Self.garble("Serdán"), b = Array("Serdén".utf8)
        a.withUnsafeBytes { ap in b.withUnsafeBytes { bp in #expect(!Mojibake.garbles(ap, of: bp)) } }
    }

    @Test func timeFormatsMatchFoundationOnGeneratedTimes() throws {
        var rng = SystemRandomNumberGenerator()
        let cases: [(String, String)] = [
            ("%d-%m-%y %H:%M", "dd-MM-yy HH:mm"), ("%m/%d/%Y %H:%M:%S", "MM/dd/yyyy HH:mm:ss"),
            ("%Y-%m-%d %H:%M:%S.%f", "yyyy-MM-dd HH:mm:ss.SSS"), ("%d %b %Y %I:%M %p", "dd MMM yyyy hh:mm a"),
            ("%d.%m.%Y", "dd.MM.yyyy"),
        ]
        for (pattern, icu) in cases {
            let f = try TimeFormat(pattern)
            let df = DateFormatter()
            df.locale = Locale(identifier: "en_US_POSIX")
            df.timeZone = TimeZone(identifier: "UTC")
            df.dateFormat = icu
            for _ in 0..<300 {
                // 1969-2045: where POSIX %y and ICU yy (a window around today) agree
                let ms = Int64.random(in: -31_536_000_000..<2_398_291_200_000, using: &rng)
                let text = df.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
                let reference = df.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                let parsed = Array(text.utf8).withUnsafeBytes { f.parse($0) }
                #expect(parsed == reference, "\(pattern) \(text)")
            }
        }
        let f = try TimeFormat("%d-%m-%y %H:%M")
        func parse(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBytes { f.parse($0) } }
        #expect(parse("04-02-19 21:55") == Timestamp.parse("2019-02-04T21:55:00Z"))
        #expect(parse("4-2-69 1:05") == Timestamp.parse("1969-02-04T01:05:00Z"))
        #expect(parse("31-02-19 21:55") == nil && parse("04-02-19 24:00") == nil && parse("04-02-19") == nil)
        #expect(parse("04-02-19 21:55x") == nil)
        let z = try TimeFormat("%Y-%m-%dT%H:%M:%S%z")
        #expect(Array("2024-01-01T10:00:00+02:30".utf8).withUnsafeBytes { z.parse($0) } == Timestamp.parse("2024-01-01T07:30:00Z"))
        #expect(throws: TimeFormat.Error.self) { try TimeFormat("%H:%M") }
        #expect(throws: TimeFormat.Error.self) { try TimeFormat("%Y-%m-%d %q") }
    }

    /// The naive LIKE: a regular expression built from the pattern.
    static func likeReference(_ text: String, _ pattern: String, insensitive: Bool) -> Bool {
        let fold: (String) -> String = { insensitive ? $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) : $0 }
        var re = "^"
        for ch in fold(pattern) {
            switch ch {
            case "%": re += ".*"
            case "_": re += "."
            default: re += NSRegularExpression.escapedPattern(for: String(ch))
            }
        }
        re += "$"
        return fold(text).range(of: re, options: [.regularExpression]) != nil
    }

    @Test func likePatternsMatchARegularExpressionReference() {
        let texts = ["10 km NE of Pāhala, Hawaii", "Pahala", "Alaska Peninsula", "5km S of Volcano, HI", "", "a_b%c", "São Tomé",
                     "ñandú", "100 km", "Kīlauea"]
        let patterns = ["%", "%a%", "P_hala", "%hala%", "%, Hawaii", "5%HI", "a\\_b\\%c", "%é", "_%_", "___ km", "k%a", "%ñ%"]
        for t in texts {
            for p in patterns where !p.contains("\\") {
                for insensitive in [false, true] {
                    let like = LikePattern(p, insensitive: insensitive)
                    #expect(like.matches(t) == Self.likeReference(t, p, insensitive: insensitive), "\(t) \(p) \(insensitive)")
                }
            }
        }
        #expect(LikePattern("a\\_b\\%c", insensitive: false).matches("a_b%c"))
        #expect(!LikePattern("a\\_b\\%c", insensitive: false).matches("axbyc"))
    }
}
