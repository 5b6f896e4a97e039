import QuakeSupport
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Testing
@testable import QuakeInterchange
import Synchronization
@testable import QuakeFormat
@testable import QuakeStore
import QuakeTestSupport
import QuakeGenerator

/// Faults planned into the I/O layer's system calls (``FileIO/Faults``), on each path the format's
/// writers take to the disk: whole files (partition, id index, catalog, manifest), output sinks,
/// spill and history staging files, transaction files, the writer lock, directories, renames and
/// flushes. A full disk, an I/O error or an exceeded quota is an `.io` error carrying the errno and
/// naming the file, with no partial file left where a whole one was being written; a short write
/// is retried until every byte is written.
@Suite(.serialized) struct FileIOFaultTests {
    typealias Faults = FileIO.Faults

    /// The errors a write path meets on a disk in trouble.
    static let errors: [Int32] = [ENOSPC, EIO, EDQUOT]

    /// Runs `body` under `plan` and checks that it threw an `.io` error with `code` naming `path`
    /// (and `call` in its detail, when given), and that the plan faulted `faults` calls.
    @discardableResult
    func expectFailure(_ plan: Faults.Plan, errno code: Int32, path: String, call: String? = nil, faults: Int = 1,
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () throws -> Void) -> Faults.Report {
        let t = Faults.trial(plan) { () throws(any Error) in try body() }
        #expect(t.report.injected.count == faults, "faulted: \(t.report.injected)", sourceLocation: sourceLocation)
        switch t.result {
        case .success:
            Issue.record("no error under \(plan.operations) \(plan.effect)", sourceLocation: sourceLocation)
        case .failure(let error):
            guard let e = error as? QuakeError else {
                Issue.record("not a QuakeError: \(error)", sourceLocation: sourceLocation)
                break
            }
            #expect(e.kind == .io, "\(e)", sourceLocation: sourceLocation)
            #expect(e.errno == code, "\(e)", sourceLocation: sourceLocation)
            #expect(e.path == path, "\(e)", sourceLocation: sourceLocation)
            #expect("\(e)".hasPrefix(path + ": "), "\(e)", sourceLocation: sourceLocation)
            if let call { #expect(e.detail.contains(call), "\(e)", sourceLocation: sourceLocation) }
        }
        return t.report
    }

    /// `count` bytes that zstd cannot shrink much (a spill frame of them stays about as long).
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return UInt8(truncatingIfNeeded: x >> 24)
        }
    }

    /// The write calls `FileIO.writeAll` makes for `length` bytes when every call writes at most
    /// `most` and fewer than asked: (calls, of them shortened). A call asked for one byte is left whole.
    static func shortenedCalls(_ length: Int, atMost most: Int) -> (calls: Int, short: Int) {
        var left = length, calls = 0, short = 0
        while left > 0 {
            calls += 1
            if left > 1 { short += 1; left -= min(most, left - 1) } else { left -= 1 }
        }
        return (calls, short)
    }

    /// A plan matches its directory and what lies under it, and nothing else: not a sibling
    /// whose name starts with the directory's, not another folder; disarmed, it matches nothing.
    @Test func aPlanMatchesOnlyPathsUnderItsDirectory() throws {
        let dir = TestScratch.folder("faults-scope")
        let other = TestScratch.folder("faults-elsewhere")
        let bytes = Self.noise(1000, seed: 1)
        let plan = Faults.Plan(under: dir + "/", Set(Faults.Operation.allCases), .every, .fail(ENOSPC))
        #expect(plan.directory == dir)
        #expect(plan.matches(dir) && plan.matches(dir + "/a/b") && !plan.matches(dir + "x/a") && !plan.matches(other))
        let t = Faults.trial(plan) { () throws(QuakeError) in
            try FileIO.makeDirectory(dir + "x")
            try FileIO.writeDurably(dir + "x/f", bytes)
            try FileIO.writeDurably(other + "/f", bytes)
            try FileIO.rename(other + "/f", other + "/g")
            try FileIO.writeDurably(dir + "/f", bytes)
        }
        #expect(throws: QuakeError.self) { try t.result.get() }
        #expect(t.report.calls.map(\.path) == [dir + "/f"], "\(t.report.calls)")
        #expect(t.report.injected.map(\.operation) == [.open])
        #expect(try FileIO.readFile(dir + "x/f") == bytes)
        #expect(try FileIO.readFile(other + "/g") == bytes)
        #expect(!FileIO.exists(dir + "/f"))
        // with no plan on it, the same write goes through
        try FileIO.writeDurably(dir + "/f", bytes)
        #expect(try FileIO.readFile(dir + "/f") == bytes)
    }

    /// Plans armed from several threads at once run one after another, never together.
    @Test func armedPlansAreSerialised() {
        final class Gauge: Sendable {
            private let state = Mutex((now: 0, most: 0, runs: 0, armed: 0))
            func enter(armed a: Bool) {
                state.locked { s in
                    s.now += 1
                    s.runs += 1
                    if a { s.armed += 1 }
                    s.most = max(s.most, s.now)
                }
            }
            func leave() { state.locked { $0.now -= 1 } }
            var runs: Int { state.locked { $0.runs } }
            var armed: Int { state.locked { $0.armed } }
            var most: Int { state.locked { $0.most } }
        }
        let gauge = Gauge()
        let dir = TestScratch.folder("faults-serial")
        DispatchQueue.concurrentPerform(iterations: 4) { k in
            Faults.inject(.counting(under: dir + "/\(k)")) {
                gauge.enter(armed: Faults.isArmed)
                FileIO.sleep(milliseconds: 20)
                gauge.leave()
            }
        }
        #expect(gauge.runs == 4)
        #expect(gauge.armed == 4)
        #expect(gauge.most == 1)
    }

    /// Whole-file writes (partition, id index, catalog and manifest files): a failed open, write or
    /// flush names the file, carries the errno, and leaves no file under the name.
    @Test func wholeFileWritesFailNamingTheFileAndLeaveNone() throws {
        let dir = TestScratch.folder("faults-whole")
        let bytes = Self.noise(100_000, seed: 2)
        for code in Self.errors {
            let cases: [(durable: Bool, op: Faults.Operation, call: String?)] = [
                (false, .open, nil), (false, .write, nil), (true, .open, nil), (true, .write, nil), (true, .fsync, "fsync"),
            ]
            for (durable, op, call) in cases {
                let path = dir + "/f-\(code)-\(op)-\(durable)"
                // a file already there is replaced, or gone: never left half written
                try FileIO.writeFile(path, Array("old".utf8))
                let plan = Faults.Plan(under: dir, [op], .nth(1), .fail(code))
                expectFailure(plan, errno: code, path: path, call: call) {
                    if durable { try FileIO.writeDurably(path, bytes) } else { try FileIO.writeFile(path, bytes) }
                }
                if op == .open {
                    #expect(try FileIO.readFile(path) == Array("old".utf8), "\(path): opened anyway")
                } else {
                    #expect(!FileIO.exists(path), "\(path): a partial file is left")
                }
            }
        }
        // a write that takes nothing is a full disk
        let path = dir + "/nothing"
        expectFailure(Faults.Plan(under: dir, Faults.Operation.writes, .nth(1), .writeNothing), errno: ENOSPC,
                      path: path) { try FileIO.writeDurably(path, bytes) }
        #expect(!FileIO.exists(path))
    }

    /// Short writes: every write call writes fewer bytes than asked, and the loop goes on until the
    /// file holds every byte; an interrupted call (EINTR) is made again.
    @Test func shortWritesStillWriteEveryByte() throws {
        let dir = TestScratch.folder("faults-short")
        let bytes = Self.noise(10_000, seed: 3)
        let t = Faults.trial(Faults.Plan(under: dir, Faults.Operation.writes, .every, .shortWrite(atMost: 1000))) {
            () throws(QuakeError) in try FileIO.writeDurably(dir + "/f", bytes)
        }
        #expect(throws: Never.self) { try t.result.get() }
        #expect(try FileIO.readFile(dir + "/f") == bytes)
        // 9 writes of 1000, one of 999 (fewer than the 1000 asked), then the last byte whole
        #expect(t.report.count(.write) == 11)
        #expect(t.report.injected.count == 10)
        let model = Self.shortenedCalls(10_000, atMost: 1000)
        #expect(model.calls == 11 && model.short == 10)

        // pwrite at an offset: the offsets advance with the bytes written
        let fd = try FileIO.create(dir + "/p")
        let p = Faults.trial(Faults.Plan(under: dir, [.pwrite], .every, .shortWrite(atMost: 512))) {
            () throws(QuakeError) in try FileIO.pwriteAll(fd, Array(bytes[0..<3000]), at: 100, path: dir + "/p")
        }
        try FileIO.syncAndClose(fd, path: dir + "/p")
        #expect(throws: Never.self) { try p.result.get() }
        #expect(try FileIO.readFile(dir + "/p") == [UInt8](repeating: 0, count: 100) + bytes[0..<3000])
        #expect(p.report.count(.pwrite) == Self.shortenedCalls(3000, atMost: 512).calls)
        #expect(p.report.injected.count == Self.shortenedCalls(3000, atMost: 512).short)

        // EINTR on the first write and the first flush: each is made again and succeeds
        let e = Faults.trial(Faults.Plan(under: dir, Faults.Operation.writes.union([.fsync]), .nth(1), .fail(EINTR))) {
            () throws(QuakeError) in try FileIO.writeDurably(dir + "/i", bytes)
        }
        #expect(throws: Never.self) { try e.result.get() }
        #expect(try FileIO.readFile(dir + "/i") == bytes)
        #expect(e.report.calls.map(\.operation) == [.write, .write, .fsync])
        #expect(e.report.injected.count == 1)
    }

    /// An output sink (`--out`): a failed open, write, flush or rename is the sink's error naming
    /// the path given, the temporary file is removed, and a file already at the path keeps its
    /// bytes; short writes still write all of the output.
    @Test func outputSinksFailNamingThePathAndKeepTheOldFile() throws {
        let dir = TestScratch.folder("faults-sink")
        // a sink writes when it holds 1 MiB, and what is left when it finishes: two writes
        let line = "2024-01-01T00:00:00Z,35.1,-117.2,quake\n"
        let first = String(repeating: line, count: 30_000), second = String(repeating: line, count: 1000)
        #expect(first.utf8.count >= 1 << 20 && second.utf8.count < 1 << 20)
        func output(_ path: String) throws(QuakeError) {
            let sink = try OutputSink(path: path)
            sink.write(first)
            sink.write(second)
            try sink.finish()
        }
        for code in Self.errors {
            let cases: [(op: Faults.Operation, call: String?)] = [(.open, nil), (.write, nil), (.fsync, "fsync"),
                                                                    (.rename, "rename from")]
            for (op, call) in cases {
                let path = dir + "/out-\(code)-\(op).csv"
                try FileIO.writeDurably(path, Array("old\n".utf8))
                expectFailure(Faults.Plan(under: dir, [op], .nth(1), .fail(code)), errno: code, path: path, call: call) {
                    try output(path)
                }
                #expect(try FileIO.readFile(path) == Array("old\n".utf8), "\(path)")
                #expect(FileIO.list(dir).allSatisfy { !$0.contains(".tmp-") }, "\(FileIO.list(dir))")
            }
            // the second of two writes fails: finish reports it
            let path = dir + "/second-\(code).csv"
            expectFailure(Faults.Plan(under: dir, [.write], .nth(2), .fail(code)), errno: code, path: path) {
                try output(path)
            }
            #expect(!FileIO.exists(path))
        }
        #expect(FileIO.list(dir).allSatisfy { !$0.contains(".tmp-") }, "\(FileIO.list(dir))")
        let path = dir + "/short.csv"
        let t = Faults.trial(Faults.Plan(under: dir, [.write], .every, .shortWrite(atMost: 64 << 10))) {
            () throws(QuakeError) in try output(path)
        }
        #expect(throws: Never.self) { try t.result.get() }
        #expect(try FileIO.readFile(path) == Array((first + second).utf8))
        let model = [first, second].map { Self.shortenedCalls($0.utf8.count, atMost: 64 << 10) }
        #expect(t.report.count(.write) == model[0].calls + model[1].calls)
        #expect(t.report.injected.count == model[0].short + model[1].short)
    }

    /// Rows of a partition, sorted by time and id.
    static func rows(_ n: Int) -> RowBatch {
        var b = RowBatch()
        let start = Timestamp.parse("2024-01-01")!
        for i in 0..<n {
            b.beginRow()
            b.setInt(.time, start + Int64(i) * 60_000)
            b.setInt(.updated, start + Int64(i) * 60_000 + 1)
            b.setInt(.latitude, Int64(35_000 + i % 1000))
            b.setInt(.longitude, Int64(-117_000 - i % 700))
            b.setInt(.mag, Int64(100 + i % 500))
            b.setText(.id, Array(String(format: "ev%06d", i).utf8))
            b.setText(.place, Array("\(i % 50) km N of Somewhere".utf8))
            b.endRow(present: Column.time.bit | Column.updated.bit | Column.latitude.bit | Column.longitude.bit
                        | Column.mag.bit | Column.id.bit | Column.place.bit, seq: Int64(i))
        }
        return b
    }

    /// Partition files: a failed write names the file and leaves none; short writes write the file
    /// byte for byte as encoded, and it reads back whole.
    @Test func partitionFilesFailNamingTheFileOrWriteEveryByte() throws {
        let store = TestScratch.folder("faults-partition")
        try FileIO.makeDirectory(store + "/partitions")
        let batch = Self.rows(3000)
        for code in Self.errors {
            for op in [Faults.Operation.open, .write] {
                let file = "2024-01.g\(code)\(op).qkp"
                expectFailure(Faults.Plan(under: store, [op], .nth(1), .fail(code)), errno: code,
                              path: store + "/partitions/" + file) {
                    _ = try PartitionWriter.write(batch, key: "2024-01", file: file, storePath: store, blockRows: 256)
                }
                #expect(!FileIO.exists(store + "/partitions/" + file))
            }
        }
        let t = Faults.trial(Faults.Plan(under: store, [.write], .every, .shortWrite(atMost: 4096))) {
            () throws(QuakeError) in
            try PartitionWriter.write(batch, key: "2024-01", file: "2024-01.g1.qkp", storePath: store, blockRows: 256)
        }
        let entry = try t.result.get()
        let encoded = PartitionFile.encode(batch, blockRows: 256).bytes
        #expect(try FileIO.readFile(store + "/partitions/2024-01.g1.qkp") == encoded)
        #expect(t.report.injected.count == Self.shortenedCalls(encoded.count, atMost: 4096).short)
        let read = try PartitionReader(storePath: store, entry: entry).readAll()
        #expect(read.count == batch.count)
        #expect(read.ints[Column.time.rawValue] == batch.ints[Column.time.rawValue])
        #expect(read.text[Column.id.rawValue] == batch.text[Column.id.rawValue])
    }

    /// The manifest's commit: a failed write or flush of `manifest.qkm.tmp` names it and leaves
    /// it gone, a failed rename names `manifest.qkm`; the old manifest stays current each time.
    /// Short writes commit the new one.
    @Test func manifestCommitsFailNamingTheFileAndKeepTheOldManifest() throws {
        let path = TestScratch.folder("faults-manifest") + "/store"
        _ = try Store.openOrCreate(path: path, partitioning: .month)
        let manifest = Store.manifestPath(path)
        let before = try Manifest.read(path: manifest)
        var next = before
        next.generation += 1
        next.setCursor("feed", "2024-06-01")
        for code in Self.errors {
            let cases: [(op: Faults.Operation, named: String, call: String?)] = [
                (.open, manifest + ".tmp", nil), (.write, manifest + ".tmp", nil), (.fsync, manifest + ".tmp", "fsync"),
                (.rename, manifest, "rename from"),
            ]
            for (op, named, call) in cases {
                expectFailure(Faults.Plan(under: path, [op], .nth(1), .fail(code)), errno: code, path: named,
                              call: call) {
                    _ = try Store.commit(next, storePath: path)
                }
                #expect(try Manifest.read(path: manifest) == before)
                if op != .rename {
                    #expect(!FileIO.exists(manifest + ".tmp"))
                } else {
                    // Store.commit leaves the temporary manifest when its rename fails (a later commit
                    // replaces it); ReliabilityTests.diskFullFailsCleanlyAndKeepsTheSnapshot tracks it
                    FileIO.remove(manifest + ".tmp")
                }
            }
        }
        let t = Faults.trial(Faults.Plan(under: path, [.write], .every, .shortWrite(atMost: 16))) {
            () throws(QuakeError) in try Store.commit(next, storePath: path)
        }
        #expect(throws: Never.self) { try t.result.get() }
        #expect(t.report.injected.count > 1)
        let read = try Manifest.read(path: manifest)
        #expect(read.generation == before.generation + 1)
        #expect(read.cursors == next.cursors)
        #expect(!FileIO.exists(manifest + ".tmp"))
    }

    /// Spill files: a failed create (at the first append) and a failed append name the file and add
    /// nothing (the next append goes where it would have), a failed truncation names it and keeps
    /// the size; short writes append whole frames.
    @Test func spillFilesFailNamingTheFileAndKeepWhatWasAppended() throws {
        let dir = TestScratch.folder("faults-spill")
        let payloads = (0..<4).map { Self.noise(20_000 + $0, seed: 10 + UInt64($0)) }
        for code in Self.errors {
            let path = dir + "/part-\(code).spill"
            expectFailure(Faults.Plan(under: dir, [.open], .nth(1), .fail(code)), errno: code, path: path) {
                try SpillFile(path: path, memoryLimit: 0).append(payloads[3])
            }
            let spill = SpillFile(path: path, memoryLimit: 0)
            try spill.append(payloads[0])
            let mark = spill.size
            expectFailure(Faults.Plan(under: dir, [.pwrite], .nth(1), .fail(code)), errno: code, path: path) {
                try spill.append(payloads[1])
            }
            #expect(spill.size == mark)
            try spill.append(payloads[2])
            expectFailure(Faults.Plan(under: dir, [.truncate], .nth(1), .fail(code)), errno: code, path: path,
                          call: "ftruncate") {
                try spill.truncate(to: mark)
            }
            #expect(spill.size > mark)
            var read: [[UInt8]] = []
            try spill.forEach { read.append(Array($0)) }
            #expect(read == [payloads[0], payloads[2]])
        }
        let spill = SpillFile(path: dir + "/short.spill", memoryLimit: 0)
        var sizes: [Int] = []
        let t = Faults.trial(Faults.Plan(under: dir, [.pwrite], .every, .shortWrite(atMost: 1000))) {
            () throws(QuakeError) in
            for p in payloads {
                let at = spill.size
                try spill.append(p)
                sizes.append(spill.size - at)
            }
        }
        #expect(throws: Never.self) { try t.result.get() }
        var read: [[UInt8]] = []
        try spill.forEach { read.append(Array($0)) }
        #expect(read == payloads)
        let expected = sizes.map { Self.shortenedCalls($0, atMost: 1000) }
        #expect(t.report.count(.pwrite) == expected.reduce(0) { $0 + $1.calls })
        #expect(t.report.injected.count == expected.reduce(0) { $0 + $1.short })
    }

    /// A spill held in memory reads back what a spill on disk does, truncations included; past its
    /// limit it moves to its file (a failed create there names the file and keeps the frames in
    /// memory), and goes on there.
    @Test func spillsInMemoryMoveToTheirFileAtTheLimit() throws {
        let dir = TestScratch.folder("faults-spill-memory")
        var generator = SplitMix64(seed: 77)
        for trial in 0..<24 {
            let limit = [0, 5_000, 40_000, 1 << 20][trial % 4]
            // a budget shared by two spills, smaller than their limits in some trials
            let budget = SpillFile.Budget(limit: [1 << 30, 30_000, 60_000][trial % 3])
            let onDisk = SpillFile(path: dir + "/disk-\(trial).spill", memoryLimit: 0)
            let held = SpillFile(path: dir + "/held-\(trial).spill", memoryLimit: limit, budget: budget)
            let other = SpillFile(path: dir + "/other-\(trial).spill", memoryLimit: limit, budget: budget)
            var expected: [[UInt8]] = []
            var marks: [(size: Int, count: Int)] = []
            var largest = 0
            for step in 0..<12 {
                let payload = Self.noise(Int(generator.next() % 6_000) + 1, seed: UInt64(trial * 100 + step))
                if generator.next() % 4 == 0, !marks.isEmpty {
                    let mark = marks[Int(generator.next() % UInt64(marks.count))]
                    try onDisk.truncate(to: mark.size)
                    try held.truncate(to: mark.size)
                    expected.removeSubrange(mark.count...)
                    marks.removeAll { $0.size > mark.size }
                }
                marks.append((held.size, expected.count))
                try onDisk.append(payload)
                try held.append(payload)
                try other.append(payload)
                expected.append(payload)
                largest = max(largest, held.size)
                #expect(held.size == onDisk.size)
                if largest > limit { #expect(!held.inMemory, "trial \(trial) step \(step)") }
                if largest + other.size <= min(limit, budget.limit) { #expect(held.inMemory) }
                #expect(FileIO.exists(held.path) == !held.inMemory)
            }
            var read: [[UInt8]] = []
            try held.forEach { read.append(Array($0)) }
            #expect(read == expected, "trial \(trial)")
        }
        let path = dir + "/moves.spill"
        let spill = SpillFile(path: path, memoryLimit: 30_000, budget: SpillFile.Budget(limit: 1 << 30))
        let payloads = (0..<3).map { Self.noise(20_000, seed: 40 + UInt64($0)) }
        try spill.append(payloads[0])
        #expect(spill.inMemory && !FileIO.exists(path))
        expectFailure(Faults.Plan(under: dir, [.open], .nth(1), .fail(ENOSPC)), errno: ENOSPC, path: path) {
            try spill.append(payloads[1])
        }
        #expect(spill.inMemory)
        try spill.append(payloads[2])
        #expect(!spill.inMemory && FileIO.exists(path))
        var read: [[UInt8]] = []
        try spill.forEach { read.append(Array($0)) }
        #expect(read == [payloads[0], payloads[2]])
    }

    /// A history transaction: a failed staging append names the staging file and stages nothing;
    /// a failed write of the transaction names `history/tx.gN.qkh`; short writes write a file
    /// whose header and sections read back whole.
    @Test func historyFilesFailNamingTheFileOrReadBackWhole() throws {
        let store = TestScratch.folder("faults-history")
        var changes = ChangeSet()
        for i in 0..<500 {
            changes.inserted.append(Array(String(format: "ev%06d", i).utf8))
            changes.touch(Timestamp.parse("2024-01-01")! + Int64(i) * 60_000)
        }
        let encoded = changes.encoded(key: "2024-01")
        for code in Self.errors {
            let stagePath = store + "/history-\(code).stage"
            let staging = try HistoryStaging(path: stagePath)
            expectFailure(Faults.Plan(under: store, [.pwrite], .nth(1), .fail(code)), errno: code, path: stagePath) {
                try staging.append(ordinal: 0, encoded)
            }
            #expect(staging.count == 0)
            try staging.append(ordinal: 0, encoded)
            #expect(staging.count == 1)
            for op in [Faults.Operation.mkdir, .open, .pwrite] {
                let g = Int(code) * 10 + (op == .mkdir ? 1 : op == .open ? 2 : 3)
                expectFailure(Faults.Plan(under: store, [op], .nth(1), .fail(code)), errno: code,
                              path: op == .mkdir ? store + "/history" : HistoryFile.path(store: store, generation: g)) {
                    _ = try HistoryFile.write(store: store, generation: g, committed: 0, previous: 0, files: ["f.csv"],
                                              staged: staging)
                }
            }
        }
        let staging = try HistoryStaging(path: store + "/short.stage")
        let t = Faults.trial(Faults.Plan(under: store, Faults.Operation.writes, .every, .shortWrite(atMost: 100))) {
            () throws(QuakeError) in
            try staging.append(ordinal: 0, encoded)
            return try HistoryFile.write(store: store, generation: 1, committed: 0, previous: 0, files: ["f.csv"],
                                         staged: staging)
        }
        let size = try t.result.get()
        #expect(t.report.injected.count > 2)
        #expect(FileIO.size(HistoryFile.path(store: store, generation: 1)) == size)
        let tx = try HistoryFile.read(path: HistoryFile.path(store: store, generation: 1))
        #expect(tx.sections.count == 1 && tx.inserted == 500 && tx.files == ["f.csv"])
        #expect(try tx.changes(0).inserted == changes.inserted)
    }

    /// The writer lock: a failed open, truncation or pid write names `LOCK`, and the lock is
    /// released, so the next writer of this process takes it at once.
    @Test func storeLockFailuresNameTheLockAndReleaseIt() throws {
        let store = TestScratch.folder("faults-lock")
        for code in Self.errors {
            let cases: [(op: Faults.Operation, call: String?)] = [(.open, nil), (.truncate, "ftruncate"), (.pwrite, nil)]
            for (op, call) in cases {
                expectFailure(Faults.Plan(under: store, [op], .nth(1), .fail(code)), errno: code, path: store + "/LOCK",
                              call: call) {
                    _ = try StoreLock(storePath: store)
                }
                // a holder left behind would make this wait: `cancelled` turns the wait into an error
                let lock = try StoreLock(storePath: store, cancelled: { true })
                withExtendedLifetime(lock) {}
            }
        }
    }

    /// Directories, renames, flushes and removals: each failure names its path; a rename that
    /// fails leaves the old name; a removal that fails leaves the file, for a later collection.
    @Test func directoriesRenamesAndFlushesFailNamingThePath() throws {
        let dir = TestScratch.folder("faults-dirs")
        for code in Self.errors {
            let sub = dir + "/sub-\(code)/deeper"
            // mkdir of `deeper` finds no parent, the parent is made, and the second mkdir of `deeper` fails
            expectFailure(Faults.Plan(under: dir, [.mkdir], .nth(3), .fail(code)), errno: code, path: sub) {
                try FileIO.makeDirectory(sub)
            }
            #expect(FileIO.isDirectory(dir + "/sub-\(code)") && !FileIO.exists(sub))
            try FileIO.writeFile(dir + "/a-\(code)", [1, 2, 3])
            expectFailure(Faults.Plan(under: dir, [.rename], .nth(1), .fail(code)), errno: code, path: dir + "/b-\(code)",
                          call: "rename from " + dir + "/a-\(code)") {
                try FileIO.rename(dir + "/a-\(code)", dir + "/b-\(code)")
            }
            #expect(FileIO.exists(dir + "/a-\(code)") && !FileIO.exists(dir + "/b-\(code)"))
            expectFailure(Faults.Plan(under: dir, [.fsync], .nth(1), .fail(code)), errno: code, path: dir, call: "fsync") {
                try FileIO.fsyncDirectory(dir)
            }
            let r = expectFailure(Faults.Plan(under: dir, [.fsync], .nth(1), .fail(code)), errno: code, path: dir,
                                  call: "sync") {
                try FileIO.syncFilesystem(dir)
            }
            #expect(r.calls.map(\.operation) == [.fsync])
            _ = Faults.trial(Faults.Plan(under: dir, [.unlink], .every, .fail(code))) { FileIO.remove(dir + "/a-\(code)") }
            #expect(FileIO.exists(dir + "/a-\(code)"))
            FileIO.remove(dir + "/a-\(code)")
            #expect(!FileIO.exists(dir + "/a-\(code)"))
        }
    }
}
