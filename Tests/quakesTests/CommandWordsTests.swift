import Foundation
import Testing

/// The CLI's words for what a user gets wrong (issue 69): dates that do not exist, named by the
/// option typed; a minimum radius alone; junk named `.geojson`.
@Suite struct CommandWordsTests {
    @Test func impossibleDatesNameTheDayAndTheOptionTyped() throws {
        let store = try CLI.generatedStore(seed: 69)
        let cases: [([String], String, String)] = [
            (["count", "--day", "2024-02-30"], "--day", "February 2024 has 29 days"),
            (["count", "--starttime", "2023-02-29"], "--starttime", "February 2023 has 28 days"),
            (["count", "--start=2023-04-31"], "--start", "April 2023 has 30 days"),
            (["count", "--from", "2023-13-01"], "--from", "there is no month 13"),
            (["count", "--endtime", "2023-06-31"], "--endtime", "June 2023 has 30 days"),
            (["query", "--to", "2023-11-31"], "--to", "November 2023 has 30 days"),
            (["sync", "http://127.0.0.1:9/fdsnws/event/1/", "--starttime", "2022-02-29"], "--starttime",
             "February 2022 has 28 days"),
        ]
        for (args, flag, words) in cases {
            let r = try CLI.run(args + ["--store", store])
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(flag + ": ") && r.stderr.contains(words), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("use YYYY-MM-DD"), "\(args): \(r.stderr)")
        }
    }

    /// `--minradius` alone is a ring out to 180°, as the FDSN specification defaults maxradius.
    @Test func aMinimumRadiusAloneReachesTheAntipode() throws {
        let store = try CLI.generatedStore(seed: 69)
        let centre = ["--latitude", "35", "--longitude", "-118"]
        let ring = try CLI.run(["count", "--store", store, "--minradius", "40"] + centre)
        let spelled = try CLI.run(["count", "--store", store, "--minradius", "40", "--maxradius", "180"] + centre)
        let all = try CLI.run(["count", "--store", store])
        #expect(ring.status == 0, "\(ring.stderr)")
        func number(_ text: String) -> Int? {
            Int(text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: ",", with: ""))
        }
        let ringCount = number(ring.stdout)
        let want = number(spelled.stdout)
        let total = number(all.stdout)
        #expect(ringCount != nil && ringCount == want, "\(ring.stdout) against \(spelled.stdout)")
        #expect((ringCount ?? 0) > 0 && (ringCount ?? 0) < (total ?? 0), "\(ring.stdout) of \(all.stdout)")
        // query lists the same ring, and explain says it is the outside of a circle
        let listed = try CLI.run(["query", "--store", store, "--minradius", "40", "--format", "csv", "--fields", "id",
                                  "--limit", "100000"] + centre)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").count - 1 == ringCount, "\(listed.stdout.prefix(200))")
        let explained = try CLI.run(["explain", "count", "--store", store, "--minradius", "40"] + centre)
        #expect(explained.stdout.contains("not (distance"), "\(explained.stdout)")
    }

    /// Random bytes named `.geojson` are "not JSON", not "not a USGS CSV feed".
    @Test func junkNamedGeoJSONIsNotJSON() throws {
        let dir = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] = 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/x.geojson"))
        let r = try CLI.run(["load", "--store", dir + "/s", dir + "/x.geojson"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("x.geojson: not JSON") && !r.stderr.contains("CSV"), "\(r.stderr)")
    }
}
