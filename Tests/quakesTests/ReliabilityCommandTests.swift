import Foundation
import Testing

/// The CLI under hostile input and damage: usage errors exit 2 with one line, data errors
/// exit 1 with one line naming the file, nothing traps; a store without its manifest is called
/// damaged by every command.
@Suite struct ReliabilityCommandTests {
    @Test func inputThatUsedToTrapGivesUsageErrors() throws {
        let s = try CLI.generatedStore(rows: "2000", seed: 3)
        let deep = String(repeating: "(", count: 60_000) + "mag > 1" + String(repeating: ")", count: 60_000)
        let cases: [[String]] = [
            ["count", "--where", "time > 9.3e18"],
            ["count", "--where", deep],
            ["count", "--where", String(repeating: "!(", count: 30_000) + "mag > 1" + String(repeating: ")", count: 30_000)],
            ["query", "--page", "9223372036854775807", "--page-size", "10"],
            ["count", "--min-mag", "nan"],
            ["count", "--where", "mag > 1e999"],
        ]
        for args in cases {
            let r = try CLI.run(args + ["--store", s])
            #expect(r.status == 2, "\(args.map { String($0.prefix(30)) })")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
        // a period longer than the data reaches back before every event
        let r = try CLI.run(["count", "--store", s, "--last", "1e300d"])
        #expect(r.status == 0 && r.stdout == "2000\n")
        let big = try CLI.run(["query", "--store", s, "--offset", "9223372036854775800", "--limit", "10", "--format", "csv"])
        #expect(big.status == 0 && big.stdout.split(separator: "\n").count == 1)
        for rows in ["1e300m", "infk", "nank"] {
            let g = try CLI.run(["generate", "--rows", rows, "--out", CLI.tempDir("gen")])
            #expect(g.status == 2 && g.stderr == "quakes: --rows: expected a count like 100000, 500k or 10M "
                + "(see 'quakes generate --help')\n")
        }
    }

