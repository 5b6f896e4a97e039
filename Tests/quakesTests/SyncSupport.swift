import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Local stand-ins for the sources `quakes sync` reads, so that no test reaches the internet: a
/// `quakes serve` upstream whose request log is kept, and `sync_upstream.py` (a fault-injecting
/// proxy, or a summary-feed server with ETag and Last-Modified).
enum SyncSupport {
    static let usgs = CLI.usgs
    static let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/sync_upstream.py").path
    /// The venv's python where `make test` made it, else the system's (the proxy needs only the standard library).
    static let python: String = FileManager.default.isExecutableFile(atPath: ServeTests.python) ? ServeTests.python
        : "/usr/bin/python3"
    static let hasPython = FileManager.default.isExecutableFile(atPath: python)

    /// A running `quakes serve` whose request log goes to `log`.
    final class Upstream {
        let process = Process()
        let log: String
        var port = 0
        var base: String { "http://127.0.0.1:\(port)/fdsnws/event/1/" }

        init(store: String, maxEvents: Int = 500) throws {
            log = store + ".log"
            FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["serve", "--store", store, "--port", "0", "--max-events", String(maxEvents)]
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && port == 0 {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let r = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                    port = Int(text[r].dropFirst("127.0.0.1:".count).dropLast()) ?? 0
                }
                if port == 0 { Thread.sleep(forTimeInterval: 0.02) }
            }
            #expect(port > 0, "quakes serve printed no address")
        }

        /// The request lines logged so far.
        var requests: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("GET ") }
        }

        deinit { SyncSupport.stop(process) }
    }

    /// A running `sync_upstream.py`: a proxy (`upstream`) or a feed server (`feedDir`).
    final class Proxy {
        let process = Process()
        let log: String
        var port = 0

        init(upstream: String? = nil, feedDir: String? = nil, faults: [String] = [], match: String = "query",
             delay: Double = 0) throws {
            log = CLI.tempDir("proxylog") + "/requests.log"
            var args = [script, "--log", log, "--faults", faults.joined(separator: ","), "--match", match,
                        "--delay", String(delay)]
            if let upstream { args += ["--upstream", upstream] }
            if let feedDir { args += ["--feed-dir", feedDir] }
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = args
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && !text.contains("\n") {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
            }
            port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(port > 0, "sync_upstream.py printed no port: \(text)")
        }

        var url: String { "http://127.0.0.1:\(port)/" }

        /// Each request's line: `GET path fault`.
        var requests: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        deinit { SyncSupport.stop(process) }
    }

    /// Ends a child: SIGTERM, then SIGKILL after 5 s, reaped with waitpid (Foundation's
    /// waitUntilExit can spin forever on a child it has already seen exit).
    static func stop(_ p: Process) {
        let pid = p.processIdentifier
        if pid <= 0 { return }   // never started
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<500 {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || r == -1 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }

    /// The events a store answers for `filter`, as GeoJSON features by id (every field).
    static func features(_ store: String, _ filter: [String] = [], includeDeleted: Bool = false) throws
        -> [String: NSDictionary] {
        let r = try CLI.run(["query", "--store", store, "--format", "geojson", "--limit", "1000000"] + filter
            + (includeDeleted ? ["--include-deleted"] : []))
        #expect(r.status == 0, "\(r.stderr)")
        let root = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        var out: [String: NSDictionary] = [:]
        for f in root?["features"] as? [NSDictionary] ?? [] {
            if let id = f["id"] as? String { out[id] = f }
        }
        return out
    }

    /// The ids whose features differ between two answers, and those in only one, for a message.
    static func differences(_ a: [String: NSDictionary], _ b: [String: NSDictionary]) -> [String] {
        var out: [String] = []
        for (id, f) in a where b[id].map({ !$0.isEqual(f) }) ?? true { out.append(id) }
        for id in b.keys where a[id] == nil { out.append(id) }
        return out.sorted()
    }

    /// The value a summary line gives (`  new      1,234` -> 1234).
    static func figure(_ summary: String, _ label: String) -> Int? {
        for line in summary.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix(label + " ") else { continue }
            let rest = t.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
            return Int(rest.prefix { $0.isNumber || $0 == "," }.replacingOccurrences(of: ",", with: ""))
        }
        return nil
    }

    /// A GeoJSON feed of `features` (JSON objects), written to `path`.
    static func writeFeed(_ features: [[String: Any]], to path: String) throws {
        let root: [String: Any] = ["type": "FeatureCollection", "metadata": ["generated": 0, "count": features.count],
                                   "features": features]
        try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: path))
    }

    /// The features of a real feed file, as JSON objects.
    static func realFeatures(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: usgs + "/" + name))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return root?["features"] as? [[String: Any]] ?? []
    }

    /// `f` as a newer version: `changes` applied to its properties, `updated` now (as a source
    /// stamps a change) plus `later` ms.
    static func newer(_ f: [String: Any], later: Int = 0, _ changes: [String: Any] = [:]) -> [String: Any] {
        var f = f
        var p = f["properties"] as? [String: Any] ?? [:]
        p["updated"] = Int64(Date().timeIntervalSince1970 * 1000) + Int64(later)
        for (k, v) in changes { p[k] = v }
        f["properties"] = p
        return f
    }
}
