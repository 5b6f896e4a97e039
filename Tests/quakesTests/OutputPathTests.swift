import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--out` the way coreutils treat an output path: a regular file is replaced whole, a symlink is
/// followed, a FIFO or device is written in place and never replaced, `-` is stdout, and a
/// directory is an error. Every command that takes `--out` opens it through one function
/// (`OutputTarget`), so each kind of path is tried with `export` and with `query --format parquet`.
@Suite struct OutputPathTests {
    static let store: String = {
        let d = CLI.tempDir("output-paths")
        _ = try? CLI.run(["load", "--store", d + "/s", CLI.packageRoot.appendingPathComponent("data/csv").path])
        return d + "/s"
    }()

    static func fileType(_ path: String) -> mode_t? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    static func csvRows(_ text: String) -> Int { text.split(separator: "\n").count - 1 }

    @Test func aRegularFileIsReplacedWholeAndKeepsItsMode() throws {
        let d = CLI.tempDir()
        let out = d + "/q.csv"
        try "old".write(toFile: out, atomically: true, encoding: .utf8)
        #expect(chmod(out, 0o600) == 0)
        let r = try CLI.run(["export", "--store", Self.store, "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.hasPrefix("time,latitude,longitude"))
        var st = stat()
        #expect(stat(out, &st) == 0 && st.st_mode & 0o777 == 0o600)
        // nothing but the file: no temporary left beside it
        #expect(try FileManager.default.contentsOfDirectory(atPath: d) == ["q.csv"])
        // the summary line names the rows and the path
        #expect(r.stderr == "exported \(Self.csvRows(text).formatted()) rows as csv to \(out)\n")
    }

    @Test func aSymlinkIsFollowedAndStaysALink() throws {
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/real", withIntermediateDirectories: true)
        try "old".write(toFile: d + "/real/target.csv", atomically: true, encoding: .utf8)
        #expect(symlink("real/target.csv", d + "/link.csv") == 0)
        let r = try CLI.run(["export", "--store", Self.store, "--out", d + "/link.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(d + "/link.csv") == S_IFLNK)
        let text = try String(contentsOfFile: d + "/real/target.csv", encoding: .utf8)
        #expect(text.hasPrefix("time,latitude") && Self.csvRows(text) > 1000)
        // a dangling link creates its target
        #expect(symlink("real/new.parquet", d + "/dangling.parquet") == 0)
        let p = try CLI.run(["query", "--store", Self.store, "--format", "parquet", "--out", d + "/dangling.parquet"])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(Self.fileType(d + "/dangling.parquet") == S_IFLNK)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: d + "/real/new.parquet"))
        #expect(bytes.prefix(4) == Data("PAR1".utf8) && bytes.suffix(4) == Data("PAR1".utf8))
    }

    @Test func aFIFOIsWrittenInPlaceToItsReader() throws {
        let d = CLI.tempDir()
        let fifo = d + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        // the reader: cat copies what comes through the FIFO into a file
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat '\(fifo)' > '\(d)/got.csv'"]
        try reader.run()
        let r = try CLI.run(["export", "--store", Self.store, "--out", fifo])
        reader.waitUntilExit()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.fileType(fifo) == S_IFIFO)
        let got = try String(contentsOfFile: d + "/got.csv", encoding: .utf8)
        let direct = try CLI.run(["export", "--store", Self.store])
        #expect(got == direct.stdout && Self.csvRows(got) > 1000)
    }

    @Test func dashIsStandardOutput() throws {
        let d = CLI.tempDir()
        let r = try CLI.run(["export", "--store", Self.store, "--format", "geojson", "--out", "-"])
        #expect(r.status == 0 && r.stdout.hasPrefix("{\"type\":\"FeatureCollection\""))
        #expect(r.stderr.hasPrefix("exported ") && r.stderr.hasSuffix(" as geojson to stdout\n"))
        let parquet = d + "/stdout.parquet"
        let p = try CLI.exec(CLI.binary, ["query", "--store", Self.store, "--format", "parquet", "--out", "-"],
                             stdoutFile: parquet)
        #expect(p.status == 0, "\(p.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: parquet))
        #expect(bytes.count > 1000 && bytes.prefix(4) == Data("PAR1".utf8) && bytes.suffix(4) == Data("PAR1".utf8))
        // no file named '-' anywhere
        #expect(!FileManager.default.fileExists(atPath: "-"))
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("-").path))
        // a Parquet export is a directory: '-' is a usage error
        let e = try CLI.run(["export", "--store", Self.store, "--format", "parquet", "--out", "-"])
        #expect(e.status == 2 && e.stderr.contains("query --format parquet --out -"))
    }

    @Test func devStdoutWritesIntoTheShellsRedirection() throws {
        let d = CLI.tempDir()
        let line = "'\(CLI.binary)' export --store '\(Self.store)' --out /dev/stdout > '\(d)/redirected.csv'"
        let r = try CLI.exec("/bin/sh", ["-c", line])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: d + "/redirected.csv", encoding: .utf8)
        #expect(text.hasPrefix("time,latitude") && Self.csvRows(text) > 1000)
        #expect(Self.fileType("/dev/stdout") == S_IFLNK)
        // a full device behind /dev/stdout is an error, and the link is untouched
        let full = try CLI.exec("/bin/sh", ["-c", "'\(CLI.binary)' export --store '\(Self.store)' --out /dev/stdout > /dev/full"])
        #expect(full.status == 1 && full.stderr == "quakes: /dev/stdout: No space left on device\n")
    }

    @Test func aDirectoryIsAnError() throws {
        let d = CLI.tempDir()
        let r = try CLI.run(["export", "--store", Self.store, "--out", d])
        #expect(r.status == 1 && r.stderr == "quakes: \(d): Is a directory\n", "\(r.stderr)")
        // a missing folder: the error names the path given, not a temporary name beside it
        for args in [["export"], ["query", "--format", "parquet"]] {
            let m = try CLI.run(args + ["--store", Self.store, "--out", d + "/nodir/x.out"])
            #expect(m.status == 1 && m.stderr == "quakes: \(d)/nodir/x.out: No such file or directory\n", "\(m.stderr)")
        }
        // a Parquet export into a file: one line naming it
        try "keep".write(toFile: d + "/file.csv", atomically: true, encoding: .utf8)
        let p = try CLI.run(["export", "--store", Self.store, "--format", "parquet", "--out", d + "/file.csv"])
        #expect(p.status == 1 && p.stderr.hasPrefix("quakes: \(d)/file.csv: not a directory"), "\(p.stderr)")
        #expect(try String(contentsOfFile: d + "/file.csv", encoding: .utf8) == "keep")
    }

    static let isRoot = getuid() == 0

    /// Character devices made with mknod in a temporary folder (the real /dev is never touched):
    /// 1,7 is full and 1,3 is null. Both stay devices; the full one reports the error.
    @Test(.enabled(if: isRoot, "needs root for mknod")) func aCharacterDeviceIsWrittenInPlace() throws {
        let d = CLI.tempDir()
        let full = d + "/full", null = d + "/null"
        #expect(mknod(full, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0)
        #expect(mknod(null, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
        for args in [["export"], ["query", "--format", "parquet"]] {
            let bad = try CLI.run(args + ["--store", Self.store, "--out", full])
            #expect(bad.status == 1 && bad.stderr == "quakes: \(full): No space left on device\n", "\(args): \(bad.stderr)")
            #expect(Self.fileType(full) == S_IFCHR)
            let good = try CLI.run(args + ["--store", Self.store, "--out", null])
            #expect(good.status == 0, "\(args): \(good.stderr)")
            #expect(Self.fileType(null) == S_IFCHR)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: d).sorted() == ["full", "null"])
    }
}
