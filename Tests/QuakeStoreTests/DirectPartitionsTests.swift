import QuakeSupport
import Foundation
import Testing
import Synchronization
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// New partitions written straight from the parsed batches must give exactly the store that
/// spilling every row gives: the same partition files byte for byte, the same history and the
/// same counts, for bulk inserts, repeats within a load, moves into new partitions, upserts
/// onto stored partitions, files that fail half-way, unordered input and split parses.
@Suite struct DirectPartitionsTests {
    /// What one load step left: the summary, the partition files' names and bytes, every row,
    /// the transaction's changes, and how many partition files existed when the spill pass ended.
    struct Step: Equatable {
        var counts: [Int]
        var files: [String: [UInt8]]
        var rows: RowBatch
        var changes: [HistoryChange]
        var committed: Bool
    }

    final class Seen: Sendable {
        private let n = Mutex<[Int]>([])
        func add(_ k: Int) { n.locked { $0.append(k) } }
        var all: [Int] { n.locked { $0 } }
    }

    /// Loads `steps` into a fresh store, one load per step; returns each step's result and the
    /// partition files present when each load's spill pass ended.
    /// `spilled`, when given, gets per step the partitions with rows in the spill when the
    /// spill pass ended.
    static func run(_ steps: [[String]], direct: Bool, split: Bool = false, rowsLimit: Int? = nil,
                    residentLimit: Int? = nil, partitioning: Partitioning = .month,
                    spilled: Seen? = nil) throws -> ([Step], [Int]) {
        let dir = TestSupport.tempDir("direct-\(direct)-\(split)-\(UUID().uuidString)")
        let s = try Store.openOrCreate(path: dir + "/store", partitioning: partitioning)
        let early = Seen()
        var out: [Step] = []
        for paths in steps {
            var o = LoadOptions()
            o.writesNewPartitions = direct
            o.batchRows = 1000
            o.splitBytes = split ? 0 : Int.max
            o.parseWorkers = 2
            if let rowsLimit { o.newPartitionRows = rowsLimit }
            // the spills on disk, where `spilled` counts them
            if spilled != nil { o.spillMemory = 0 }
            // the test process runs many suites at once, and its size says nothing about this load
            o.newPartitionResidentLimit = residentLimit ?? Int.max
            let partitionsDir = dir + "/store/partitions"
            let stored = FileIO.list(partitionsDir).count
            o.onPhase = { phase in
                guard phase == "spilled" else { return }
                early.add(FileIO.list(partitionsDir).count - stored)
                let tmp = dir + "/store/tmp"
                spilled?.add(FileIO.list(tmp).filter {
                    $0.hasPrefix("part-") && FileIO.size(tmp + "/" + $0) > 0
                }.count)
            }
            let before = Set(s.manifest.partitions.map(\.file))
            let summary = try s.load(paths, options: o)
            var files: [String: [UInt8]] = [:]
            for e in s.manifest.partitions where !before.contains(e.file) {
                files[e.file] = try FileIO.readFile(dir + "/store/partitions/" + e.file, limit: Int.max)
            }
            var changes: [HistoryChange] = []
            if summary.committed {
                try s.forEachChange(generation: s.manifest.generation) { changes.append($0) }
            }
            out.append(Step(counts: [summary.rowsRead, summary.new, summary.updated, summary.unchanged,
                                     summary.duplicates, summary.rejected, summary.filesRejected],
                            files: files, rows: try TestSupport.allRows(s), changes: changes,
                            committed: summary.committed))
            #expect(try s.verify().rows == s.manifest.rows)
        }
        return (out, early.all)
    }

