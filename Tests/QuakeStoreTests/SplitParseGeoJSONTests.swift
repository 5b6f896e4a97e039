import QuakeSupport
import Foundation
import Testing
import Synchronization
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// A GeoJSON file parsed in pieces on several threads must load exactly what one thread loads:
/// the same rows, rejects (with the same feature numbers), warnings and errors, wherever the
/// cuts fall.
@Suite struct SplitParseGeoJSONTests {
    struct Shape {
        /// Every third feature holds a nested `{"type":"Feature"` object after a comma, where a
        /// cut may fall.
        var nested = false
        /// Integer times in seconds: all of them, or (`secondsFrom`) from that feature on.
        var seconds = false
        var secondsFrom: Int?
        /// Pretty separators (a newline and spaces between features).
        var pretty = false
    }

    /// A feed with bad features sprinkled in: a bad magnitude, malformed JSON, a missing id, a
    /// repeated id, escaped text, string times.
    static func feed(features: Int, shape: Shape, seed: UInt64) -> String {
        var rng = SplitMix64(seed: seed)
        var s = #"{"type":"FeatureCollection","metadata":{"title":"t","count":\#(features)},"features":["#
        var t: Int64 = 1_500_000_000_000
        for i in 0..<features {
            t += Int64(rng.next() % 90_000)
            let inSeconds = shape.seconds || (shape.secondsFrom.map { i >= $0 } ?? false)
            let time = i % 11 == 4 ? "\"\(Timestamp.string(t))\"" : "\(inSeconds ? t / 1000 : t)"
            let updated = inSeconds ? "null" : "\(t + 60_000)"
            let mag = i % 97 == 5 ? "\"x\"" : String(format: "%.2f", Double(rng.next() % 700) / 100)
            let id = "t\(i % 1000 == 7 ? i - 1 : i)"
            let place = i % 5 == 0 ? #"\"\#(i)\" km N of S\u00e3o Paulo, Brazil"#
                : "\(rng.next() % 90) km SSW of Volcano, Hawaii"
            let nested = shape.nested && i % 3 == 0 ? #","products":[0, {"type":"Feature","x":{"a":[1,2]}}]"# : ""
            let coordinates = i % 131 == 9 ? "[-155.2,19.4,3}" : "[-155.2,19.4,\(rng.next() % 30)]"
            if i > 0 { s += shape.pretty ? ",\n  " : ",\n" }
            s += #"{"type":"Feature","properties":{"mag":\#(mag),"place":"\#(place)","time":\#(time),"#
            s += #""updated":\#(updated),"net":"hv","status":"reviewed"\#(nested),"type":"earthquake"},"#
            s += #""geometry":{"type":"Point","coordinates":\#(coordinates)}"#
            s += i % 211 == 13 ? "}" : #","id":"\#(id)"}"#
        }
        return s + #"],"bbox":[-180,-90,0,180,90,700]}"#
    }

    struct Outcome: Equatable {
        var rows: RowBatch
        var rejects: [Reject]
        var messages: [String]
        var errors: [String?]
        var read: Int
    }

    func load(_ path: String, split: Bool, workers: Int = 2, chunkBytes: Int = SplitParse.chunkBytes,
              strict: Bool = false) throws -> Outcome {
        let s = try Store.openOrCreate(path: TestSupport.tempDir() + "/store")
        let log = RejectLog()
        let messages = MessageLog()
        var o = SplitParseTests.options(split: split, workers: workers, chunkBytes: chunkBytes, strict: strict)
        o.onReject = { log.add($0) }
        o.onMessage = { messages.add($0) }
        let summary = try s.load([path], options: o)
        return Outcome(rows: try TestSupport.allRows(s), rejects: log.all, messages: messages.all,
                       errors: summary.perFile.map(\.error), read: summary.rowsRead)
    }

