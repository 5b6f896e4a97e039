import Foundation
import Testing

/// `quakes agg` end to end: aggregates as ndjson equal the csv, and the median is the 50th
/// percentile under the name it was asked by.
@Suite struct AggCommandTests {
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

    @Test func medianIsTheFiftiethPercentile() throws {
        let store = try CLI.generatedStore(rows: "2000", seed: 51)
        let r = try CLI.run(["agg", "--store", store, "--by", "net", "--metrics", "median(mag),p50(mag),median(depth),p50(depth)",
                             "--format", "csv", "--no-header"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count > 3)
        for row in rows {
            #expect(row.count == 5 && row[1] == row[2] && row[3] == row[4], "\(row)")
        }
        // the column keeps the name asked for, and sorts by it
        let sorted = try CLI.run(["agg", "--store", store, "--by", "net", "--metrics", "count,median(mag)",
                                  "--sort", "median(mag):desc", "--format", "csv"])
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let lines = sorted.stdout.split(separator: "\n")
        #expect(lines.first == "net,count,median(mag)")
        let medians = lines.dropFirst().compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
        #expect(medians.count == lines.count - 1 && medians == medians.sorted(by: >))
    }
}