    /// Both ways must agree step by step; returns the partition files the direct load had
    /// written by the end of each spill pass.
    @discardableResult
    static func compare(_ steps: [[String]], split: Bool = false, rowsLimit: Int? = nil,
                        residentLimit: Int? = nil, partitioning: Partitioning = .month) throws -> [Int] {
        let (spilled, none) = try run(steps, direct: false, split: split, partitioning: partitioning)
        let (direct, early) = try run(steps, direct: true, split: split, rowsLimit: rowsLimit,
                                      residentLimit: residentLimit, partitioning: partitioning)
        #expect(none.allSatisfy { $0 == 0 }, "the spilling load writes partitions only in the merge")
        #expect(spilled.count == direct.count)
        for (k, (a, b)) in zip(spilled, direct).enumerated() {
            #expect(a.counts == b.counts, "step \(k)")
            #expect(a.files.keys.sorted() == b.files.keys.sorted(), "step \(k)")
            #expect(a.files == b.files, "step \(k): partition bytes")
            #expect(a.rows == b.rows, "step \(k): rows")
            #expect(a.changes == b.changes, "step \(k): history")
            #expect(a.committed == b.committed, "step \(k)")
        }
        return early
    }

    static func generate(_ tag: String, rows: Int, perFile: Int, overlap: Double, seed: UInt64,
                         compression: OutputSink.Compression = .none,
                         format: FeedWriter.Format = .csv) throws -> String {
        let dir = TestSupport.tempDir(tag + "-\(UUID().uuidString)")
        var o = GeneratorOptions(rows: rows)
        o.firstYear = 2021
        o.lastYear = 2022
        o.rowsPerFile = perFile
        o.overlap = overlap
        o.seed = seed
        o.compression = compression
        o.format = format
        _ = try FeedGenerator.generate(o, into: dir)
        return dir
    }

    @Test func bulkInsertIsWrittenDuringTheSpillPass() throws {
        let feed = try DirectPartitionsTests.generate("bulk", rows: 9000, perFile: 9000, overlap: 0, seed: 5)
        let early = try DirectPartitionsTests.compare([[feed]])
        #expect(early.count == 1 && early[0] >= 20, "the 24 months are written before the merge: \(early)")
    }

    /// A split parse of time-ordered input whose batches span several months: each piece's
    /// finished months are written, not the month another piece is in, nor the month at the cut
    /// (the first piece ends in it), so no row goes through the spill. It did: the least recently
    /// fed month was written, often the other piece's, and 51 of 312 months of the 10 M-row
    /// benchmark file were merged from the spill.
    @Test func aSplitParseOfOrderedInputSpillsNothing() throws {
        let feed = try DirectPartitionsTests.generate("ordered", rows: 9000, perFile: 9000, overlap: 0, seed: 6)
        let csv = try #require(FileIO.list(feed).first { $0.hasSuffix(".csv") })
        let spilled = Seen()
        let (steps, early) = try DirectPartitionsTests.run([[feed + "/" + csv]], direct: true, split: true,
                                                           spilled: spilled)
        #expect(spilled.all == [0], "months with rows in the spill: \(spilled.all)")
        #expect(early == [24], "every month is written before the merge: \(early)")
        let (reference, _) = try DirectPartitionsTests.run([[feed + "/" + csv]], direct: false)
        #expect(steps == reference)
    }

    @Test func repeatsMovesAndUpsertsMergeTheStagedPartitions() throws {
        // overlapping snapshots repeat events within the load; then upserts onto a stored
        // store move events across partitions, into months it does not hold yet
        let (feed, up, more) = try TestSupport.upsertInputs("repeats", seed: 9, picks: 400, country: "Chile")
        try DirectPartitionsTests.compare([[feed], [up, more], [feed, up]])
    }

    @Test func aFileThatFailsHalfWayLeavesNothingOfItsPartitions() throws {
        let plain = try DirectPartitionsTests.generate("fail", rows: 6000, perFile: 6000, overlap: 0, seed: 21)
        let packed = try DirectPartitionsTests.generate("failgz", rows: 6000, perFile: 6000, overlap: 0, seed: 21,
                                                        compression: .gz)
        let csv = try #require(FileIO.list(plain).first { $0.hasSuffix(".csv") })
        let gzName = try #require(FileIO.list(packed).first { $0.hasSuffix(".gz") })
        let gz = try FileIO.readFile(packed + "/" + gzName, limit: Int.max)
        // a gzip stream cut short: its first months are parsed (and written) before it fails
        let dir = TestSupport.tempDir("fail-\(UUID().uuidString)")
        TestSupport.write(Array(gz.prefix(gz.count * 2 / 3)), to: dir + "/cut.csv.gz")
        let other = try DirectPartitionsTests.generate("other", rows: 2000, perFile: 2000, overlap: 0, seed: 22)
        try DirectPartitionsTests.compare([[dir + "/cut.csv.gz", other], [plain + "/" + csv, dir + "/cut.csv.gz"]])
    }

