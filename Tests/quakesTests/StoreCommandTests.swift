import Foundation
import Testing

/// End-to-end runs of the store commands: generate, load, info, verify, export, usage errors.
@Suite struct StoreCommandTests {
    @Test func helpListsEverySubcommand() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0)
        for sub in ["load", "query", "count", "agg", "sections", "explain", "info", "verify", "export", "generate", "bench"] {
            #expect(r.stdout.contains(sub), "\(sub)")
        }
        let l = try CLI.run(["load", "--help"])
        #expect(l.status == 0 && l.stdout.contains("--strict"))
    }

    @Test func usageErrorsExitTwoWithOneLineHint() throws {
        for args in [["load"], ["frobnicate"], ["generate", "--rows", "ten", "--out", "/tmp/x"], ["export", "--format", "xml"], ["load", "--bogus", "x"]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("--help"))
        }
    }

    @Test func generateLoadInfoVerifyExportRoundTrip() throws {
        let d = CLI.tempDir()
        let g = try CLI.run(["generate", "--rows", "2000", "--out", d + "/gen", "--format", "geojson", "--compress", "zst"])
        #expect(g.status == 0 && g.stdout.contains(".geojson.zst"))
        let l = try CLI.run(["load", "--store", d + "/s", d + "/gen"])
        #expect(l.status == 0, "\(l.stderr)")
        #expect(l.stdout.split(separator: "\n").contains { $0.hasPrefix("  new ") && $0.hasSuffix(" 2,000") }, "\(l.stdout)")
        let i = try CLI.run(["info", "--json"], env: ["QUAKES_STORE": d + "/s"])
        let info = try JSONSerialization.jsonObject(with: Data(i.stdout.utf8)) as! [String: Any]
        #expect(info["rows"] as? Int == 2000)
        #expect(try CLI.run(["verify", "--store", d + "/s"]).status == 0)
        let e = try CLI.run(["export", "--store", d + "/s", "--out", d + "/all.csv"])
        #expect(e.status == 0)
        // stdin load of the export gives the same store content
        let text = try String(contentsOfFile: d + "/all.csv", encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2001)
        let l2 = try CLI.run(["load", "--store", d + "/s2", "-"], stdin: text)
        #expect(l2.status == 0)
        #expect(try CLI.run(["export", "--store", d + "/s2"]).stdout == text)
    }

    @Test func missingStoreIsAClearError() throws {
        let r = try CLI.run(["info", "--store", "/nonexistent/store"])
        #expect(r.status == 1 && r.stderr.contains("no store at"))
    }

    @Test func aSecondWriterIsKeptOut() throws {
        let d = CLI.tempDir()
        _ = try CLI.run(["generate", "--rows", "40000", "--out", d + "/gen"])
        let p = try CLI.start(["load", "--store", d + "/s", d + "/gen"])
        var sawLock = false
        for _ in 0..<100 where p.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let r = try CLI.run(["load", "--store", d + "/s", d + "/gen"])
            if r.stderr.contains("locked by another writer") { sawLock = true; break }
        }
        p.waitUntilExit()
        #expect(sawLock)
        #expect(try CLI.run(["verify", "--store", d + "/s"]).status == 0)
    }
}
