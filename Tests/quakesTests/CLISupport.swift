import Foundation

/// Runs the built `quakes` binary as a subprocess.
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: r, as: UTF8.self))
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
        let p = NSTemporaryDirectory() + "quakes-cli-\(tag.filter { $0.isLetter })-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }
}