    @Test func lostManifestIsRefusedByLoadAndRepaired() throws {
        let s = try CLI.generatedStore(rows: "2000", seed: 3)
        let before = try CLI.run(["query", "--store", s, "--format", "csv", "--sort", "id"]).stdout
        try FileManager.default.removeItem(atPath: s + "/manifest.qkm")
        let extra = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "50", "--out", extra, "--seed", "4"]).status == 0)
        let load = try CLI.run(["load", "--store", s, extra])
        #expect(load.status == 1)
        #expect(load.stderr.split(separator: "\n").count == 1)
        #expect(load.stderr.contains("no manifest.qkm") && load.stderr.contains("quakes repair"))
        let repair = try CLI.run(["repair", "--store", s])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.hasPrefix("rebuilt manifest.qkm at generation 1"))
        #expect(try CLI.run(["query", "--store", s, "--format", "csv", "--sort", "id"]).stdout == before)
        #expect(try CLI.run(["verify", "--store", s]).status == 0)
        let again = try CLI.run(["repair", "--store", s])
        #expect(again.status == 1 && again.stderr.contains("nothing to repair"))
    }

    /// A missing magnitude projection: reading it is an error that names `repair`; a load leaves
    /// the store without one and says so; `info` says `repair` builds it, and `repair` does.
    @Test func aMissingProjectionPointsAtRepair() throws {
        let s = try CLI.generatedStore(rows: "6000", seed: 5)
        let info = try CLI.run(["info", "--store", s, "--json"])
        let fields = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        let file = try #require(fields?["projectionFile"] as? String)
        #expect(file.hasPrefix("partitions/top.g") && file.hasSuffix(".qkt"))
        let before = try CLI.run(["query", "--store", s, "--format", "csv", "--sort", "mag:desc", "--limit", "20"])
        #expect(before.status == 0)
        try FileManager.default.removeItem(atPath: s + "/" + file)
        let query = try CLI.run(["query", "--store", s, "--sort", "mag:desc", "--limit", "20"])
        #expect(query.status == 1 && query.stderr.split(separator: "\n").count == 1, "\(query.stderr)")
        #expect(query.stderr.hasSuffix("; 'quakes repair --store \(s)' rebuilds it from the partitions\n"))
        let gone = try CLI.run(["info", "--store", s])
        #expect(gone.stdout.contains("(\(file) is missing: 'quakes repair' builds it)"), "\(gone.stdout)")
        // the bytes on disk are the files that lie there: the gone projection counts nothing
        let goneJSON = try CLI.run(["info", "--store", s, "--json"])
        let goneFields = try JSONSerialization.jsonObject(with: Data(goneJSON.stdout.utf8)) as? [String: Any]
        let disk = try #require(fields?["diskBytes"] as? Int)
        let projectionBytes = try #require(fields?["projectionBytes"] as? Int)
        #expect(projectionBytes > 0 && goneFields?["projectionBytes"] as? Int == 0)
        #expect(goneFields?["diskBytes"] as? Int == disk - projectionBytes)
        let verify = try CLI.run(["verify", "--store", s])
        #expect(verify.status == 1 && verify.stderr.split(separator: "\n").count == 1)
        #expect(verify.stderr.hasSuffix("; 'quakes repair --store \(s)' rebuilds it from the partitions\n"),
                "\(verify.stderr)")
        let extra = CLI.tempDir()
        #expect(try CLI.run(["generate", "--rows", "50", "--out", extra, "--seed", "6"]).status == 0)
        let load = try CLI.run(["load", "--store", s, "--json", extra])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(load.stdout.contains("\"projection\":\"missing\""))
        #expect(load.stderr.contains("warning: the store has no magnitude projection"))
        let without = try CLI.run(["info", "--store", s])
        #expect(without.stdout.contains("projection   none (the store is large enough for one: 'quakes repair'"))
        let repair = try CLI.run(["repair", "--store", s])
        #expect(repair.status == 0 && repair.stdout.hasPrefix("rebuilt the magnitude projection at generation"),
                "\(repair.stdout) \(repair.stderr)")
        #expect(try CLI.run(["verify", "--store", s]).status == 0)
        let rebuilt = try CLI.run(["query", "--store", s, "--format", "csv", "--sort", "mag:desc", "--limit", "20"])
        #expect(rebuilt.status == 0 && rebuilt.stdout.split(separator: "\n").count == 21)
        #expect(try CLI.run(["info", "--store", s]).stdout.contains("(partitions/top.g"))
    }

    /// A damaged id-index bucket: `verify`, and a load that needs the bucket, fail in one line
    /// ending with the `repair` command; `repair` rebuilds the bucket and the store verifies.
    @Test func aDamagedIdBucketPointsAtRepairWhichRebuildsIt() throws {
        let s = try CLI.generatedStore(rows: "6000", seed: 9)
        let bucket = try #require(FileManager.default.contentsOfDirectory(atPath: s + "/ids").sorted().first)
        var bytes = try #require(FileManager.default.contents(atPath: s + "/ids/" + bucket))
        bytes[bytes.count / 3] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: s + "/ids/" + bucket))
        let hint = "; 'quakes repair --store \(s)' rebuilds it from the partitions\n"
        let verify = try CLI.run(["verify", "--store", s])
        #expect(verify.status == 1 && verify.stderr.split(separator: "\n").count == 1)
        #expect(verify.stderr.contains("ids/" + bucket) && verify.stderr.hasSuffix(hint), "\(verify.stderr)")
        let count = try CLI.run(["query", "--store", s, "--format", "csv"])
        #expect(count.status == 0, "a scan does not read the id index: \(count.stderr)")
        let repair = try CLI.run(["repair", "--store", s])
        #expect(repair.status == 0 && repair.stdout.hasPrefix("rebuilt 1 id-index bucket at generation"),
                "\(repair.stdout) \(repair.stderr)")
        #expect(try CLI.run(["verify", "--store", s]).status == 0)
        let again = try CLI.run(["query", "--store", s, "--format", "csv"])
        #expect(again.stdout == count.stdout)
    }

    /// A one-event revision leaves a catalog delta; `compact` folds it, says so, and then finds
    /// nothing to do; the answers stay the same.
    @Test func compactFoldsTheCatalogDeltaThenHasNothingToDo() throws {
        let s = try CLI.generatedStore(rows: "6000", seed: 21)
        let page = try CLI.run(["query", "--store", s, "--format", "csv", "--limit", "1"])
        var lines = page.stdout.split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var row = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let mag = try #require(header.firstIndex(of: "mag"))
        let updated = try #require(header.firstIndex(of: "updated"))
        row[mag] = row[mag] == "1.5" ? "1.6" : "1.5"
        row[updated] = "2030-01-01T00:00:00.000Z"
        lines = [lines[0], row.joined(separator: ",")]
        let revision = s + "/../revision.csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: revision, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["load", "--store", s, revision]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: s + "/partitions")
        #expect(files.contains { $0.hasSuffix(".qkd") }, "\(files)")
        let answer = try CLI.run(["count", "--store", s, "--min-mag", "2"])
        #expect(answer.status == 0 && !answer.stdout.isEmpty)
        // info names the delta and the partitions it lists
        let before = try CLI.run(["info", "--store", s])
        #expect(before.status == 0 && before.stdout.contains("a delta over 1 partition, partitions/catalog.g"),
                "\(before.stdout)")
        // a delta that reads damaged: info says so, and still runs
        let delta = try #require(try FileManager.default.contentsOfDirectory(atPath: s + "/partitions")
            .first { $0.hasSuffix(".qkd") })
        let saved = try Data(contentsOf: URL(fileURLWithPath: s + "/partitions/" + delta))
        var damaged = saved
        damaged[damaged.count / 2] ^= 0x10
        try damaged.write(to: URL(fileURLWithPath: s + "/partitions/" + delta))
        let damagedInfo = try CLI.run(["info", "--store", s])
        #expect(damagedInfo.status == 0 && damagedInfo.stdout.contains("that reads damaged"), "\(damagedInfo.stdout)")
        try saved.write(to: URL(fileURLWithPath: s + "/partitions/" + delta))
        let compact = try CLI.run(["compact", "--store", s])
        #expect(compact.status == 0 && compact.stdout.hasPrefix("folded the catalog delta (1 partition)"),
                "\(compact.stdout) \(compact.stderr)")
        let info = try CLI.run(["info", "--store", s, "--json"])
        #expect(info.status == 0 && info.stdout.contains("\"catalogBytes\""), "\(info.stdout)")
        #expect(!info.stdout.contains("\"catalogDeltaFile\""), "\(info.stdout)")
        #expect(try CLI.run(["verify", "--store", s]).status == 0)
        #expect(try CLI.run(["count", "--store", s, "--min-mag", "2"]).stdout == answer.stdout)
        let again = try CLI.run(["compact", "--store", s])
        #expect(again.status == 0 && again.stdout.hasPrefix("nothing to compact"), "\(again.stdout)")
        let missing = try CLI.run(["compact", "--store", s + "/nowhere"])
        #expect(missing.status == 1 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        // a folder that is no store: the error verify gives, and no LOCK file left in it
        let folder = s + "/../not-a-store"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let notStore = try CLI.run(["compact", "--store", folder])
        #expect(notStore.status == 1 && notStore.stderr.contains("no store at"), "\(notStore.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        // nor does repair, which has no manifest and no partition or id file to rebuild one from
        let repair = try CLI.run(["repair", "--store", folder])
        #expect(repair.status == 1 && repair.stderr.contains("nothing to rebuild a manifest from"), "\(repair.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        // a manifest of garbage and nothing else: the same, and still no LOCK
        FileManager.default.createFile(atPath: folder + "/manifest.qkm", contents: Data((0..<300).map { UInt8($0 % 251) }))
        let garbage = try CLI.run(["repair", "--store", folder])
        #expect(garbage.status == 1 && garbage.stderr.contains("nothing to rebuild a manifest from"), "\(garbage.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["manifest.qkm"])
        // files named as a store's that hold garbage: one line naming what was tried
        let named = s + "/../named-garbage"
        for sub in ["partitions", "ids"] {
            try FileManager.default.createDirectory(atPath: named + "/" + sub, withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: named + "/partitions/2005-01.g1.qkp", contents: Data(repeating: 7, count: 3000))
        FileManager.default.createFile(atPath: named + "/ids/00.g1.idx", contents: Data(repeating: 9, count: 3000))
        let tried = try CLI.run(["repair", "--store", named])
        #expect(tried.status == 1 && tried.stderr.split(separator: "\n").count == 1
                && tried.stderr.contains("no generation of"), "\(tried.stderr)")
    }

    @Test func lockMessageIsOneLine() throws {
        let s = try CLI.generatedStore(rows: "2000", seed: 3)
        let fd = open(s + "/LOCK", O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, "4321\n", 5, 0)
        let r = try CLI.run(["load", "--store", s, s + "/../feed"])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stderr.contains("(pid 4321);"))
    }

    @Test func longPlacesKeepTablesFast() throws {
        let d = CLI.tempDir()
        let header = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type"
        let place = String(repeating: "Very long place ", count: 5000)
        let rows = (0..<3).map { "2024-01-0\($0 + 1)T00:00:00.000Z,1,2,3,4,md,,,,,us,x\($0),2024-02-01T00:00:00.000Z,\(place),earthquake" }
        FileManager.default.createFile(atPath: d + "/f.csv", contents: Data(([header] + rows).joined(separator: "\n").utf8))
        #expect(try CLI.run(["load", "--store", d + "/s", d + "/f.csv"]).status == 0)
        let start = Date()
        let t = try CLI.run(["query", "--store", d + "/s", "--fields", "id,place"])
        #expect(t.status == 0)
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(t.stdout.split(separator: "\n").allSatisfy { $0.count < 200 })
        #expect(t.stdout.contains("…"))
        let csv = try CLI.run(["query", "--store", d + "/s", "--fields", "place", "--format", "csv"])
        #expect(csv.stdout.contains(place.trimmingCharacters(in: .whitespaces)))
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
}
