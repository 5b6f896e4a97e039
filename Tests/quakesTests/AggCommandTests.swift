import Foundation
import Testing

/// `quakes agg` end to end: aggregates as ndjson equal the csv, with typed keys; the median
/// interpolates while `p50` is the nearest rank; values print whole; `--sort` takes several keys.
@Suite struct AggCommandTests {
    @Test func noKeyOverNoRowsIsOneRowAsInSQL() throws {
        let target = try CLI.generatedStore(rows: "500", seed: 21)
        let json = try CLI.run(["agg", "--store", target, "--metrics", "count,count(mag),avg(mag),max(time)",
                                "--min-mag", "12", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout == "{\"groups\":[{\"count\":0,\"count(mag)\":0,\"avg(mag)\":null,\"max(time)\":null}]}\n",
                "\(json.stdout)")
        let keyed = try CLI.run(["agg", "--store", target, "--by", "net", "--min-mag", "12", "--format", "json"])
        #expect(keyed.stdout == "{\"groups\":[]}\n", "\(keyed.stdout)")
        let explained = try CLI.run(["explain", "count", "--store", target, "--min-mag", "2", "--format", "json"])
        #expect(explained.status == 0 && explained.stdout.hasPrefix("{"), "\(explained.stdout)\(explained.stderr)")
        let plan = try CLI.run(["explain", "count", "--store", target, "--min-mag", "2"])
        #expect(!plan.stdout.contains("deleted"), "a store without tombstones plans no check for them: \(plan.stdout)")
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
            #expect((o["year"] as? NSNumber)?.stringValue == row[0], "a year is a number in JSON")
            #expect((o["count"] as? NSNumber)?.intValue == Int(row[1]))
        }
    }

    @Test func medianInterpolatesAndPercentilesTakeTheNearestRank() throws {
        let dir = CLI.tempDir()
        var csv = "time,latitude,longitude,depth,mag,magType,net,id,updated,place,type\n"
        for (index, mag) in ["1.1", "2.2", "3.3", "4.4"].enumerated() {
            csv += "2024-06-15T0\(index):00:00.000Z,10,20,1\(index).25,\(mag),ml,ak,ev\(index),"
            csv += "2024-06-16T00:00:00.000Z,\"\(index + 3) km NE of Willow, Alaska\",earthquake\n"
        }
        try csv.write(toFile: dir + "/four.csv", atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", dir + "/s", dir + "/four.csv"]).status == 0)
        let result = try CLI.run(["agg", "--store", dir + "/s", "--by", "region", "--format", "csv", "--metrics",
                                  "median(mag),p50(mag),p75(mag),avg(depth),stddev(mag),count(distinct place),max(time)"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "region,median(mag),p50(mag),p75(mag),avg(depth),stddev(mag),count(distinct place),max(time)")
        let cells = lines.dropFirst().first?.split(separator: ",").map(String.init) ?? []
        // "Willow, Alaska" is quoted, so it takes two cells here
        #expect(cells.count == 9 && cells[0] == "\"Willow" && cells[1] == " Alaska\"", "\(cells)")
        #expect(Array(cells.dropFirst(2)).count == 7)
        if cells.count == 9 {
            #expect(cells[2] == "2.75" && cells[3] == "2.2" && cells[4] == "3.3" && cells[5] == "11.75")
            let deviation = (1.21 * 5 / 3).squareRoot()
            #expect(abs((Double(cells[6]) ?? 0) - deviation) < 1e-15 && cells[6].count > 10, "printed whole: \(cells[6])")
            #expect(cells[7] == "4" && cells[8] == "2024-06-15T03:00:00.000Z")
        }
    }

    @Test func severalSortKeysAndHaving() throws {
        let store = try CLI.generatedStore(rows: "5000", seed: 52)
        let result = try CLI.run(["agg", "--store", store, "--by", "year", "--by", "net", "--metrics", "count,avg(mag)",
                                  "--sort", "year:desc", "--sort", "count:desc", "--having", "count >= 20",
                                  "--format", "csv", "--no-header"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(rows.count > 3)
        for (earlier, later) in zip(rows, rows.dropFirst()) {
            let (year, nextYear) = (Int(earlier[0]) ?? 0, Int(later[0]) ?? 0)
            #expect(year > nextYear || (year == nextYear && Int(earlier[2])! >= Int(later[2])!), "\(earlier) \(later)")
        }
        #expect(rows.allSatisfy { Int($0[2])! >= 20 })
        let bad = try CLI.run(["agg", "--store", store, "--having", "count >"])
        #expect(bad.status == 2 && bad.stderr.contains("--having"), "\(bad.stderr)")
        let unknown = try CLI.run(["agg", "--store", store, "--sort", "depth"])
        #expect(unknown.status == 2 && unknown.stderr.contains("--sort"), "\(unknown.stderr)")
        #expect(unknown.stderr.components(separatedBy: "count").count == 2, "count named once: \(unknown.stderr)")
        // a grouping that is nearly right says what is wrong with it
        for (by, hint) in [("mag:0", "greater than 0"), ("depth:-5", "greater than 0"), ("time:6x", "m, h, d or w"),
                           ("nosuch", "unknown grouping")] {
            let wrong = try CLI.run(["agg", "--store", store, "--by", by])
            #expect(wrong.status == 2 && wrong.stderr.contains(hint), "\(by): \(wrong.stderr)")
        }
    }
}
