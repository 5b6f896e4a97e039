import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Compressed input through zlib and libzstd, read ahead on a thread of its own: every byte the
/// parser sees equals the plain file's, and a store loaded from `.gz` or `.zst` equals one
/// loaded from the plain file.
@Suite struct CompressedInputTests {
    /// Every decompressed byte of `path`, read through ``FeedInput``.
    static func bytes(_ path: String) throws -> [UInt8] {
        let input = try FeedInput(path: path)
        var out: [UInt8] = []
        while let c = try input.next() { out += c }
        return out
    }

    static let hasGzip = FileManager.default.isExecutableFile(atPath: "/bin/gzip")
    static let hasZstd = FileManager.default.isExecutableFile(atPath: "/usr/bin/zstd")

    /// `plain` compressed by the system's `tool` into `path`; true when the tool succeeded.
    static func compressed(_ plain: [UInt8], _ tool: String, _ args: [String], to path: String) throws -> Bool {
        TestSupport.write(plain, to: path + ".in")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args + ["-c", path + ".in"]
        FileManager.default.createFile(atPath: path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// A generated feed bigger than the read-ahead's four 1 MiB chunks: its folder, file and bytes.
    static func bigFeed(_ tag: String = #function) throws -> (String, [String], [UInt8]) {
        let d = TestSupport.tempDir(tag)
        var o = GeneratorOptions(rows: 60_000)
        o.overlap = 0
        let files = try FeedGenerator.generate(o, into: d + "/plain")
        let plain = try Array(Data(contentsOf: URL(fileURLWithPath: files[0])))
        #expect(plain.count > 8 << 20, "bigger than the read-ahead's four 1 MiB chunks")
        return (d, files, plain)
    }

    @Test func everyDecompressedByteEqualsThePlainFile() throws {
        let (d, files, plain) = try Self.bigFeed()
        // zlib's own deflate, in two members (as `cat a.gz b.gz` makes)
        let half = plain.count / 2
        let a = try #require(GzipStream(level: 6)), b = try #require(GzipStream(level: 1))
        TestSupport.write(a.compress(Array(plain[..<half]), final: true) + b.compress(Array(plain[half...]), final: true),
                          to: d + "/two.csv.gz")
        #expect(try Self.bytes(d + "/two.csv.gz") == plain)
        // the same through a store: loaded compressed, it equals the plain load
        let (p, _, _) = try TestSupport.load([files[0]])
        let (g, _, _) = try TestSupport.load([d + "/two.csv.gz"])
        #expect(p.manifest.rows == 60_000 && g.manifest.rows == 60_000)
        #expect(try TestSupport.export(p, .csv) == TestSupport.export(g, .csv))
    }

    @Test(.enabled(if: CompressedInputTests.hasGzip, "needs the system's gzip (/bin/gzip)"))
    func theSystemsGzipReadsAsThePlainFile() throws {
        let (d, _, plain) = try Self.bigFeed()
        let ok = try Self.compressed(plain, "/bin/gzip", ["-9"], to: d + "/sys.csv.gz")
        try #require(ok, "gzip -9 failed")
        #expect(try Self.bytes(d + "/sys.csv.gz") == plain)
    }

    @Test(.enabled(if: CompressedInputTests.hasZstd, "needs the system's zstd (/usr/bin/zstd)"))
    func theSystemsZstdReadsAsThePlainFile() throws {
        let (d, _, plain) = try Self.bigFeed()
        let ok = try Self.compressed(plain, "/usr/bin/zstd", ["-q", "-3"], to: d + "/sys.csv.zst")
        try #require(ok, "zstd -3 failed")
        #expect(try Self.bytes(d + "/sys.csv.zst") == plain)
    }

    @Test func damageAfterTheFirstChunksIsAnErrorThatCommitsNothing() throws {
        let d = TestSupport.tempDir()
        let files = try FeedGenerator.generate(GeneratorOptions(rows: 40_000), into: d + "/plain")
        let plain = try Array(Data(contentsOf: URL(fileURLWithPath: files[0])))
        let z = try #require(GzipStream(level: 6))
        var gz = z.compress(plain, final: true)
        // a flipped byte three quarters in: zlib's checks (block codes or the CRC) catch it
        gz[gz.count * 3 / 4] ^= 0x5A
        TestSupport.write(gz, to: d + "/bad.csv.gz")
        #expect(throws: QuakeError.self) { _ = try Self.bytes(d + "/bad.csv.gz") }
        // inputs dropped after their first chunk (their read-ahead threads are told to stop)
        for _ in 0..<20 {
            let input = try FeedInput(path: d + "/bad.csv.gz")
            #expect(try input.next()?.isEmpty == false)
        }
        let (s, r, _) = try TestSupport.load([d + "/bad.csv.gz"])
        #expect(r.filesRejected == 1 && s.manifest.rows == 0)
    }
}
