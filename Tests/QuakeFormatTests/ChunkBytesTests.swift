import Testing
@testable import QuakeFormat
import QuakeGenerator

/// The two handles every chunk read goes through: ``PackedRun`` against a bit-by-bit reference for
/// every width, and ``ChunkBytes`` loads and slices against bytes assembled by hand.
@Suite struct ChunkBytesTests {
    /// Value `row` of a run packed at `width` bits, read one bit at a time.
    static func naive(_ bytes: [UInt8], width: Int, row: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<width {
            let bit = row * width + i
            if (bytes[bit >> 3] >> UInt8(bit & 7)) & 1 == 1 { v |= 1 << UInt64(i) }
        }
        return v
    }

    /// `n` random values of `width` bits, some at the extremes.
    static func values(_ n: Int, width: Int, _ rng: inout SplitMix64) -> [UInt64] {
        let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) - 1
        return (0..<n).map { i in i % 17 == 3 ? mask : i % 13 == 5 ? 0 : rng.next() & mask }
    }

    /// `n` little-endian bytes of `bytes` from `at`, assembled by hand.
    static func assemble(_ bytes: [UInt8], at: Int, _ n: Int) -> UInt64 {
        (0..<n).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    @Test(arguments: 0...64)
    func packedRunMatchesBitByBit(width: Int) {
        var rng = SplitMix64(seed: UInt64(width) &+ 101)
        for n in [1, 63, 64, 65, 200] {
            let v = Self.values(n, width: width, &rng)
            var packed: [UInt8] = []
            // SAFETY: `$0` spans v's count values and does not escape the closure.
            v.withUnsafeBufferPointer { BitPacking.pack($0, width: width, into: &packed) }
            #expect(packed.count == BitPacking.bytes(n, width: width))
            let reference = rng.next()
            let lo = Int(rng.next() % UInt64(n)), hi = lo + Int(rng.next() % UInt64(n - lo + 1))
            var all = [UInt64](repeating: 0, count: n), part = [UInt64](repeating: 7, count: hi - lo)
            var single: [UInt64] = [], words: [Bool] = []
            // SAFETY: the run views `raw` only inside the closure; `all` has n slots and `part`
            // hi - lo, the rows each unpack writes.
            packed.withUnsafeBytes { raw in
                let run = PackedRun(ChunkBytes(raw), width: width)
                #expect(run.holds(n) && run.width == width)
                all.withUnsafeMutableBufferPointer { run.unpack(0..<n, reference: reference, into: $0.baseAddress!) }
                part.withUnsafeMutableBufferPointer { p in
                    if let b = p.baseAddress { run.unpack(lo..<hi, reference: reference, into: b) }
                }
                single = (0..<n).map { run.value(at: $0) }
                if width > 0 && width <= 56 {
                    words = (0..<n).map { run.word(atBit: $0 * width) & run.mask == v[$0] }
                }
            }
            for row in 0..<n {
                let want = Self.naive(packed, width: width, row: row)
                #expect(want == v[row], "width \(width): pack wrote row \(row) wrong")
                #expect(single[row] == want, "width \(width): value(at: \(row))")
                #expect(all[row] == reference &+ want, "width \(width): unpack row \(row)")
            }
            for (i, x) in part.enumerated() {
                let want = reference &+ Self.naive(packed, width: width, row: lo + i)
                #expect(x == want, "width \(width): rows \(lo)..<\(hi)")
            }
            #expect(words.allSatisfy { $0 }, "width \(width): word(atBit:)")
        }
    }

    @Test func loadsMatchBytesAssembledByHand() {
        var rng = SplitMix64(seed: 42)
        let bytes = (0..<37).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // SAFETY: the view lives only inside the closure.
        bytes.withUnsafeBytes { raw in
            let b = ChunkBytes(raw)
            #expect(b.count == 37 && !b.isEmpty && b.raw.baseAddress == raw.baseAddress)
            for at in 0..<b.count {
                #expect(b.byte(at: at) == bytes[at])
                if at + 2 <= b.count { #expect(UInt64(b.load(UInt16.self, at: at)) == Self.assemble(bytes, at: at, 2)) }
                if at + 4 <= b.count {
                    #expect(UInt64(b.load(UInt32.self, at: at)) == Self.assemble(bytes, at: at, 4))
                    #expect(b.load(Int32.self, at: at) == Int32(truncatingIfNeeded: Self.assemble(bytes, at: at, 4)))
                }
                if at + 8 <= b.count {
                    #expect(b.load(UInt64.self, at: at) == Self.assemble(bytes, at: at, 8))
                    #expect(b.load(Int64.self, at: at) == Int64(bitPattern: Self.assemble(bytes, at: at, 8)))
                }
            }
        }
    }

    @Test func slicesViewTheirRangeAndCheckIt() throws {
        let bytes = (0..<40).map { UInt8($0 * 3 & 0xFF) }
        // SAFETY: the views live only inside the closure.
        try bytes.withUnsafeBytes { raw in
            let b = ChunkBytes(raw)
            for (lo, hi) in [(0, 0), (0, 40), (5, 13), (39, 40), (40, 40), (12, 30)] {
                let s = try b.slice(lo..<hi)
                #expect(s.count == hi - lo && Array(s.raw) == Array(bytes[lo..<hi]))
                #expect(b.offset(of: s) == lo)
                let u = b.subrange(lo..<hi)
                #expect(u.count == s.count && Array(u.raw) == Array(s.raw))
                if hi - lo >= 4 { #expect(UInt64(s.load(UInt32.self, at: 0)) == Self.assemble(bytes, at: lo, 4)) }
                let rest = try b.slice(from: lo)
                #expect(rest.count == 40 - lo && b.offset(of: rest) == lo)
            }
            for bad in [-1..<3, 0..<41, 38..<45, 41..<41, -5..<(-1)] {
                #expect(throws: QuakeError.self, "\(bad)") { _ = try b.slice(bad) }
                do throws(QuakeError) {
                    _ = try b.slice(bad)
                    Issue.record("slice \(bad) of 40 bytes did not throw")
                } catch {
                    #expect(error.kind == .corrupt)
                }
            }
            #expect(throws: QuakeError.self) { _ = try b.slice(from: 41) }
            #expect(try b.slice(from: 40).isEmpty)
        }
    }

    @Test func readerTakesCheckedViews() throws {
        let bytes: [UInt8] = [1, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD, 9]
        // SAFETY: the reader and its views live only inside the closure.
        try bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            #expect(try r.u32() == 1)
            let four = try r.take(4)
            #expect(four.load(UInt32.self, at: 0) == 0xDDCC_BBAA && r.pos == 8)
            #expect(Array(try r.rest().raw) == [9])
            #expect(throws: QuakeError.self) { _ = try r.take(2) }
            #expect(r.pos == 8, "a failed take leaves the reader where it was")
            #expect(try r.take(1).byte(at: 0) == 9)
            #expect(try r.rest().isEmpty)
        }
    }

    @Test func emptyViewsReadNothing() throws {
        let empty = ChunkBytes.empty
        #expect(empty.isEmpty && empty.count == 0 && empty.raw.isEmpty)
        #expect(try empty.slice(0..<0).isEmpty)
        #expect(throws: QuakeError.self) { _ = try empty.slice(0..<1) }
        let run = PackedRun(empty, width: 0)
        var out = [UInt64](repeating: 1, count: 5)
        // SAFETY: out has 5 slots, the rows unpacked.
        out.withUnsafeMutableBufferPointer { run.unpack(0..<5, reference: 77, into: $0.baseAddress!) }
        #expect(out == [77, 77, 77, 77, 77] && run.value(at: 3) == 0 && run.holds(1_000))
    }
}