    /// An archive cut into files by rows: the month each file ends in stays open into the next
    /// file, which starts in it, so no row goes through the spill. It did: each such month was
    /// written when its first file ended, the next file's rows for it were spilled, and the
    /// merge wrote it again (9 months of a 100 M-row load of ten files).
    @Test func monthsStraddlingFilesAreWrittenOnce() throws {
        let feed = try DirectPartitionsTests.generate("cut", rows: 9000, perFile: 2000, overlap: 0, seed: 8)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted().map { feed + "/" + $0 }
        #expect(files.count == 5)
        let spilled = Seen()
        let (steps, early) = try DirectPartitionsTests.run([files], direct: true, spilled: spilled)
        #expect(spilled.all == [0], "months with rows in the spill: \(spilled.all)")
        #expect(early == [24], "every month is written once, before the merge: \(early)")
        let (reference, _) = try DirectPartitionsTests.run([files], direct: false)
        #expect(steps == reference)
    }

    /// A file that fails after the one before it ended inside a partition: the partition keeps
    /// the earlier file's rows, whether it was still open when the failure came (years), handed
    /// to the writer before it (months: the rows are read back from the file written), or
    /// collected past the row limit (handed to the writer, not the spill, for the same reason).
    @Test(arguments: [(Partitioning.year, nil), (.year, 7000), (.month, nil)] as [(Partitioning, Int?)])
    func aFailedFileKeepsTheRowsCarriedIntoIt(partitioning: Partitioning, rowsLimit: Int?) throws {
        // three GeoJSON files of 6,000 features: 2021 straddles the first two, 2022 the last two
        let feed = try DirectPartitionsTests.generate("carry", rows: 18000, perFile: 6000, overlap: 0, seed: 23,
                                                      format: .geojson)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".geojson") }.sorted().map { feed + "/" + $0 }
        #expect(files.count == 3)
        let bytes = try FileIO.readFile(files[1], limit: Int.max)
        let dir = TestSupport.tempDir("carry-\(UUID().uuidString)")
        // the second file cut short, early and late: it fails (truncated GeoJSON) after batches
        // of its first rows were routed
        for (k, fraction) in [0.45, 0.9].enumerated() {
            let cut = dir + "/cut-\(k).geojson"
            TestSupport.write(Array(bytes.prefix(Int(Double(bytes.count) * fraction))), to: cut)
            try DirectPartitionsTests.compare([[files[0], cut, files[2]], [files[0], cut], [cut, files[1]]],
                                              rowsLimit: rowsLimit, partitioning: partitioning)
        }
    }

    @Test(arguments: [false, true])
    func unorderedInputAndSplitParses(split: Bool) throws {
        // rows shuffled: partitions are written, then fed again, many times over
        let feed = try DirectPartitionsTests.generate("shuffle", rows: 7000, perFile: 7000, overlap: 0, seed: 31)
        let csv = try #require(FileIO.list(feed).first { $0.hasSuffix(".csv") })
        var lines = try String(contentsOfFile: feed + "/" + csv, encoding: .utf8).split(separator: "\n")
        let header = lines.removeFirst()
        var rng = SplitMix64(seed: 7)
        for i in stride(from: lines.count - 1, to: 0, by: -1) { lines.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        let path = TestSupport.tempDir("shuffled-\(UUID().uuidString)") + "/shuffled.csv"
        TestSupport.write(([header] + lines).joined(separator: "\n") + "\n", to: path)
        try DirectPartitionsTests.compare([[path], [feed]], split: split)
        try DirectPartitionsTests.compare([[feed]], split: split)
    }

    @Test func partitionsTooLargeToCollectGoToTheSpill() throws {
        // year partitions of about 4,500 rows against a limit of 1,000 rows: every year overflows
        // to the spill; with 6,000 the years are collected, two or three at a time
        let feed = try DirectPartitionsTests.generate("years", rows: 9000, perFile: 9000, overlap: 0, seed: 51)
        let small = try DirectPartitionsTests.compare([[feed]], rowsLimit: 1000, partitioning: .year)
        #expect(small == [0], "no year is written before the merge: \(small)")
        let large = try DirectPartitionsTests.compare([[feed]], rowsLimit: 6000, partitioning: .year)
        #expect(large == [2], "both years are written before the merge: \(large)")
        let upsert = try DirectPartitionsTests.generate("years2", rows: 3000, perFile: 1000, overlap: 0.2, seed: 52)
        try DirectPartitionsTests.compare([[feed], [upsert, feed]], rowsLimit: 700, partitioning: .year)
    }

    /// The process's resident size is read (it was not: `/proc/self/statm` reports a size of 0,
    /// and was read as empty, so the cap below never held), and agrees with `VmRSS` read between
    /// two readings of it (other suites allocate and free in this process meanwhile).
    @Test func residentSizeIsRead() throws {
        func vmRSS() throws -> Int {
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
        }
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 20, alignment: 4096)
        defer { block.deallocate() }
        for i in stride(from: 0, to: block.count, by: 4096) { block[i] = 1 }
        let before = try #require(MallocPolicy.residentBytes())
        let v = try vmRSS()
        let after = try #require(MallocPolicy.residentBytes())
        #expect(min(before, after) >= 64 << 20, "64 MB touched, resident \(before), \(after)")
        #expect(v >= min(before, after) - (16 << 20) && v <= max(before, after) + (16 << 20),
                "statm \(before), \(after) against VmRSS \(v)")
    }

    /// Beyond the resident cap no new partition is collected: with a cap of one byte every row
    /// goes through the spill, and the store is the same.
    @Test func beyondTheResidentCapNewPartitionsSpill() throws {
        let feed = try DirectPartitionsTests.generate("cap", rows: 4000, perFile: 4000, overlap: 0, seed: 53)
        let capped = try DirectPartitionsTests.compare([[feed]], residentLimit: 1)
        #expect(capped == [0], "no partition is written before the merge: \(capped)")
        let open = try DirectPartitionsTests.compare([[feed]])
        #expect(open.allSatisfy { $0 > 0 }, "partitions are written before the merge: \(open)")
    }

    /// Distinct ids (as in a bulk insert, where the order is total): the same rows as a full sort.
    @Test func tiesOrderedInPlaceEqualAFullSort() throws {
        var rng = SplitMix64(seed: 41)
        for trial in 0..<300 {
            var b = RowBatch()
            let n = Int(rng.next() % 60)
            var t: Int64 = 0
            let sortedTimes = trial % 3 != 0
            for row in 0..<n {
                b.beginRow()
                t += sortedTimes ? Int64(rng.next() % 3) : Int64(rng.next() % 7) - 3
                b.setInt(.time, t)
                b.setInt(.mag, rng.next() % 5 == 0 ? RowBatch.null : Int64(rng.next() % 900))
                let pad = String(repeating: "x", count: Int(rng.next() % 4))
                let id = "ev" + pad + String(rng.next() % 1000) + "-\(row)"
                b.setText(.id, Array(id.utf8))
                if rng.next() % 2 == 0 { b.setText(.place, Array("\(rng.next() % 100) km N of Somewhere".utf8)) }
                b.endRow(present: rng.next(), seq: Int64(bitPattern: rng.next()))
            }
            var full = b
            full.permute(full.timeIdOrder())
            var fast = b
            fast.sortByTimeId()
            #expect(fast == full, "trial \(trial), \(n) rows")
        }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func realFeeds() throws {
        let d = try #require(TestSupport.usgsDirectory).path
        let names = FileIO.list(d).filter { !$0.hasPrefix("README") }.sorted()
        // all at once (overlapping files repeat events), then in two halves
        let half = names.count / 2
        try DirectPartitionsTests.compare([names.map { d + "/" + $0 }])
        try DirectPartitionsTests.compare([names[..<half].map { d + "/" + $0 }, names[half...].map { d + "/" + $0 }])
    }
}
