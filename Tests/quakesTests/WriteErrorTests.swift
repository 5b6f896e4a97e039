import Foundation
import Testing

/// No write error is lost: every subcommand that writes exits 1 with one line when stdout or an
/// `--out` file cannot take the bytes, and an `--out` file appears under its name only when complete.
@Suite struct WriteErrorTests {
    static let store: String = {
        let d = CLI.tempDir("write-errors")
        _ = try? CLI.run(["load", "--store", d + "/s", CLI.packageRoot.appendingPathComponent("data/csv").path])
        return d + "/s"
    }()

    /// A shell line with stdout sent to `/dev/full`.
    static func toFull(_ args: [String]) throws -> CLI.Result {
        let line = ([CLI.binary] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        return try CLI.exec("/bin/sh", ["-c", line + " > /dev/full"])
    }

    static let writers: [[String]] = [
        ["count"], ["query", "--limit", "10", "--format", "csv"], ["query", "--format", "json"],
        ["query", "--format", "geojson"], ["query", "--format", "arrow"], ["query", "--format", "svg"],
        ["query", "--format", "text"], ["query"], ["agg", "--by", "net"], ["sections", "--by", "net"],
        ["agg", "--by", "net", "--format", "arrow"], ["agg", "--by", "net", "--format", "parquet", "--out", "-"],
        ["info"], ["info", "--json"], ["history"], ["history", "1"], ["verify"], ["explain", "query", "--day", "2024-06-15"],
        ["export", "--format", "csv"], ["export", "--format", "geojson"],
    ]

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"), arguments: writers)
    func stdoutOnAFullDeviceExitsOneWithOneLine(_ args: [String]) throws {
        let r = try Self.toFull(args + ["--store", Self.store])
        #expect(r.status == 1, "\(args): status \(r.status)")
        let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("cursor:") }
        #expect(lines == ["quakes: stdout: No space left on device"], "\(args): \(r.stderr)")
    }

    @Test func loadAndGenerateReportAFullStdoutToo() throws {
        let d = CLI.tempDir()
        let load = try Self.toFull(["load", "--store", d + "/s", CLI.packageRoot.appendingPathComponent("data/csv").path])
        #expect(load.status == 1 && load.stderr.hasSuffix("quakes: stdout: No space left on device\n"))
        let gen = try Self.toFull(["generate", "--rows", "100", "--out", d + "/g", "--seed", "1"])
        #expect(gen.status == 1 && gen.stderr.hasSuffix("quakes: stdout: No space left on device\n"))
    }

    /// A reader that goes away ends the output quietly, as `head` expects.
    @Test func aClosedPipeIsNotAnError() throws {
        let line = "trap '' PIPE; '\(CLI.binary)' query --store '\(Self.store)' --format csv --limit 100000 | head -c 10"
            + " >/dev/null; echo ${PIPESTATUS:-}"
        let r = try CLI.exec("/bin/bash", ["-c", "set -o pipefail; " + line + "; exit $?"])
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    /// A 64 KiB tmpfs: the export is larger, so it fails part way; nothing is left under the name,
    /// and no temporary file stays behind.
    static let smallDisk: String? = {
        let d = CLI.tempDir("small-disk")
        guard let r = try? CLI.exec("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", d]), r.status == 0 else {
            return nil
        }
        return d
    }()

    @Test(.enabled(if: smallDisk != nil, "needs mount -t tmpfs (root)"),
          arguments: [["export", "--format", "csv"], ["export", "--format", "geojson"],
                      ["query", "--format", "svg", "--limit", "5000"], ["query", "--format", "parquet"]])
    func aFullDiskLeavesNoPartialFile(_ args: [String]) throws {
        let dir = try #require(Self.smallDisk)
        let out = dir + "/out-\(args.joined(separator: "-"))"
        let r = try CLI.run(args + ["--store", Self.store, "--out", out])
        #expect(r.status == 1, "\(args): status \(r.status)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("quakes: \(out)") && lines[0].hasSuffix("No space left on device"),
                "\(args): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let name = URL(fileURLWithPath: out).lastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(name) }.isEmpty)
    }

    /// The same commands on a disk with room write the whole file.
    @Test func withRoomTheFileIsWhole() throws {
        let d = CLI.tempDir()
        let r = try CLI.run(["export", "--format", "csv", "--store", Self.store, "--out", d + "/all.csv"])
        #expect(r.status == 0)
        let text = try String(contentsOfFile: d + "/all.csv", encoding: .utf8)
        let count = try CLI.run(["count", "--store", Self.store]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.split(separator: "\n").count == (Int(count) ?? -1) + 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d) == ["all.csv"])
    }
}
