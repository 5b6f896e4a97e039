import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

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

    func load(_ path: String, split: Bool, workers: Int = 4) throws -> (RowBatch, [Reject], LoadSummary) {
        let s = try Store.openOrCreate(path: TestSupport.tempDir() + "/store")
        let log = RejectLog()
        var o = LoadOptions()
        o.onReject = { log.add($0) }
        o.splitBytes = split ? 0 : Int.max
        o.parseWorkers = workers
        o.batchRows = 257
        let summary = try s.load([path], options: o)
        return (try TestSupport.allRows(s), log.all, summary)
    }

    @Test(arguments: [false, true])
    func piecesLoadExactlyWhatOneThreadLoads(quotedNewlines: Bool) throws {
        let d = TestSupport.tempDir()
        let path = d + "/feed.csv"
        TestSupport.write(SplitParseTests.feed(rows: 6000, quotedNewlines: quotedNewlines, seed: quotedNewlines ? 1 : 2), to: path)
        let (one, oneRejects, oneSummary) = try load(path, split: false)
        #expect(!oneRejects.isEmpty)
        for workers in [2, 3, 7] {
            let (many, rejects, summary) = try load(path, split: true, workers: workers)
            #expect(many == one, "\(workers) workers")
            #expect(rejects == oneRejects, "\(workers) workers")
            #expect(summary.rowsRead == oneSummary.rowsRead && summary.new == oneSummary.new)
        }
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
            let pipe = BatchPipe(capacity: 64)
            sp.start(pipe, batchRows: 100)
            var ended = 0
            drain: while ended < sp.pieceCount {
                switch pipe.take() {
                case .end: ended += 1
                case .failed(let e): Issue.record("piece failed: \(e)"); break drain
                case .batch: continue
                }
            }
            if !sp.cutsWereRight { wrong += 1 }
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
