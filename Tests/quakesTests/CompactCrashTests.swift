import Foundation
import Testing
import QuakeTestSupport

/// Kills `quakes compact` at random moments while it folds a catalog delta: every kill leaves a
/// store that verifies and gives the same rows and counts, with its delta still there or folded
/// into a whole catalog, never a mix; a later `compact` finishes the fold.
@Suite struct CompactCrashTests {
    @Test func killedCompactionsLeaveTheSameStore() throws {
        let d = CLI.tempDir()
        var feed = try RevisionFeed(rows: 40000, generatorSeed: 69, drawSeed: 6969, dir: d, store: d + "/before")
        // three events revised where they stand, each to a magnitude another event has (a magnitude new
        // to the catalog would have the load write the catalog whole, with no delta to compact)
        var lines: [String] = []
        while lines.count < 3 {
            var fields = feed.randomRow()
            let other = feed.randomRow()
            let mag = feed.magColumn
            guard fields.count == feed.header.count, other.count == feed.header.count, !other[mag].isEmpty,
                  other[mag] != fields[mag] else { continue }
            fields[mag] = other[mag]
            fields[feed.updatedColumn] = "2030-01-01T00:00:00.000Z"
            lines.append(RevisionFeed.line(fields))
        }
        try feed.write(lines, to: d + "/up.csv")
        #expect(try CLI.run(["load", "--store", d + "/before", d + "/up.csv"]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: d + "/before/partitions")
        try #require(files.contains { $0.hasSuffix(".qkd") }, "the revision left no catalog delta: \(files)")
        try #require(try Self.hasDelta(d + "/before"))
        let rowsBefore = try CLI.run(["export", "--store", d + "/before"]).stdout
        let counts = try Self.counts(d + "/before")
        // one compaction run through, for its duration and its outcome
        try FileManager.default.copyItem(atPath: d + "/before", toPath: d + "/done")
        let started = Date()
        let done = try CLI.run(["compact", "--store", d + "/done"])
        let duration = Date().timeIntervalSince(started)
        #expect(done.status == 0 && done.stdout.hasPrefix("folded the catalog delta (3 partitions)"), "\(done.stdout)")
        #expect(try !Self.hasDelta(d + "/done"))
        #expect(try CLI.run(["export", "--store", d + "/done"]).stdout == rowsBefore)
        #expect(try Self.counts(d + "/done") == counts)
        var outcomes = [0, 0]
        for trial in 0..<20 {
            let store = d + "/trial-\(trial)"
            try FileManager.default.copyItem(atPath: d + "/before", toPath: store)
            let process = try CLI.start(["compact", "--store", store])
            Thread.sleep(forTimeInterval: duration * Double(feed.next() % 1000) / 1000 * 1.2)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let verified = try CLI.run(["verify", "--store", store])
            #expect(verified.status == 0, "trial \(trial): \(verified.stderr)")
            #expect(try CLI.run(["export", "--store", store]).stdout == rowsBefore, "trial \(trial): rows changed")
            #expect(try Self.counts(store) == counts, "trial \(trial): counts changed")
            let folded = try !Self.hasDelta(store)
            outcomes[folded ? 1 : 0] += 1
            // the next compact folds what the kill left, or finds nothing to do
            let again = try CLI.run(["compact", "--store", store])
            #expect(again.status == 0, "trial \(trial): \(again.stderr)")
            #expect(again.stdout.hasPrefix(folded ? "nothing to compact" : "folded the catalog delta"),
                    "trial \(trial): \(again.stdout)")
            #expect(try !Self.hasDelta(store))
            #expect(try Self.counts(store) == counts, "trial \(trial): counts changed after the fold")
        }
        #expect(outcomes[0] + outcomes[1] == 20)
    }

    /// Whether `quakes info` names a catalog delta.
    static func hasDelta(_ store: String) throws -> Bool {
        let info = try CLI.run(["info", "--store", store])
        #expect(info.status == 0, "\(info.stderr)")
        return info.stdout.contains("a delta over")
    }

    /// Counts the catalog answers (whole months, magnitude bounds) and one it does not.
    static func counts(_ store: String) throws -> [String] {
        let cases = [["--min-mag", "2"], ["--min-mag", "4.5"], ["--max-mag", "3"],
                     ["--start", "2010-01-01", "--end", "2020-01-01", "--min-mag", "3"]]
        return try cases.map { arguments in
            let answer = try CLI.run(["count", "--store", store] + arguments)
            #expect(answer.status == 0, "\(arguments): \(answer.stderr)")
            return answer.stdout
        }
    }
}
