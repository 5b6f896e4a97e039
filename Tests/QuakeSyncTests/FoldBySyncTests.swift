import Foundation
import Testing
import QuakeFormat
import QuakeStore
@testable import QuakeSync
import QuakeGenerator
import QuakeTestSupport

/// The fold rule across every kind of write: random versions, split at random into loads, feed
/// syncs (from Python's `http.server` on the loopback) and upserts, give the naive fold, as
/// one load of them all does.
@Suite(.serialized) struct FoldBySyncTests {
    /// Python's static file server on a port of its own, serving `folder`.
    final class FileServer {
        let process = Process()
        let port: Int

        init(folder: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                                 "--directory", folder]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
            var text = ""
            let deadline = Date().addingTimeInterval(10)
            while !text.contains(") ..."), Date() < deadline {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            let words = text.split(separator: " ")
            guard let at = words.firstIndex(of: "port"), at + 1 < words.count, let port = Int(words[at + 1]) else {
                kill(process.processIdentifier, SIGKILL)
                throw QuakeError(.io, path: folder, detail: "http.server did not say its port: \(text)")
            }
            self.port = port
        }

        /// Stops the server; the process is reaped by Foundation (waiting here could block a
        /// cooperative thread). SIGKILL, not SIGTERM: a test process that has run a server in
        /// process ignores SIGTERM for its graceful shutdown, and a child inherits that, so the
        /// servers outlived the test run.
        func stop() { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        deinit { stop() }
    }

    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    @Test(.enabled(if: hasPython, "needs python3 for a local feed server"), arguments: 0..<6)
    func loadsSyncsAndUpsertsFoldAsOneLoad(trial: Int) async throws {
        var random = SplitMix64(seed: UInt64(77 + trial))
        let deliveries = FoldScenario.deliveries(events: 25, using: &random).shuffled(using: &random)
        let folder = TestSupport.tempDir("foldsync\(trial)")
        let served = folder + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let server = try FileServer(folder: served)
        let store = try Store.openOrCreate(path: folder + "/synced.store")
        var options = SyncOptions()
        options.attempts = 1
        var start = 0
        var group = 0
        var syncs = 0
        while start < deliveries.count {
            let size = Int.random(in: 1...max(1, deliveries.count / 4), using: &random)
            let slice = Array(deliveries[start..<min(deliveries.count, start + size)])
            let values = slice.filter { $0.shape == .value }.map(\.quake)
            if !values.isEmpty { try await store.upsert(values) }
            let paths = try FoldScenario.files(slice.filter { $0.shape != .value }, in: served, tag: "g\(group)")
            if Bool.random(using: &random) {
                // each file a feed of its own: a sync of it fetches and loads it
                for path in paths {
                    let name = (path as NSString).lastPathComponent
                    let source = try SyncSource(url: "http://127.0.0.1:\(server.port)/\(name)")
                    do {
                        let summary = try await store.sync(from: source, options: options)
                        #expect(summary.pieces == 1, "\(name)")
                    } catch {
                        server.stop()
                        throw error
                    }
                    syncs += 1
                }
            } else if !paths.isEmpty {
                try await store.load(paths, options: FoldScenario.loadOptions)
            }
            group += 1
            start += size
        }
        server.stop()
        let expected = FoldScenario.naiveFold(deliveries)
        let differing = FoldScenario.differences(try FoldScenario.contents(store), expected)
        #expect(syncs > 0, "the trial synced nothing")
        #expect(differing.isEmpty, "\(syncs) syncs in \(group) groups: \(differing.prefix(3))")
        _ = try await store.verify()
    }
}
