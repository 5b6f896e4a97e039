import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// ``MagnitudeTable`` against a `Set` and a sorted array: the same distinct values in order,
/// each held key's code its index there, no code for a key not held, over pools from one value
/// to thousands (the table grows many times) and rows with many repeats.
@Suite struct MagnitudeTableTests {
    @Test(arguments: [1, 5, 40, 300, 5000])
    func codesMatchASortedSetOfTheValues(pool: Int) {
        var rng = SplitMix64(seed: UInt64(pool) * 7 + 1)
        // hundredths, negative ones and zero among them, written with two places or, where the
        // value allows, fewer ("2.50" and "2.5" are one magnitude)
        let values = (0..<pool).map { _ in Int64(rng.next() % 2000) - 300 }
        func encoded(_ hundredths: Int64, _ rng: inout SplitMix64) -> Int64 {
            hundredths % 10 == 0 && rng.next() % 2 == 0 ? (hundredths / 10) << 6 | 1 : hundredths << 6 | 2
        }
        let rows = (0..<20_000).map { _ in encoded(values[Int(rng.next() % UInt64(pool))], &rng) }
        var table = MagnitudeTable()
        for mag in rows { table.insert(MagnitudeTable.key(mag)) }
        let sorted = table.assignCodes()
        let naive = Set(rows.map { (ScaledDecimal.double($0) + 0.0).bitPattern })
            .map { Double(bitPattern: $0) }.sorted()
        #expect(sorted == naive)
        for mag in rows.prefix(3000) {
            let value = ScaledDecimal.double(mag) + 0.0
            #expect(table.code(MagnitudeTable.key(mag)).map(Int.init) == naive.firstIndex(of: value))
        }
        let rebuilt = MagnitudeTable(codes: naive)
        for (index, value) in naive.enumerated() { #expect(rebuilt.code(value.bitPattern) == Int32(index)) }
        for _ in 0..<500 {
            let other = Double(Int64(rng.next() % 100_000) + 5000) / 100
            #expect(table.code(other.bitPattern) == nil && rebuilt.code(other.bitPattern) == nil)
        }
        // -0 ("-0.0") is +0
        #expect(MagnitudeTable.key(0 << 6 | 32 | 1) == MagnitudeTable.key(0 << 6 | 1))
    }
}
