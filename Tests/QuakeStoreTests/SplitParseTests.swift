import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// A file parsed in pieces on several threads must load exactly what one thread loads: the same
/// rows, the same rejects with the same line numbers, whatever the cuts hit.
@Suite struct SplitParseTests {
    /// A CSV with bad rows sprinkled in and, when `quotedNewlines`, places holding newlines.
    static func feed(rows: Int, quotedNewlines: Bool, seed: UInt64) -> String {
        var rng = SplitMix64(seed: seed)
        var s = TestSupport.header22 + "\n"
        var t: Int64 = 1_500_000_000_000
        for i in 0..<rows {
            t += Int64(rng.next() % 90_000)
            let place = quotedNewlines && i % 3 == 0 ? "\"\(i) km N of A,\nB \"\"x\"\"\"" : "\"\(rng.next() % 90) km SSW of Volcano, Hawaii\""
            let mag = i % 97 == 5 ? "NaN" : String(format: "%.2f", Double(rng.next() % 700) / 100)
            let id = "t\(i % 1000 == 7 ? i - 1 : i)"   // a few repeated ids: the later row wins
            s += "\(Timestamp.string(t)),19.4,-155.2,\(rng.next() % 30),\(mag),md,,,,,hv,\(id),\(Timestamp.string(t + 60_000)),"
            s += "\(place),earthquake,,,,,reviewed,hv,hv\n"
        }
        return s
    }

    func load(_ path: String, split: Bool, workers: Int = 4, chunkBytes: Int = SplitParse.chunkBytes)
        throws -> (RowBatch, [Reject], LoadSummary) {
        let s = try Store.openOrCreate(path: TestSupport.tempDir() + "/store")
        let log = RejectLog()
        var o = SplitParseTests.options(split: split, workers: workers, chunkBytes: chunkBytes)
        o.onReject = { log.add($0) }
        let summary = try s.load([path], options: o)
        return (try TestSupport.allRows(s), log.all, summary)
    }

    /// Options that split every file (or none) into pieces of `chunkBytes` for `workers`, with
    /// small batches.
    static func options(split: Bool, workers: Int, chunkBytes: Int, strict: Bool = false) -> LoadOptions {
        var o = LoadOptions(strict: strict)
        o.splitBytes = split ? 0 : Int.max
        o.parseWorkers = workers
        o.splitChunkBytes = chunkBytes
        o.batchRows = 257
        return o
    }

    /// Takes every batch of a started split parse; false (and an issue) when a piece failed.
    static func drain(_ sp: SplitParse) -> Bool {
        var ended = 0
        while ended < sp.pieceCount {
            switch sp.take() {
            case .end: ended += 1
            case .failed(let e):
                Issue.record("piece failed: \(e)")
                return false
            case .batch: continue
            }
        }
        return true
    }

    @Test(arguments: [false, true])
    func piecesLoadExactlyWhatOneThreadLoads(quotedNewlines: Bool) throws {
        let d = TestSupport.tempDir()
        let path = d + "/feed.csv"
        TestSupport.write(SplitParseTests.feed(rows: 6000, quotedNewlines: quotedNewlines, seed: quotedNewlines ? 1 : 2), to: path)
        let (one, oneRejects, oneSummary) = try load(path, split: false)
        #expect(!oneRejects.isEmpty)
        // one piece per worker, and many small pieces taken in turn (some cut inside quotes)
        for (workers, chunk) in [(2, SplitParse.chunkBytes), (3, SplitParse.chunkBytes), (7, SplitParse.chunkBytes),
                                 (2, 20_000), (3, 7_000)] {
            let (many, rejects, summary) = try load(path, split: true, workers: workers, chunkBytes: chunk)
            #expect(many == one, "\(workers) workers, pieces of \(chunk) bytes")
            #expect(rejects == oneRejects, "\(workers) workers, pieces of \(chunk) bytes")
            #expect(summary.rowsRead == oneSummary.rowsRead && summary.new == oneSummary.new)
        }
    }

    /// Many small pieces on two workers come back in file order: every row's load order (its
    /// piece's offset plus its row in the piece) grows from batch to batch, and the pieces
    /// cover the file.
    @Test func piecesComeBackInFileOrder() throws {
        let d = TestSupport.tempDir()
        let path = d + "/feed.csv"
        TestSupport.write(SplitParseTests.feed(rows: 4000, quotedNewlines: false, seed: 4), to: path)
        let size = FileIO.size(path)
        let r = try FeedReader(path: path, seqBase: 0) { _ in }
        let sp = try #require(SplitParse(path: path, reader: r, seqBase: 0, workers: 2, minimumBytes: 0,
                                         chunkBytes: 10_000))
        #expect(sp.pieceCount >= size / 10_000 - 1 && sp.workers == 2)
        sp.start(batchRows: 150)
        defer { sp.close() }
        var ended = 0, rows = 0, last = Int64.min, ordered = true
        drain: while ended < sp.pieceCount {
            switch sp.take() {
            case .end: ended += 1
            case .failed(let e): Issue.record("piece failed: \(e)"); break drain
            case .batch(let b, _):
                for q in b.seq {
                    if q <= last { ordered = false }
                    last = q
                }
                rows += b.count
            }
        }
        #expect(ordered && sp.cutsWereRight)
        #expect(rows == 4000 - sp.rejects.count)
    }

    @Test func cutsLandAfterNewlinesAndCoverTheFile() throws {
        let d = TestSupport.tempDir()
        let path = d + "/feed.csv"
        TestSupport.write(SplitParseTests.feed(rows: 3000, quotedNewlines: true, seed: 3), to: path)
        let reader = try FeedReader(path: path, seqBase: 0) { _ in }
        let split = try #require(SplitParse(path: path, reader: reader, seqBase: 0, workers: 5, minimumBytes: 0))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(split.pieces.first?.range.lowerBound == TestSupport.header22.utf8.count + 1)
        #expect(split.pieces.last?.range.upperBound == bytes.count)
        for (a, b) in zip(split.pieces, split.pieces.dropFirst()) {
            #expect(a.range.upperBound == b.range.lowerBound)
            #expect(bytes[b.range.lowerBound - 1] == UInt8(ascii: "\n"))
        }
        // with a place holding a newline in every third row, some cut falls inside quotes and is caught
        var wrong = 0
        for workers in 2...9 {
            let r = try FeedReader(path: path, seqBase: 0) { _ in }
            let sp = try #require(SplitParse(path: path, reader: r, seqBase: 0, workers: workers, minimumBytes: 0))
            sp.start(batchRows: 100)
            defer { sp.close() }
            if SplitParseTests.drain(sp) && !sp.cutsWereRight { wrong += 1 }
        }
        #expect(wrong > 0)
        // compressed input is never split
        let gz = d + "/feed.csv.gz"
        let enc = try #require(GzipStream(level: 1))
        TestSupport.write(enc.compress(bytes) + enc.compress([], final: true), to: gz)
        let zreader = try FeedReader(path: gz, seqBase: 0) { _ in }
        #expect(SplitParse(path: gz, reader: zreader, seqBase: 0, workers: 5, minimumBytes: 0) == nil)
    }
}
