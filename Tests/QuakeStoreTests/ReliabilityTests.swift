import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Damage, loss and hostile input: a store answers right or gives an error naming the file,
/// never a wrong answer or a trap; a lost manifest is rebuilt, not replaced by a new store.
@Suite struct ReliabilityTests {
    /// Every input a fuzzer (or the issue's trials) found, replayed through its harness. A trap
    /// would end the test process, so reaching the expectation is the check.
    @Test func fuzzCrashersStayFixed() throws {
        let root = TestSupport.packageRoot.appendingPathComponent("Fuzz/crashers").path
        var replayed = 0
        for h in fuzzHarnesses {
            let dir = root + "/" + h.name
            for f in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                guard let d = FileManager.default.contents(atPath: dir + "/" + f) else { continue }
                d.withUnsafeBytes { h.run($0) }
                replayed += 1
            }
        }
        #expect(replayed >= 7)
    }

    /// A manifest that names one file for two partitions, or its catalog by a partition's file,
    /// is refused; distinct names read back as written.
    @Test func aManifestNamingAFileTwiceIsRefused() throws {
        func entry(_ month: Int, _ file: String) -> PartitionEntry {
            let t = Int64(Timestamp.days(year: 2020, month: month, day: 5)) * 86_400_000
            return PartitionEntry(key: Partitioning.month.key(t), file: file, rows: 1, minTime: t, maxTime: t,
                                  bytes: 10)
        }
        func manifest(_ files: [String], catalog: String? = nil) -> Manifest {
            var m = Manifest(partitioning: .month)
            m.partitions = files.enumerated().map { entry($0.offset + 1, $0.element) }
            m.rows = files.count
            m.catalog = catalog
            return m
        }
        let good = manifest(["b.qkp", "a.qkp", "c.qkp"], catalog: "cat.qkc")
        let read = try good.encoded().withUnsafeBytes { try Manifest.decode($0, path: "m") }
        #expect(read == good)
        for bad in [manifest(["b.qkp", "a.qkp", "b.qkp"]), manifest(["a.qkp", "a.qkp"]),
                    manifest(["a.qkp", "b.qkp"], catalog: "b.qkp")] {
            #expect(throws: QuakeError.self) {
                try bad.encoded().withUnsafeBytes { try Manifest.decode($0, path: "m") }
            }
        }
    }

    /// Names in a manifest read back byte for byte when they are UTF-8 (one to four bytes a
    /// character), and bytes that are not UTF-8 are an error, never a repaired name.
    @Test func manifestNamesAreUTF8OrAnError() throws {
        func read(_ payload: [UInt8]) throws(QuakeError) -> String {
            let bytes = [UInt8(payload.count), 0] + payload
            return try bytes.withStoreBytes { raw throws(QuakeError) in
                var r = ByteReader(raw)
                return try r.string()
            }
        }
        for name in ["2024-06", "a.qkp", "Île-de-France", "Ōita 大分", "🌋 Kīlauea", ""] {
            var w = ByteWriter()
            w.string(name)
            let back = try w.bytes.withStoreBytes { raw throws(QuakeError) in
                var r = ByteReader(raw)
                return try r.string()
            }
            #expect(back == name)
            #expect(Array(back.utf8) == Array(name.utf8))
        }
        // a stray continuation byte, a cut sequence, an overlong form, a surrogate, past U+10FFFF
        for bad: [UInt8] in [[0x61, 0x80], [0xC3], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
                             [0xF4, 0x90, 0x80, 0x80], [0xFF, 0x61]] {
            #expect(throws: QuakeError.self) { try read(bad) }
        }
        // a name cut short of its length is an error too
        #expect(throws: QuakeError.self) {
            try [UInt8]([5, 0, 0x61]).withStoreBytes { raw throws(QuakeError) in
                var r = ByteReader(raw)
                return try r.string()
            }
        }
    }

    @Test func boundsFromInputNeverTrap() throws {
        #expect(throws: WhereParser.SyntaxError.self) { try WhereParser.parse("time > 9.3e18") }
        #expect(throws: WhereParser.SyntaxError.self) { try WhereParser.parse(String(repeating: "(", count: 5000) + "mag > 1") }
        #expect(throws: WhereParser.SyntaxError.self) { try WhereParser.parse("mag > 1e999") }
        // NOT is carried down to the comparison, so ten of them cancel out, and eleven are one
        let ten = try WhereParser.parse(String(repeating: "!", count: 10) + "(mag > 1)")
        let eleven = try WhereParser.parse(String(repeating: "!", count: 11) + "(mag > 1)")
        #expect("\(ten)" == "\(try WhereParser.parse("mag > 1"))")
        #expect("\(eleven)" == "\(try WhereParser.parse("not mag > 1"))" && "\(eleven)" != "\(ten)")
        #expect(DateParsing.duration("1e300d") == Int64(3.2e14))
        #expect(DateParsing.duration("7d") == Optional(Int64(604_800_000)))
        #expect(Int64(saturating: .infinity) == Int64.saturationLimit)
        #expect(Int64(saturating: -1e300) == -Int64.saturationLimit)
        #expect(Int.max.saturatingAdd(10) == Int.max)
        #expect(Int.max.saturatingMultiply(-2) == Int.min)
    }

    @Test func aggregateRefusesAFourthGroupKey() throws {
        let (_, s) = try twoGenerationStore()
        let e = #expect(throws: QuakeError.self) {
            _ = try s.aggregate(by: [.time(.year), .time(.month), .time(.day), .time(.hour)], metrics: [.count])
        }
        #expect(e?.kind == .invalidArgument)
        #expect(try s.aggregate(by: [.time(.year), .time(.month), .time(.day)], metrics: [.count]).0.count > 0)
    }

    @Test func impossibleDatesAreRejectedAndOffsetsConverted() throws {
        #expect(Timestamp.parse("2024-02-30T00:00:00Z") == nil)
        #expect(Timestamp.parse("2023-02-29") == nil)
        #expect(Timestamp.parse("2024-02-29") == Timestamp.parse("2024-02-29T00:00:00Z"))
        #expect(Timestamp.parse("2024-01-01T23:59:60Z") == nil)
        #expect(Timestamp.parse("2024-04-31") == nil)
        #expect(Timestamp.parse("2024-06-15T09:00:00+09:00") == Timestamp.parse("2024-06-15T00:00:00Z"))
        #expect(Timestamp.parse("2024-06-15T00:30:00-0130") == Timestamp.parse("2024-06-15T02:00:00Z"))
        #expect(Timestamp.parse("2024-06-15T00:30:00+24:00") == nil)
        let d = TestSupport.tempDir()
        let header = Column.csvColumns.map(\.name).joined(separator: ",")
        func row(_ time: String, _ id: String) -> String {
            Column.csvColumns.map { c -> String in
                switch c {
                case .time: return time
                case .id: return id
                case .latitude, .longitude, .depth, .mag: return "1"
                case .net: return "us"
                default: return ""
                }
            }.joined(separator: ",")
        }
        TestSupport.write([header, row("2024-02-30T00:00:00.000Z", "bad1"), row("2024-01-01T23:59:60.000Z", "bad2"),
                           row("2024-06-15T09:00:00+09:00", "ok1")].joined(separator: "\n") + "\n", to: d + "/f.csv")
        let (s, summary, rejects) = try TestSupport.load([d + "/f.csv"])
        #expect(summary.rejected == 2)
        #expect(rejects.map(\.line) == [2, 3])
        #expect(rejects.allSatisfy { $0.reason.contains("time") && $0.file.hasSuffix("f.csv") })
        #expect(try s.count(.all) == 1)
        #expect(try s.query(QuerySpec()).batch.ints[Column.time.rawValue] == [Timestamp.parse("2024-06-15")])
        #expect(throws: (any Error).self) { try TestSupport.load([d + "/f.csv"], strict: true) }
    }

    /// The store answers `queries`; returns them as text.
    private func answers(_ s: Store) throws -> [String] {
        let w = ResultWriter(format: .csv, columns: Column.csvColumns)
        var out: [String] = [String(try s.count(.all)), String(try s.count(.numberRange(.mag, lower: .init(2), upper: nil)))]
        for q in [QuerySpec(sort: [SortKey(.mag, ascending: false)], limit: 30), QuerySpec(limit: 100_000)] {
            let path = TestSupport.tempDir() + "/q.csv"
            let sink = try OutputSink(path: path)
            w.write(try s.query(q), to: sink)
            out.append((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
        }
        return out
    }

    /// Generated feed files (overlapping snapshots), in order.
    private func feeds(rows: Int, years: ClosedRange<Int>, perFile: Int, seed: UInt64) throws -> [String] {
        var o = GeneratorOptions(rows: rows)
        o.firstYear = years.lowerBound
        o.lastYear = years.upperBound
        o.rowsPerFile = perFile
        o.seed = seed
        return try FeedGenerator.generate(o, into: TestSupport.tempDir()).sorted()
    }

    private func twoGenerationStore() throws -> (String, Store) {
        let d = TestSupport.tempDir()
        let files = try feeds(rows: 6000, years: 2022...2024, perFile: 2000, seed: 9)
        let path = d + "/store"
        _ = try TestSupport.load(Array(files.prefix(2)), into: path)
        let (s, _, _) = try TestSupport.load(Array(files.suffix(from: 1)), into: path)
        return (path, s)
    }

    @Test func lostManifestIsRefusedThenRepaired() throws {
        let (path, s) = try twoGenerationStore()
        let truth = try answers(s)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: path + "/manifest.qkm"))
        try FileManager.default.removeItem(atPath: path + "/manifest.qkm")
        // load must not start a new store over the old files
        #expect { _ = try Store.openOrCreate(path: path) } throws: { e in
            (e as? QuakeError)?.kind == .noManifest && "\(e)".contains("no manifest.qkm")
        }
        #expect(FileIO.list(path + "/partitions").count > 0)
        let report = try Store.repair(path: path)
        #expect(report.generation == s.manifest.generation)
        let r = try Store(path: path)
        #expect(r.manifest.partitions == s.manifest.partitions)
        #expect(r.manifest.idBuckets == s.manifest.idBuckets)
        #expect(try answers(r) == truth)
        _ = try r.verify()
        // a damaged manifest: queries refuse, repair restores and keeps the damaged copy
        var bad = manifest
        bad[bad.count / 2] ^= 0x10
        try bad.write(to: URL(fileURLWithPath: path + "/manifest.qkm"))
        #expect(throws: QuakeError.self) { try Store(path: path) }
        _ = try Store.repair(path: path)
        #expect(try answers(try Store(path: path)) == truth)
        #expect(FileIO.exists(path + "/manifest.qkm.damaged"))
        // a sound manifest is left alone
        #expect(throws: QuakeError.self) { try Store.repair(path: path) }
    }

    @Test func repairRollsBackPastAnIncompleteGeneration() throws {
        let (path, s) = try twoGenerationStore()
        let g = s.manifest.generation
        // a crashed load's leftover: generation g+1 wrote a file for the first partition's key
        // holding another partition's rows; that generation disagrees with itself and is passed over
        let parts = s.manifest.partitions
        let fake = parts[0].key + ".g\(g + 1).qkp"
        try FileManager.default.copyItem(atPath: path + "/partitions/" + parts[1].file, toPath: path + "/partitions/" + fake)
        try FileManager.default.removeItem(atPath: path + "/manifest.qkm")
        let report = try Store.repair(path: path)
        #expect(report.generation == g)
        #expect(report.skipped.count == 1 && report.skipped[0].hasPrefix("generation \(g + 1):"))
        #expect(try Store(path: path).manifest.partitions == parts)
        #expect(try answers(try Store(path: path)) == answers(s))
    }

    @Test func damagedFilesGiveErrorsNamingThemNeverWrongAnswers() throws {
        let (path, s) = try twoGenerationStore()
        let truth = try answers(s)
        let pristine = TestSupport.tempDir() + "/pristine"
        try FileManager.default.copyItem(atPath: path, toPath: pristine)
        var rng = SplitMix64(seed: 4)
        var errors = 0, same = 0
        for trial in 0..<24 {
            let copy = TestSupport.tempDir() + "/t\(trial)"
            try FileManager.default.copyItem(atPath: pristine, toPath: copy)
            let files = ["manifest.qkm"] + s.manifest.liveFiles.sorted()
            let target = files[Int(rng.next() % UInt64(files.count))]
            var bytes = try Data(contentsOf: URL(fileURLWithPath: copy + "/" + target))
            switch trial % 3 {
            case 0: bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
            case 1: bytes = bytes.prefix(Int(rng.next() % UInt64(bytes.count)))
            default: bytes = Data()
            }
            if trial % 3 == 2 { try FileManager.default.removeItem(atPath: copy + "/" + target) } else {
                try bytes.write(to: URL(fileURLWithPath: copy + "/" + target))
            }
            do {
                let got = try answers(try Store(path: copy))
                #expect(got == truth, "trial \(trial): \(target) damaged, a different answer")
                same += 1
            } catch let e as QuakeError {
                let text = "\(e)"
                #expect(!text.contains("\n") && (text.contains(".qk") || text.contains(".idx") || text.contains("/")),
                        "trial \(trial): \(text)")
                errors += 1
            }
            // the id index is read by loads and verify: damage there must be caught by both
            if target.hasPrefix("ids/") {
                #expect(throws: (any Error).self) { _ = try Store(path: copy).verify() }
            }
        }
        #expect(errors > 0)
    }

    @Test func diskFullFailsCleanlyAndKeepsTheSnapshot() throws {
        let mount = TestSupport.tempDir() + "/small"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mount")
        p.arguments = ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil, ({ p.waitUntilExit(); return p.terminationStatus == 0 })() else {
            print("diskFullFailsCleanlyAndKeepsTheSnapshot: skipped, this machine cannot mount a small tmpfs")
            return
        }
        defer {
            let u = Process()
            u.executableURL = URL(fileURLWithPath: "/usr/bin/umount")
            u.arguments = [mount]
            try? u.run()
            u.waitUntilExit()
        }
        let files = try feeds(rows: 80_000, years: 2020...2024, perFile: 40_000, seed: 3)
        let (s, _, _) = try TestSupport.load([try feeds(rows: 300, years: 2024...2024, perFile: 300, seed: 5)[0]],
                                             into: mount + "/s")
        let before = try answers(s)
        #expect { _ = try s.load(files) } throws: { e in "\(e)".contains("No space left on device") }
        let after = try Store(path: mount + "/s")
        #expect(try answers(after) == before)
        _ = try after.verify()
    }
}
