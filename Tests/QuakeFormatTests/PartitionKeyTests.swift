import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Partition keys, written digit by digit since every manifest read checks each partition's,
/// against keys formatted from the civil date by interpolation.
@Suite struct PartitionKeyTests {
    static func naive(_ p: Partitioning, _ t: Int64) -> String {
        let day = Int((t >= 0 ? t : t - 86_400_000 + 1) / 86_400_000)
        let (y, m, d) = Timestamp.civil(days: day)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(format4: y)
        switch p {
        case .day: return "\(year)-\(two(m))-\(two(d))"
        case .month: return "\(year)-\(two(m))"
        case .year: return year
        }
    }

    @Test func keysEqualFormattedDatesOverEveryStorableYear() {
        var rng = SplitMix64(seed: 11)
        let span = UInt64(Timestamp.storable.upperBound - Timestamp.storable.lowerBound)
        var times: [Int64] = [Timestamp.storable.lowerBound, Timestamp.storable.upperBound - 1, 0, -1, 86_400_000 - 1]
        for _ in 0..<20_000 { times.append(Timestamp.storable.lowerBound + Int64(rng.next() % span)) }
        for t in times {
            for p in [Partitioning.day, .month, .year] {
                #expect(p.key(t) == Self.naive(p, t), "time \(t), \(p)")
            }
        }
        #expect(Partitioning.month.key(0) == "1970-01" && Partitioning.day.key(-1) == "1969-12-31")
        #expect(Partitioning.year.key(Timestamp.storable.lowerBound) == "0000")
    }
}
