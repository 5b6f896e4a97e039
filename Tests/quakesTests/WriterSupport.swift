import Foundation
import QuakeFormat
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What the writer-lock tests share: an upstream `quakes serve` over generated events (no real
/// feeds needed), a store's tree of files with their identities, a background `quakes` whose
/// output is kept, and a look at whether a store's lock is held.
enum WriterSupport {
    /// The first sync's window over the generated year, and how the upstream caps a query: about a
    /// dozen pieces, each committed on its own with `--commit-bytes 1`.
    static let window = ["--from", "2020-01-01", "--to", "2021-01-01"]
    static let maxEvents = 300

    /// An upstream store of 3,000 generated events in 2020, and the feed it was loaded from.
    static func upstreamStore(_ tag: String = #function) throws -> (store: String, feed: String) {
        let dir = CLI.tempDir(tag)
        let generated = try CLI.run(["generate", "--rows", "3000", "--years", "2020-2020", "--out", dir + "/feed",
                                     "--seed", "1"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let loaded = try CLI.run(["load", "--store", dir + "/up", dir + "/feed"])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        return (dir + "/up", dir + "/feed")
    }

    /// The local copy holds exactly what the upstream answers for the window: every id, every field.
    static func expectSame(_ up: String, _ down: String, _ note: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let want = try SyncSupport.features(up, window)
        let got = try SyncSupport.features(down, [])
        #expect(want.count == 3000, sourceLocation: sourceLocation)
        let diff = SyncSupport.differences(want, got)
        #expect(diff.isEmpty, "\(note): \(diff.count) events differ, such as \(diff.prefix(5))",
                sourceLocation: sourceLocation)
    }

    /// Every file and folder under `root` (relative path) with its inode, size and modification
    /// time to the nanosecond: two trees are equal when nothing was created, changed or deleted.
    static func tree(_ root: String) -> [String: [Int64]] {
        var out: [String: [Int64]] = [:]
        func walk(_ relative: String) {
            let path = relative.isEmpty ? root : root + "/" + relative
            out[relative] = FileIO.identity(path) ?? []
            guard FileIO.isDirectory(path) else { return }
            for name in FileIO.list(path) { walk(relative.isEmpty ? name : relative + "/" + name) }
        }
        walk("")
        return out
    }

    /// The entries that differ between two trees, for a message.
    static func changes(_ a: [String: [Int64]], _ b: [String: [Int64]]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    /// True when a writer holds the store's lock, read from /proc/locks (a probe that took the
    /// lock itself, however briefly, could refuse the writer it watches).
    static func isLocked(_ store: String) -> Bool {
        guard let inode = FileIO.identity(store + "/LOCK")?.first,
              let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[1] == "FLOCK" && fields[5].split(separator: ":").last == "\(inode)"
        }
    }

    /// Waits until `condition` holds, up to `seconds`; true when it did.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    /// A `quakes` process in the background, its standard output and error kept in files.
    final class Background {
        let process = Process()
        let out: String
        let err: String

        init(_ args: [String], tag: String = #function) throws {
            let dir = CLI.tempDir(tag + "output")
            out = dir + "/\(UUID().uuidString).out"
            err = dir + "/\(UUID().uuidString).err"
            FileManager.default.createFile(atPath: out, contents: nil)
            FileManager.default.createFile(atPath: err, contents: nil)
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = args
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        /// Waits for the exit; the status, 128 + the signal for a process a signal ended.
        @discardableResult
        func finish() -> Int32 {
            process.waitUntilExit()
            let status = process.terminationStatus
            return process.terminationReason == .uncaughtSignal ? 128 + status : status
        }

        var isRunning: Bool { process.isRunning }

        /// Seconds from now until the process has exited (a zombie, or gone), read from
        /// /proc/PID/stat every millisecond: Foundation's wait sees an exit up to 50 ms late.
        func secondsToExit(limit: Double = 30) -> Double {
            let start = Date()
            while Date().timeIntervalSince(start) < limit {
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                let state = stat.split(separator: ")").last?.split(separator: " ").first
                if stat.isEmpty || state == "Z" || state == "X" { break }
                usleep(1_000)
            }
            return Date().timeIntervalSince(start)
        }

        var stdout: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }

        deinit { SyncSupport.stop(process) }
    }
}
