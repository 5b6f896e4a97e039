import Foundation
import Testing

/// What `query`'s formats carry beyond the rows: the total in table footers and in JSON and
/// GeoJSON envelopes, and GeoJSON's chosen fields and generated stamp.
@Suite struct OutputFormatTests {
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
