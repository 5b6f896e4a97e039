import Foundation
import Testing
import QuakeTestSupport

/// Kills `quakes load` with SIGKILL at random moments, with a second writer started at another
/// random moment: the store must always verify and hold either the previous snapshot or the new
/// one, never a mix; the second writer either runs alone or is refused, touching nothing.
@Suite struct CrashSafetyTests {
    @Test func killedLoadsLeaveAReadableSnapshot() throws {
        let d = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "3000", "--out", d + "/base", "--seed", "1"]).status == 0)
        #expect(try CLI.run(["generate", "--rows", "30000", "--out", d + "/big", "--seed", "2", "--file-rows", "10000"]).status == 0)
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/base"]).status == 0)
        var previous = try CLI.run(["export", "--store", d + "/s"]).stdout
        // the snapshot a completed load produces, for comparison
        #expect(try CLI.run(["load", "--store", d + "/full", d + "/base"]).status == 0)
        #expect(try CLI.run(["load", "--store", d + "/full", d + "/big"]).status == 0)
        let complete = try CLI.run(["export", "--store", d + "/full"]).stdout
        var seed: UInt64 = 12345
        var killedBeforeCommit = 0
        for _ in 0..<6 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let delay = Double(seed >> 33 % 1000) / 1000.0 * 4.0
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let secondAt = Double(seed >> 33 % 1000) / 1000.0 * delay
            let p = try CLI.start(["load", "--store", d + "/s", d + "/big"])
            // a second writer that changes nothing when it runs: loads of what is stored, or pruning nothing
            Thread.sleep(forTimeInterval: secondAt)
            let secondArgs = seed % 2 == 0 ? ["load", "--store", d + "/s", d + "/base"]
                : ["history", "--store", d + "/s", "--prune-before", "1"]
            let second = try WriterSupport.Background(secondArgs)
            Thread.sleep(forTimeInterval: delay - secondAt)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let status = second.finish()
            #expect(status == 0 || (status == 1 && second.stderr.contains("locked by another writer (pid ")
                && second.stderr.split(separator: "\n").count == 1), "\(secondArgs): \(second.stderr)")
            let v = try CLI.run(["verify", "--store", d + "/s"])
            #expect(v.status == 0, "after kill at \(delay)s: \(v.stderr)")
            let now = try CLI.run(["export", "--store", d + "/s"]).stdout
            #expect(now == previous || now == complete, "after kill at \(delay)s the store is neither snapshot")
            if now == previous { killedBeforeCommit += 1 }
            // history agrees with the data: one transaction per committed load, the newest
            // naming the store's generation, and its inserted counts summing to the rows
            let h = try Self.history(d + "/s")
            #expect(h.count == (now == complete ? 2 : 1), "after kill at \(delay)s: \(h)")
            #expect(h.map(\.inserted).reduce(0, +) == now.split(separator: "\n").count - 1)
            #expect(h.last?.generation == (now == complete ? 2 : 1))
            previous = now
        }
        #expect(killedBeforeCommit > 0)
        // a later load still works and reaches the complete snapshot
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/big"]).status == 0)
        #expect(try CLI.run(["export", "--store", d + "/s"]).stdout == complete)
        #expect(!FileManager.default.fileExists(atPath: d + "/s/tmp"))
        #expect(try Self.history(d + "/s").map(\.inserted) == (try Self.history(d + "/full").map(\.inserted)))
        // beside the two transactions, copies of the first load's partition ids (tx.g1.KEY.qki)
        let names = try FileManager.default.contentsOfDirectory(atPath: d + "/s/history")
        #expect(names.filter { $0.hasSuffix(".qkh") }.count == 2
                && names.allSatisfy { $0.hasPrefix("tx.g1.") || $0.hasPrefix("tx.g2.") },
                "transactions of loads killed before their commit are collected: \(names)")
    }

    /// `quakes history --format csv`: generation and inserted count of each transaction.
    static func history(_ store: String) throws -> [(generation: Int, inserted: Int)] {
        let out = try CLI.run(["history", "--store", store, "--format", "csv", "--no-header"]).stdout
        return out.split(separator: "\n").map { line in
            let f = line.split(separator: ",")
            return (Int(f[0]) ?? -1, Int(f[3]) ?? -1)
        }
    }
}

/// Kills small commits that update events where they stand (a partition rewritten from its old
/// file, ``MergePass/mergeInPlace``) at random moments: every kill leaves a store that verifies
/// and holds the snapshot before the commit or the one after, never a mix.
@Suite struct InPlaceCrashTests {
    @Test func killedInPlaceUpdatesLeaveTheBeforeOrTheAfter() throws {
        let d = CLI.tempDir()
        var feed = try RevisionFeed(rows: 40000, generatorSeed: 68, drawSeed: 6868, dir: d, store: d + "/before")
        var lines: [String] = []
        for _ in 0..<20 {
            var fields = feed.randomRow()
            guard fields.count == feed.header.count else { continue }
            fields[feed.magColumn] = String(format: "%.2f", (Double(fields[feed.magColumn]) ?? 1) + 0.1)
            fields[feed.updatedColumn] = "2030-01-01T00:00:00.000Z"
            lines.append(RevisionFeed.line(fields))
        }
        try feed.write(lines, to: d + "/up.csv")
        let before = try CLI.run(["export", "--store", d + "/before"]).stdout
        try FileManager.default.copyItem(atPath: d + "/before", toPath: d + "/after")
        let started = Date()
        #expect(try CLI.run(["load", "--store", d + "/after", d + "/up.csv"]).status == 0)
        let duration = Date().timeIntervalSince(started)
        let after = try CLI.run(["export", "--store", d + "/after"]).stdout
        #expect(after != before)
        var outcomes = [0, 0]
        for trial in 0..<20 {
            let store = d + "/trial-\(trial)"
            try FileManager.default.copyItem(atPath: d + "/before", toPath: store)
            let process = try CLI.start(["load", "--store", store, d + "/up.csv"])
            Thread.sleep(forTimeInterval: duration * Double(feed.next() % 1000) / 1000 * 1.2)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let verified = try CLI.run(["verify", "--store", store])
            #expect(verified.status == 0, "trial \(trial): \(verified.stderr)")
            let now = try CLI.run(["export", "--store", store]).stdout
            #expect(now == before || now == after, "trial \(trial): the store is neither snapshot")
            outcomes[now == before ? 0 : 1] += 1
            // the next load finishes the update whatever the kill left
            #expect(try CLI.run(["load", "--store", store, d + "/up.csv"]).status == 0)
            #expect(try CLI.run(["export", "--store", store]).stdout == after)
        }
        #expect(outcomes[0] + outcomes[1] == 20)
    }
}
