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

    @Test func aggregateRefusesANinthGroupKey() throws {
        let (_, s) = try twoGenerationStore()
        let eight: [GroupBy] = [.time(.year), .time(.month), .time(.day), .time(.hour), .part(.quarter),
                                .part(.dayOfWeek), .value(.net), .interval(milliseconds: 6 * 3_600_000)]
        let e = #expect(throws: QuakeError.self) {
            _ = try s.aggregate(by: eight + [.part(.hourOfDay)], metrics: [.count])
        }
        #expect(e?.kind == .invalidArgument)
        #expect(try s.aggregate(by: eight, metrics: [.count]).0.count > 0)
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

    /// Files and folders (with a trailing `/`) of the store at `root`, relative to it.
    private func storeFiles(_ root: String) -> Set<String> {
        var out: Set<String> = []
        func walk(_ relative: String) {
            for name in FileIO.list(relative.isEmpty ? root : root + "/" + relative) {
                let r = relative.isEmpty ? name : relative + "/" + name
                if FileIO.isDirectory(root + "/" + r) {
                    out.insert(r + "/")
                    walk(r)
                } else {
                    out.insert(r)
                }
            }
        }
        walk("")
        return out
    }

    /// A full disk, an I/O error, an exceeded quota or a short write at any point of a load, as a
    /// normal user: faults are planned into the I/O layer's system calls on the store's paths
    /// (``FileIO/Faults``), no small file system is mounted. Each failed load throws an `.io` error
    /// naming a path of the store, and leaves the store answering exactly as before, `verify`
    /// clean, with no file that its snapshot does not hold; a load whose every write is short
    /// commits what a load without faults does.
    @Test func diskFullFailsCleanlyAndKeepsTheSnapshot() throws {
        typealias Faults = FileIO.Faults
        var options = LoadOptions()
        // rows go where the dry run sent them, however large the test process is
        options.newPartitionResidentLimit = .max
        // the spills on disk, so that their creates, writes and truncations meet the faults too
        options.spillMemory = 0
        let pristine = TestSupport.tempDir() + "/store"
        let first = try Store.openOrCreate(path: pristine, partitioning: .month)
        try first.load(try feeds(rows: 1000, years: 2024...2024, perFile: 1000, seed: 5), options: options)
        let before = try answers(first)
        let rows = try first.count(.all)
        let snapshot = storeFiles(pristine)
        let second = try feeds(rows: 3000, years: 2022...2024, perFile: 1000, seed: 3)
        func copy() throws -> String {
            let path = TestSupport.tempDir() + "/store"
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            #expect(storeFiles(path) == snapshot)
            return path
        }

        // the second load without faults, on a copy: the calls it makes and what the store answers after it
        let dry = try copy()
        let run = Faults.trial(.counting(under: dry)) { () throws(any Error) in
            try Store(path: dry).load(second, options: options)
        }
        _ = try run.result.get()
        let loaded = try answers(Store(path: dry))
        let loadedRows = try Store(path: dry).count(.all)
        #expect(loaded != before && loadedRows > rows)
        let calls = run.report.calls
        let writes = run.report.count(Faults.Operation.writes), opens = run.report.count(.open)
        let renamed = try #require(calls.firstIndex { $0.operation == .rename }, "the commit renames the manifest")
        #expect(run.report.count(.rename) == 1 && run.report.count(.mkdir) >= 1 && run.report.count(.truncate) == 1)
        // the flushes before the manifest's rename, and the one of the store's folder after it (by their ordinal among flushes)
        let flushes = calls.filter { $0.operation == .fsync }
        let early = flushes.indices.filter { calls.firstIndex(of: flushes[$0])! < renamed }.map { $0 + 1 }
        try #require(early.count == flushes.count - 1 && early.count >= 3, "\(calls.filter { $0.operation != .pwrite })")
        try #require(writes > 20 && opens > 10, "\(writes) writes, \(opens) opens")

        /// The second load on a copy of the first's store under the plan `plan(copy)`: it fails with
        /// `code` (or succeeds, for nil), and the store is then as it was (or as after the dry run).
        func attempt(_ what: String, errno code: Int32?, faults: ClosedRange<Int> = 1...1,
                     eitherSnapshot: Bool = false, _ plan: (String) -> Faults.Plan) throws {
            let path = try copy()
            let t = Faults.trial(plan(path)) { () throws(any Error) in try Store(path: path).load(second, options: options) }
            #expect(faults.contains(t.report.injected.count), "\(what): faulted \(t.report.injected)")
            let after = try Store(path: path)
            let extra = storeFiles(path).subtracting(snapshot).filter { f in
                // ids a kept transaction refers to, copied before a commit that retires their partition: kept
                guard f.hasPrefix("history/"), let g = HistoryReference.generation(ofHistoryFile: String(f.dropFirst(8)))
                else { return true }
                return !snapshot.contains("history/" + HistoryFile.name(generation: g))
            }
            guard let code else {
                #expect(throws: Never.self, "\(what)") { try t.result.get() }
                #expect(try answers(after) == loaded, "\(what)")
                #expect(try after.verify().rows == loadedRows, "\(what)")
                #expect(storeFiles(path) == storeFiles(dry), "\(what)")
                return
            }
            switch t.result {
            case .success:
                Issue.record("\(what): the load succeeded")
            case .failure(let error):
                let e = error as? QuakeError
                #expect(e?.kind == .io && e?.errno == code, "\(what): \(error)")
                let named = e?.path ?? ""
                #expect(named == path || named.hasPrefix(path + "/"), "\(what): \(error) names no path of the store")
                #expect("\(error)".hasPrefix(named + ": "), "\(what): \(error)")
            }
            let answered = try answers(after)
            let verified = try after.verify().rows
            if eitherSnapshot && answered == loaded {
                // the new manifest was current: its snapshot is whole, with the files the dry run left
                #expect(verified == loadedRows, "\(what)")
                #expect(storeFiles(path) == storeFiles(dry), "\(what)")
                return
            }
            #expect(answered == before, "\(what)")
            #expect(verified == rows, "\(what)")
            #expect(snapshot.subtracting(storeFiles(path)).isEmpty, "\(what): files of the snapshot are gone")
            #expect(extra.isEmpty, "\(what): left \(extra.sorted())")
        }

        // a full disk at the nth write, for a spread of n, and from the middle on
        let spread = Set([1, writes / 4, writes / 2, 3 * writes / 4, writes]).filter { $0 >= 1 }
        for n in spread.sorted() {
            try attempt("write \(n) of \(writes): ENOSPC", errno: ENOSPC) {
                Faults.Plan(under: $0, Faults.Operation.writes, .nth(n), .fail(ENOSPC))
            }
        }
        try attempt("writes \(writes / 2)... of \(writes): ENOSPC", errno: ENOSPC, faults: 1...writes) {
            Faults.Plan(under: $0, Faults.Operation.writes, .from(writes / 2), .fail(ENOSPC))
        }
        try attempt("write \(writes / 3) of \(writes) takes nothing", errno: ENOSPC) {
            Faults.Plan(under: $0, Faults.Operation.writes, .nth(writes / 3), .writeNothing)
        }
        try attempt("write \(writes / 2) of \(writes): EDQUOT", errno: EDQUOT) {
            Faults.Plan(under: $0, Faults.Operation.writes, .nth(writes / 2), .fail(EDQUOT))
        }
        // an I/O error at the nth write
        for n in Set([writes / 3, writes]).filter({ $0 >= 1 }).sorted() {
            try attempt("write \(n) of \(writes): EIO", errno: EIO) {
                Faults.Plan(under: $0, Faults.Operation.writes, .nth(n), .fail(EIO))
            }
        }
        // the nth file opened for writing, the scratch folder, the lock's truncation
        for n in Set([1, opens / 2, opens]).sorted() {
            try attempt("open \(n) of \(opens): ENOSPC", errno: ENOSPC) { Faults.Plan(under: $0, [.open], .nth(n), .fail(ENOSPC)) }
        }
        try attempt("mkdir 1: ENOSPC", errno: ENOSPC) { Faults.Plan(under: $0, [.mkdir], .nth(1), .fail(ENOSPC)) }
        try attempt("ftruncate 1: EIO", errno: EIO) { Faults.Plan(under: $0, [.truncate], .nth(1), .fail(EIO)) }
        // the flushes before the commit's rename: the first (an id copy a kept transaction gains, or
        // the file system's) and the last three (the file system's, the catalog's, the temporary manifest's)
        let full: [(Int, Int32)] = Set([1, early.count - 2, early.count - 1, early.count]).sorted()
            .map { (early[$0 - 1], ENOSPC) }
        let failing: [(Int, Int32)] = [(early[early.count - 3], EIO)]
        let names: [Int32: String] = [ENOSPC: "ENOSPC", EIO: "EIO"]
        for (k, code) in full + failing {
            try attempt("fsync \(k) of \(flushes.count): \(names[code]!)", errno: code) {
                Faults.Plan(under: $0, [.fsync], .nth(k), .fail(code))
            }
        }
        // the rename that commits: the old manifest stays current
        for code in [ENOSPC, EIO] {
            try attempt("rename: \(names[code]!)", errno: code) {
                Faults.Plan(under: $0, [.rename], .nth(1), .fail(code))
            }
        }
        // the flush of the store's folder after the rename: the new manifest is current by then, so
        // either snapshot may answer, whole
        try attempt("fsync \(flushes.count) (the folder, after the rename): EIO", errno: EIO, eitherSnapshot: true) {
            Faults.Plan(under: $0, [.fsync], .nth(flushes.count), .fail(EIO))
        }
        // every write short: the load commits what the dry run did
        try attempt("every write short", errno: nil, faults: 1...Int.max) {
            Faults.Plan(under: $0, Faults.Operation.writes, .every, .shortWrite(atMost: 4096))
        }
    }
}
