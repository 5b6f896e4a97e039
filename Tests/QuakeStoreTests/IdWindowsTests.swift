import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The ids a query keeps between ordering ties and building its page: a stretch serves any
/// window inside it, as the same ids the window decodes to, and nothing past the budget is kept.
@Suite struct IdWindowsTests {
    static func arena(_ ids: [String]) -> ByteArena {
        var a = ByteArena()
        for s in ids { a.append(Array(s.utf8)) }
        return a
    }

    @Test func slicesEqualTheRowsTheyCover() {
        var rng = SplitMix64(seed: 9)
        let ids = (0..<300).map { i in i % 7 == 0 ? "" : "us\(rng.next() % 1_000_000)" }
        let a = Self.arena(ids)
        for _ in 0..<200 {
            let x = Int(rng.next() % 301), y = Int(rng.next() % 301)
            let r = min(x, y)..<max(x, y)
            let s = a.slice(r)
            #expect(s.count == r.count)
            #expect((0..<s.count).map { s.string($0) ?? "" } == Array(ids[r]))
        }
    }

    @Test func aKeptStretchServesOnlyWindowsInsideIt() {
        let w = IdWindows()
        let ids = (0..<100).map { "ak\($0)" }
        let key = IdWindows.Key(partition: 3, block: 1, rows: 4096..<4196)
        w.put(key, rows: 4096..<4196, ids: Self.arena(ids))
        let inner = w.ids(key, rows: 4100..<4110)
        #expect(inner.map { a in (0..<a.count).map { a.string($0) ?? "" } } == Array(ids[4..<14]))
        #expect(w.ids(key, rows: 4096..<4196)?.count == 100)
        #expect(w.ids(key, rows: 4090..<4100) == nil)
        #expect(w.ids(key, rows: 4190..<4200) == nil)
        #expect(w.ids(IdWindows.Key(partition: 4, block: 1, rows: 4096..<4100), rows: 4096..<4100) == nil)
        // a stretch that does not hold as many ids as rows is not kept
        let other = IdWindows.Key(partition: 3, block: 2, rows: 0..<10)
        w.put(other, rows: 0..<10, ids: Self.arena(["x"]))
        #expect(w.ids(other, rows: 0..<1) == nil)
    }

    @Test func nothingPastTheBudgetIsKept() {
        let w = IdWindows()
        let n = GranuleIndex.granuleRows
        var kept = 0
        for g in 0..<(IdWindows.budget / n + 4) {
            let rows = (g * n)..<((g + 1) * n)
            let key = IdWindows.Key(partition: 0, block: 0, rows: rows)
            w.put(key, rows: rows, ids: Self.arena(Array(repeating: "id", count: n)))
            if w.ids(key, rows: rows) != nil { kept += n }
        }
        #expect(kept == IdWindows.budget / n * n)
    }
}
