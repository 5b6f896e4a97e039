import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The resolve pass's id codes, grouped by hash, against one ``SliceInterner`` over the records.
@Suite struct IdCodesTests {
    /// `n` ids drawn from `distinct` values, some empty, with long shared prefixes.
    static func ids(_ n: Int, distinct: Int, seed: UInt64) -> ByteArena {
        var rng = SplitMix64(seed: seed)
        var a = ByteArena()
        for _ in 0..<n {
            let k = rng.next() % UInt64(distinct)
            a.append(k == 0 ? [] : Array("us7000\(k)".utf8) + (k % 3 == 0 ? Array("-long-suffix-\(k % 7)".utf8) : []))
        }
        return a
    }

    @Test(arguments: [(0, 1), (1, 1), (50, 10), (20_000, 20_000), (70_000, 9_000), (200_000, 150_000)])
    func codesEqualOneInternerOverAllRecords(n: Int, distinct: Int) {
        let ids = IdCodesTests.ids(n, distinct: distinct, seed: UInt64(n + distinct))
        let codes = IdCodes(ids)
        var interner = SliceInterner(capacity: n)
        var want = [Int](repeating: 0, count: n)
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<n { want[i] = interner.intern(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])) }
        }
        let same = codes.code == want
        #expect(same)
        #expect(codes.count == interner.count)
        let hashed = ids.bytes.withUnsafeBytes { raw in
            (0..<n).allSatisfy { i in
                codes.hashes[i] == IdHashes.hash(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)]))
            }
        }
        #expect(hashed)
    }

    @Test func idsOfOneBucketSpreadOverGroups() {
        // the records of one bucket share their hash's low bits: the groups take the high ones
        var a = ByteArena()
        var k = 0
        while a.count < 3 * IdCodes.groupRows {
            let id = Array("ak\(k)".utf8)
            k += 1
            if id.withUnsafeBytes({ IdHashes.bucket(IdHashes.hash($0)) }) == 5 { a.append(id); a.append(id) }
        }
        let codes = IdCodes(a)
        #expect(codes.count == a.count / 2)
        let paired = stride(from: 0, to: a.count, by: 2).allSatisfy { i in
            codes.code[i] == codes.code[i + 1] && codes.code[i] == i / 2
        }
        #expect(paired)
    }
}