    /// Drains a split parse of `path`; returns whether its cuts were right.
    func cutsWereRight(_ path: String, workers: Int, chunkBytes: Int) throws -> Bool {
        let r = try FeedReader(path: path, seqBase: 0) { _ in }
        let sp = try #require(SplitParse(path: path, reader: r, seqBase: 0, workers: workers, minimumBytes: 0,
                                         chunkBytes: chunkBytes))
        sp.start(batchRows: 100)
        defer { sp.close() }
        return SplitParseTests.drain(sp) && sp.cutsWereRight
    }

    static let configurations = [(2, SplitParse.chunkBytes), (3, SplitParse.chunkBytes), (2, 20_000), (3, 7_000),
                                 (5, 3_000)]

    @Test(arguments: [false, true])
    func piecesLoadExactlyWhatOneThreadLoads(nested: Bool) throws {
        let path = TestSupport.tempDir() + "/feed.geojson"
        TestSupport.write(Self.feed(features: 3000, shape: Shape(nested: nested, pretty: nested), seed: nested ? 5 : 6),
                          to: path)
        let one = try load(path, split: false)
        #expect(one.rejects.count > 40 && one.rows.count > 2800)
        #expect(one.rejects.contains { $0.reason.contains("malformed JSON") })
        for (workers, chunk) in Self.configurations {
            let many = try load(path, split: true, workers: workers, chunkBytes: chunk)
            #expect(many == one, "\(workers) workers, pieces of \(chunk) bytes")
        }
        // the split was taken, not only fallen back from: without nested features every cut is
        // right; with them, some cut lands inside one and is caught
        let right = try Self.configurations.map { try cutsWereRight(path, workers: $0.0, chunkBytes: $0.1) }
        if nested { #expect(right.contains(false)) } else { #expect(right.allSatisfy { $0 }) }
    }

    /// The real USGS feeds, in pieces of 64 and 300 KB, load exactly as on one thread, and the
    /// pieces' cuts are right (compact or pretty, a feature starts `{"type":"Feature"` after a comma).
    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func realFeedsInPiecesLoadAsOnOneThread() throws {
        let files = TestSupport.usgsFiles.filter { $0.hasSuffix(".geojson") }
        #expect(files.count >= 3)
        for name in files {
            let path = try #require(TestSupport.usgs(name))
            let one = try load(path, split: false)
            #expect(one.rows.count > 0, "\(name)")
            for (workers, chunk) in [(2, 64 << 10), (3, 300 << 10)] {
                #expect(try load(path, split: true, workers: workers, chunkBytes: chunk) == one, "\(name)")
                if FileIO.size(path) > 2 * chunk {
                    #expect(try cutsWereRight(path, workers: workers, chunkBytes: chunk), "\(name)")
                }
            }
        }
    }

    /// Integer times in seconds warn once; a unit that changes in a later piece, and a strict
    /// load that meets it, end as the one-thread parse ends.
    @Test func timeUnitsWarnAndFailAsOneThreadDoes() throws {
        let d = TestSupport.tempDir()
        for (name, shape) in [("seconds", Shape(seconds: true)), ("mixed", Shape(secondsFrom: 1500))] {
            let path = d + "/\(name).geojson"
            TestSupport.write(Self.feed(features: 3000, shape: shape, seed: 7), to: path)
            for strict in [false, true] {
                let one = try? load(path, split: false, strict: strict)
                // every feed holds bad features, so a strict load fails, split or not
                #expect((one == nil) == strict, "\(name), strict \(strict)")
                for (workers, chunk) in Self.configurations {
                    let many = try? load(path, split: true, workers: workers, chunkBytes: chunk, strict: strict)
                    #expect(many == one, "\(name), strict \(strict): \(workers) workers, pieces of \(chunk) bytes")
                }
                if !strict {
                    let one = try #require(one)
                    let warnings = one.messages.filter { $0.contains("epoch seconds") }
                    #expect(warnings.count == (name == "seconds" ? 1 : 0), "\(one.messages)")
                    let rejected = one.rejects.contains { $0.reason.contains("looks like epoch seconds") }
                    #expect(name == "seconds" || rejected)
                }
            }
            let right = try cutsWereRight(path, workers: 2, chunkBytes: 20_000)
            #expect(right == (name == "seconds"))
        }
    }

    /// A file cut short, or broken between features, fails with the one-thread parse's message.
    @Test func brokenFilesFailAsOneThreadDoes() throws {
        let d = TestSupport.tempDir()
        let text = Self.feed(features: 2000, shape: Shape(), seed: 8)
        let cut = String(text.utf8.prefix(text.utf8.count - 500))!
        let broken = text.replacingOccurrences(of: "},\n{\"type\":\"Feature\",\"properties\":{\"mag\":1.5",
                                               with: "}\n{\"type\":\"Feature\",\"properties\":{\"mag\":1.5")
        #expect(broken != text)
        for (name, body) in [("cut", cut), ("broken", broken)] {
            let path = d + "/\(name).geojson"
            TestSupport.write(body, to: path)
            let one = try load(path, split: false)
            #expect(one.errors.count == 1 && one.errors[0] != nil && one.rows.count == 0)
            for (workers, chunk) in Self.configurations {
                #expect(try load(path, split: true, workers: workers, chunkBytes: chunk) == one, "\(name)")
            }
        }
    }
}

final class MessageLog: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ m: String) { items.locked { $0.append(m) } }
    var all: [String] { items.locked { $0 } }
}
