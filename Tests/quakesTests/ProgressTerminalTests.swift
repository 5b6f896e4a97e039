import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The load's progress line in a real terminal (tmux), at a narrow and a wide width.
@Suite(.serialized) struct ProgressTerminalTests {
    static let phases = ["read", "resolve", "merge", "commit"]

    /// The tmux socket of this test run, so the user's own server is never touched.
    static let socket = NSTemporaryDirectory() + "quakes-tmux-\(getpid())"

    /// Runs a tmux client and returns what it printed.
    static func tmux(_ args: [String]) throws -> String {
        let r = try CLI.exec("tmux", ["-S", socket] + args)
        return r.stdout + r.stderr
    }

    /// Starts a detached session with plain `posix_spawnp`: a server started through
    /// Foundation's `Process` on Linux dies at once (it inherits the spawn attributes).
    static func startSession(_ args: [String]) -> Bool {
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm-256color"
        env.removeValue(forKey: "TMUX")
        let all = ["tmux", "-S", socket, "new-session", "-d"] + args
        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "tmux", nil, nil, &argv, &envp) == 0 else { return false }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status == 0
    }

    static var hasTmux: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/tmux") }
    }

    static var hasRsvgConvert: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/rsvg-convert") }
    }

    @Test(.enabled(if: Self.hasTmux, "needs tmux (make test installs it)"), arguments: [50, 120])
    func progressFitsAndMoves(width: Int) throws {
        let d = CLI.tempDir("progress\(width)")
        #expect(try CLI.run(["generate", "--rows", "1M", "--file-rows", "1M", "--out", d + "/feed", "--seed", "5"]).status == 0)
        let session = "quakes-progress-\(width)-\(UUID().uuidString.prefix(6))"
        #expect(Self.startSession(["-s", session, "-x", "\(width)", "-y", "30",
                                   "\(CLI.binary) load --store \(d)/s \(d)/feed; echo LOAD-DONE; sleep 30"]))
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }
        var progress: [String] = []
        var finalScreen = ""
        for _ in 0..<600 {
            Thread.sleep(forTimeInterval: 0.05)
            let screen = try Self.tmux(["capture-pane", "-p", "-t", session])
            let rows = screen.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if rows.contains("LOAD-DONE") { finalScreen = screen; break }
            if let last = rows.last, rows.count == 1 { progress.append(last) }
        }
        #expect(finalScreen.contains("LOAD-DONE"), "the load did not finish in 30 s")
        #expect(progress.count >= 5, "too few progress captures: \(progress)")
        for line in progress {
            // one row, never wrapped, always naming its phase
            #expect(line.count < width, "\(line.count) chars: \(line)")
            #expect(Self.phases.contains { line.hasPrefix($0) }, "no phase: \(line)")
        }
        let seen = Set(progress.compactMap { l in Self.phases.first { l.hasPrefix($0) } })
        #expect(seen.contains("read") && seen.count >= 2, "phases seen: \(seen)")
        // the read percentage never goes back, and no line stays put: the clock or the counts move
        let percents = progress.filter { $0.hasPrefix("read") }.compactMap { l -> Int? in
            guard let r = l.range(of: #"\d+%"#, options: .regularExpression) else { return nil }
            return Int(l[r].dropLast())
        }
        #expect(percents == percents.sorted())
        var runs = 1, longest = 1
        for (a, b) in zip(progress, progress.dropFirst()) { runs = a == b ? runs + 1 : 1; longest = max(longest, runs) }
        #expect(longest <= 30, "one progress line stood still for \(longest) captures")
        // the progress line is cleared before the summary
        let rows = finalScreen.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("files") == true, "\(rows.prefix(3))")
    }
}
