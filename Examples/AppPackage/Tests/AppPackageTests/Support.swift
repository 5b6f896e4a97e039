import Foundation
import QuakeStore
import Testing

/// Where things are: this package, the repository around it, the real feeds beside the repository.
enum Paths {
    /// `Examples/AppPackage`.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The quakes repository.
    static let repository = package.deletingLastPathComponent().deletingLastPathComponent()
    static let readme = repository.appendingPathComponent("README.md")
    static let snippet = package.appendingPathComponent("Sources/ReadmeSnippet/main.swift")
    /// Real USGS feeds (see their README); absent in a clone without them. `QUAKES_USGS` names
    /// another folder in place of `../shared/usgs`, as for the package's own tests.
    static let usgs: URL = {
        if let p = ProcessInfo.processInfo.environment["QUAKES_USGS"], !p.isEmpty { return URL(fileURLWithPath: p) }
        return repository.deletingLastPathComponent().appendingPathComponent("shared/usgs")
    }()
    static var hasUSGS: Bool { FileManager.default.fileExists(atPath: usgs.appendingPathComponent("README.md").path) }

    /// The Probe executable, built beside the test bundle.
    static let probe: URL? = {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(argv0.deletingLastPathComponent())
        // macOS runs tests in a bundle: Contents/MacOS/... under the build folder
        candidates.append(argv0.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent())
        candidates.append(package.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("Probe") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// A fresh directory under `.build/apptests-tmp` (which run.sh empties first).
    static func temporary(_ name: String) throws -> URL {
        let dir = package.appendingPathComponent(".build/apptests-tmp/\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// The outcome of one Probe process: its exit status and its `key=value` lines.
struct ProbeResult: CustomStringConvertible {
    var status: Int32
    var terminatedBySignal: Bool
    var values: [String: String]
    var output: String
    var errors: String

    subscript(key: String) -> String? { values[key] }
    func int(_ key: String) -> Int? { values[key].flatMap { Int($0) } }

    /// Ran to its end: exit 0, no trap, `done=1` printed.
    var finished: Bool { !terminatedBySignal && status == 0 && values["done"] == "1" }

    var description: String {
        "status \(status)\(terminatedBySignal ? " (signal)" : ""), output:\n\(output)\nstderr:\n"
            + String(errors.suffix(2000))
    }
}

enum Probe {
    /// Runs `Probe ARGS...` to its end.
    static func run(_ arguments: [String]) throws -> ProbeResult {
        let exe = try #require(Paths.probe, "the Probe executable is not beside the tests")
        let p = Process()
        p.executableURL = exe
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // read both to the end before waiting, so a full pipe cannot stall the child
        let errData = Locked(Data())
        let errDone = DispatchSemaphore(value: 0)
        Thread {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            errDone.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        p.waitUntilExit()
        let text = String(decoding: outData, as: UTF8.self)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return ProbeResult(status: p.terminationStatus, terminatedBySignal: p.terminationReason == .uncaughtSignal,
                           values: values, output: text, errors: String(decoding: errData.value, as: UTF8.self))
    }
}

/// A value guarded by a lock, for callbacks that run on other threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func set(_ v: Value) {
        lock.lock()
        stored = v
        lock.unlock()
    }

    func update(_ body: (inout Value) -> Void) {
        lock.lock()
        body(&stored)
        lock.unlock()
    }
}

/// Runs `body`, returning the `QuakeError` it throws (nil when it throws nothing). Another error
/// type fails the test: the API throws one type.
func quakeError(_ body: () throws -> Void) -> QuakeError? {
    do {
        try body()
        return nil
    } catch let e as QuakeError {
        return e
    } catch {
        Issue.record("not a QuakeError: \(type(of: error)) \(error)")
        return nil
    }
}

func quakeError(_ body: () async throws -> Void) async -> QuakeError? {
    do {
        try await body()
        return nil
    } catch let e as QuakeError {
        return e
    } catch {
        Issue.record("not a QuakeError: \(type(of: error)) \(error)")
        return nil
    }
}

/// Waits up to `seconds` for `condition`, polling; returns whether it held.
@MainActor
func eventually(_ seconds: Double, _ condition: @MainActor () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}

/// Calls the synchronous API from async code, where a call of the same name picks the async overload.
func blocking<T>(_ body: () throws -> T) rethrows -> T { try body() }
