import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// `oneOf` on a category column, on its packed codes (`DictionaryCodec.select`): against decoding
/// the chunk and comparing the strings, on every code width a dictionary takes, and on stores
/// against the naive reference.
@Suite struct CategorySelectTests {
    /// A column of `n` values drawn from `distinct` names (about a tenth null), in runs as
    /// category columns have them.
    static func column(_ n: Int, distinct: Int, _ rng: inout SplitMix64) -> ByteArena {
        var a = ByteArena()
        var i = 0
        while i < n {
            let run = 1 + Int(rng.next() % 6)
            let v = Int(rng.next() % UInt64(distinct + 1))
            for _ in 0..<Swift.min(run, n - i) {
                if v == distinct { a.appendNull() } else { a.append(Array("n\(v)".utf8)) }
                i += 1
            }
        }
        return a
    }

    /// Wanted sets: one name, a few, names absent from the chunk, and none.
    static func wanted(_ distinct: Int, _ rng: inout SplitMix64) -> [Set<[UInt8]>] {
        func name(_ k: Int) -> [UInt8] { Array("n\(k)".utf8) }
        var sets: [Set<[UInt8]>] = [[], [Array("absent".utf8)], [name(0)], [name(distinct - 1)]]
        for _ in 0..<6 {
            let k = 1 + Int(rng.next() % 4)
            sets.append(Set((0..<k).map { _ in name(Int(rng.next() % UInt64(distinct))) }))
        }
        sets.append(Set((0..<distinct).map(name)))
        return sets
    }

    @Test(arguments: [1, 2, 3, 40, 300, 5000])
    func packedCodesSelectWhatTheDecodedStringsMatch(distinct: Int) throws {
        var rng = SplitMix64(seed: UInt64(distinct) &* 7919)
        let n = 9000
        let a = Self.column(n, distinct: distinct, &rng)
        var chunk: [UInt8] = []
        _ = DictionaryCodec.encode(a, rows: 0..<n, into: &chunk)
        for values in Self.wanted(distinct, &rng) {
            try chunk.withStoreBytes { (p) throws(QuakeError) in
                for r in CodecSamples.ranges(n, &rng) {
                    var got: [UInt32] = []
                    try DictionaryCodec.select(p, count: n, rows: r, oneOf: values, into: &got)
                    let want = r.filter { !a.isNull($0) && values.contains(Array(a.bytes[a.range($0)])) }
                    #expect(got == want.map { UInt32($0) }, "\(distinct) names, rows \(r), \(values.count) wanted")
                }
                let among = (0..<n).filter { _ in rng.next() % 5 == 0 }.map { UInt32($0) }
                var got: [UInt32] = []
                try DictionaryCodec.select(p, count: n, among: among, oneOf: values, into: &got)
                let want = among.filter { !a.isNull(Int($0)) && values.contains(Array(a.bytes[a.range(Int($0))])) }
                #expect(got == want)
            }
        }
    }

    /// A row past the chunk, and a code past the dictionary, are errors, never rows.
    @Test func damagedCodesAndRowsOutsideTheChunkAreErrors() throws {
        var a = ByteArena()
        for i in 0..<100 { a.append(Array("v\(i % 2)".utf8)) }
        var chunk: [UInt8] = []
        _ = DictionaryCodec.encode(a, rows: 0..<100, into: &chunk)
        // two entries, so codes take 2 bits: all ones makes every code 3, past the dictionary
        let headerEnd = chunk.count - BitPacking.bytes(100, width: 2)
        #expect(chunk[headerEnd - 1] == 2)
        var damaged = chunk
        for i in headerEnd..<damaged.count { damaged[i] = 0xFF }
        let values: Set<[UInt8]> = [Array("v1".utf8)]
        #expect(throws: QuakeError.self) {
            try damaged.withStoreBytes { (p) throws(QuakeError) in
                var out: [UInt32] = []
                try DictionaryCodec.select(p, count: 100, rows: 0..<50, oneOf: values, into: &out)
            }
        }
        #expect(throws: QuakeError.self) {
            try chunk.withStoreBytes { (p) throws(QuakeError) in
                var out: [UInt32] = []
                try DictionaryCodec.select(p, count: 100, among: [3, 100], oneOf: values, into: &out)
            }
        }
        #expect(throws: QuakeError.self) {
            try chunk.withStoreBytes { (p) throws(QuakeError) in
                var out: [UInt32] = []
                try DictionaryCodec.select(p, count: 100, rows: 0..<101, oneOf: values, into: &out)
            }
        }
    }

    /// Network terms with magnitude floors and boxes, in either order, count and rank as the
    /// reference does on the generated store and the real feeds.
    static let filters: [Filter] = [
        .and([.oneOf(.net, ["ci"]), .numberRange(.mag, lower: .init(3), upper: nil)]),
        .and([.numberRange(.mag, lower: .init(0.5), upper: nil), .oneOf(.net, ["hv", "ak", "zz"])]),
        .and([.oneOf(.net, ["us"]), .box(minLatitude: 30, maxLatitude: 65, minLongitude: -170, maxLongitude: -110)]),
        .and([.oneOf(.magType, ["ml", "md"]), .oneOf(.net, ["nc"]), .numberRange(.depth, lower: nil, upper: .init(5))]),
        .or([.oneOf(.net, ["uw"]), .and([.oneOf(.net, ["pr"]), .numberRange(.mag, lower: .init(2), upper: nil)])]),
        .not(.oneOf(.net, ["ak", "ci", "nc"])),
    ]

    @Test func networkTermsMatchTheReference() throws {
        try Self.check(Fixtures.generated)
        try Self.check(Fixtures.independent)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func networkTermsMatchTheReferenceOnRealFeeds() throws {
        try Self.check(try #require(Fixtures.real, "real feeds present but not loaded"))
    }

    static func check(_ f: Fixtures.Loaded) throws {
        for filter in filters {
            let want = try f.quakes.filter { try Naive.matches(filter, $0) }.count
            #expect(try f.store.count(filter) == want, "\(filter)")
            let spec = QuerySpec(filter: filter, sort: [SortKey(.mag, ascending: false)], limit: 25)
            #expect(try f.store.query(spec, columns: [.id]).ids == (try Naive.query(f.quakes, spec)).map(\.id))
        }
        // the kernels' order does not change a count: each term alone, and the pair, both ways
        let net = Filter.oneOf(.net, ["ci"]), mag = Filter.numberRange(.mag, lower: .init(2), upper: nil)
        #expect(try f.store.count(.and([net, mag])) == (try f.store.count(.and([mag, net]))))
    }
}
