import Foundation
import Testing
import QuakeFormat
import QuakeSupport
import Synchronization
import QuakeTestSupport

/// Runs the built `quakes` binary as a subprocess.
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The real USGS feeds' folder, whether or not it is there: `../shared/usgs` beside the package,
    /// or `$QUAKES_USGS` (see `TestSupport.usgsDirectory`). Every path to a real feed that a test
    /// builds, and hands to the binary or a Python script, starts here.
    static let usgs = TestSupport.usgsPath

    /// True when the real feeds' folder is there; tests that read it carry
    /// `.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)")`
    /// and are reported as skipped when it is not.
    static let hasRealFeeds = TestSupport.hasRealFeeds

    static var binary: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("quakes").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for config in ["debug", "release"] {
            let p = packageRoot.appendingPathComponent(".build/\(config)/quakes").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return "quakes"
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    @discardableResult
    static func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> Result {
        try exec(binary, args, stdin: stdin, env: env)
    }

    /// Runs `executable` (a path, or a name looked up on PATH) and collects its output; stderr
    /// is drained on another thread so neither pipe can fill up and stall the child.
    /// `stdoutFile` sends standard output to a file instead (binary output such as Arrow).
    @discardableResult
    static func exec(_ executable: String, _ args: [String], stdin: String? = nil, env: [String: String] = [:],
                     stdoutFile: String? = nil) throws -> Result {
        let p = Process()
        if executable.contains("/") {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = args
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [executable] + args
        }
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe(), inp = Pipe()
        var file: FileHandle?
        if let stdoutFile {
            FileManager.default.createFile(atPath: stdoutFile, contents: nil)
            file = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutFile))
            p.standardOutput = file
        } else {
            p.standardOutput = out
        }
        p.standardError = err
        p.standardInput = inp
        try p.run()
        let errData = Drained()
        let drained = DispatchSemaphore(value: 0)
        let errReader = err.fileHandleForReading
        DispatchQueue.global().async {
            let d = errReader.readDataToEndOfFile()
            errData.data.locked { $0 = d }
            drained.signal()
        }
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = file == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        drained.wait()
        p.waitUntilExit()
        try file?.close()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: errData.data.locked { $0 }, as: UTF8.self))
    }

    /// A store loaded from a generated feed of `rows` events.
    static func generatedStore(rows: String = "3000", seed: Int, tag: String = #function) throws -> String {
        let d = tempDir(tag)
        #expect(try run(["generate", "--rows", rows, "--out", d + "/feed", "--seed", String(seed)]).status == 0)
        #expect(try run(["load", "--store", d + "/s", d + "/feed"]).status == 0)
        return d + "/s"
    }

    /// Starts the binary in the background, output discarded.
    static func start(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    static func tempDir(_ tag: String = #function) -> String {
        TestScratch.folder("quakes-cli-\(tag.filter { $0.isLetter })")
    }
}

/// Standard error collected on another thread.
private final class Drained: Sendable {
    let data = Mutex(Data())
}
