import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `quakes serve` as a real process, checked by real clients: ObsPy's FDSN client, plain HTTP
/// (Python's http.client), and the page in headless Chromium driven by Selenium. Each client is
/// a script under `Python/`; a test whose client or browser is missing is skipped, out loud.
/// Also the errors of a bad `serve` line: usage errors, and bind errors that say which flag to change.
@Suite(.serialized) struct ServeTests {
    static var python: String { ParquetExportTests.python }

    static func pythonHas(_ module: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? CLI.exec(python, ["-c", "import \(module)"]).status) == 0
    }

    static let hasObsPy = pythonHas("obspy")
    static let hasSelenium = pythonHas("selenium")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")

    /// A store for the clients: the real feeds when they are there, else a generated archive. The
    /// ObsPy and HTTP checks hold on either; the tests that need the real feeds say so by trait.
    static func store(_ tag: String) throws -> String {
        let d = CLI.tempDir(tag)
        if CLI.hasRealFeeds {
            let usgs = CLI.usgs
            #expect(try CLI.run(["load", "--store", d + "/s", usgs]).status <= 1)  // some files carry rejects
        } else {
            #expect(try CLI.run(["generate", "--rows", "20000", "--out", d + "/feed", "--seed", "5"]).status == 0)
            #expect(try CLI.run(["load", "--store", d + "/s", d + "/feed"]).status == 0)
        }
        return d + "/s"
    }

    /// A running `quakes serve --port 0`, and the port it printed.
    final class Server {
        let process = Process()
        var port = 0

        init(store: String, _ extra: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["serve", "--store", store, "--port", "0", "--quiet"] + extra
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let d = err.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
                if let r = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                    port = Int(text[r].dropFirst("127.0.0.1:".count).dropLast()) ?? 0
                    break
                }
            }
            #expect(port > 0, "quakes serve printed no address: \(text)")
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test(.enabled(if: ServeTests.hasObsPy, "needs obspy in the venv (make test installs it)"))
    func obspyGetsWhatTheCLIGets() throws {
        let s = try Self.store("obspy")
        let server = try Server(store: s, ["--max-events", "1000000"])
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_fdsn_obspy.py").path
        let r = try CLI.exec(Self.python, [script, String(server.port), s, CLI.binary])
        #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(r.stdout)\(r.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: ServeTests.python), "needs the venv's python"))
    func httpFormatsErrorsAndLimits() throws {
        let s = try Self.store("http")
        let server = try Server(store: s, ["--max-events", "100"])
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_fdsn_http.py").path
        let r = try CLI.exec(Self.python, [script, String(server.port)])
        #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(r.stdout)\(r.stderr)")
        #expect(server.process.isRunning, "the server survived the bad requests")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ServeTests.hasSelenium, "needs selenium in the venv and Debian's chromium and chromium-driver"))
    func thePageInARealBrowser() throws {
        let s = try Self.store("page")
        let server = try Server(store: s)
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_page.py").path
        let shot = PageBrowserTests.shots + "/serve-page.png"
        let r = try CLI.exec(Self.python, [script, String(server.port), s, CLI.binary, shot],
                             env: ["SE_OFFLINE": "true"])
        #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(r.stdout)\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: shot))
    }

    @Test func usageErrorsExitTwo() throws {
        let r = try CLI.run(["serve", "--port", "70000"])
        #expect(r.status == 2 && r.stderr.contains("--port"))
        let missing = try CLI.run(["serve", "--store", CLI.tempDir() + "/none"])
        #expect(missing.status == 1 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    /// Standard error's lines, less the dynamic loader's notes a debug build prints.
    static func lines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.contains("direct reference to protected") }
    }

    @Test func aBusyPortOrABadHostSaysWhichFlagToChange() throws {
        let store = try CLI.generatedStore(rows: "200", seed: 50)
        // hold a port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(fd, a, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, a, &len) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let busy = try CLI.run(["serve", "--store", store, "--port", String(port)])
        #expect(busy.status == 1)
        #expect(Self.lines(busy.stderr) == ["quakes: port \(port) is in use: pick another with --port"],
                "\(busy.stderr)")
        // an address of no interface here (TEST-NET-1: no name lookup, nothing sent anywhere)
        let host = try CLI.run(["serve", "--store", store, "--host", "192.0.2.1", "--port", "0"])
        #expect(host.status == 1)
        let want = "quakes: cannot bind host '192.0.2.1': not a local address or resolvable name: "
            + "pick another with --host"
        #expect(Self.lines(host.stderr) == [want], "\(host.stderr)")
    }
}
