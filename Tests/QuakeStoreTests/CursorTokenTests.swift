import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The cursor token written by hand reads back to the same cursor, and holds the same JSON as
/// `JSONEncoder` gives the cursor with sorted keys (the reference), for numbers, text with
/// quotes, backslashes, control characters and non-ASCII, and nulls.
@Suite struct CursorTokenTests {
    static func json(_ token: String) -> Data? {
        var s = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    @Test func handWrittenTokensEqualTheEncodersAndReadBack() throws {
        var rng = SplitMix64(seed: 21)
        let texts = ["", "Pāhala, Hawaii", "say \"hi\"", "back\\slash", "tab\there\nnew\u{1}line", "ok/+=?", "日本"]
        let numbers: [Double] = [0, -0.0, 7, 4.5, -1.25, 1e-5, 1.7e300, 1_700_000_000_000, 0.1 + 0.2]
        let columns: [Column] = [.time, .mag, .place, .depth, .id]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for _ in 0..<500 {
            let n = 1 + Int(rng.next() % 3)
            var sort: [SortKey] = [], values: [SortValue] = []
            for _ in 0..<n {
                sort.append(SortKey(columns[Int(rng.next() % UInt64(columns.count))], ascending: rng.next() % 2 == 0))
                switch rng.next() % 3 {
                case 0: values.append(.number(numbers[Int(rng.next() % UInt64(numbers.count))]))
                case 1: values.append(.text(texts[Int(rng.next() % UInt64(texts.count))]))
                default: values.append(.null)
                }
            }
            let c = Cursor(sort: sort, values: values, id: texts[Int(rng.next() % UInt64(texts.count))] + "x")
            let token = c.token
            #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
            #expect(Cursor(token: token) == c, "\(c)")
            let mine = try #require(Self.json(token))
            let theirs = try encoder.encode(c)
            let a = try JSONSerialization.jsonObject(with: mine) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: theirs) as? NSDictionary
            #expect(a != nil && a == b, "\(String(decoding: mine, as: UTF8.self)) vs \(String(decoding: theirs, as: UTF8.self))")
        }
    }

    @Test func aNumberJSONCannotHoldGivesATokenThatDoesNotReadBack() {
        for d in [Double.infinity, -.infinity, .nan] {
            let c = Cursor(sort: [SortKey(.mag)], values: [.number(d)], id: "x")
            #expect(Cursor(token: c.token) == nil)
        }
    }
}
