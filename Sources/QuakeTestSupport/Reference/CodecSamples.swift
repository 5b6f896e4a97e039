import Foundation
import QuakeFormat
import QuakeGenerator

/// Columns and row ranges that stress the column codecs, shared by the codec tests of the
/// format and of the store.
package enum CodecSamples {
    /// Generated columns that stress each codec: sorted and unsorted times, mixed scales,
    /// `-0.0`, 17-digit mantissas, extremes, nulls, all-null and single-row chunks.
    package static func intColumns(_ rng: inout SplitMix64) -> [(String, [Int64])] {
        func dec(_ s: String) -> Int64 {
            var text = s
            // SAFETY: the UTF-8 view is read inside the closure only.
            return (try? text.withUTF8 { try ScaledDecimal.parse(UnsafeRawBufferPointer($0)) }) ?? RowBatch.null
        }
        var out: [(String, [Int64])] = []
        var time: Int64 = 1_300_000_000_000
        out.append(("sorted times", (0..<5000).map { _ in
            time += Int64(rng.next() % 200_000)
            return time
        }))
        out.append(("times with nulls", (0..<3000).map { i in
            i % 7 == 3 ? RowBatch.null : Int64(rng.next() % 4_000_000_000_000) - 1_000_000_000_000
        }))
        out.append(("extremes", [Int64.max, Int64.min + 1, 0, -1, Int64.max - 5, Int64.min + 7]))
        out.append(("all null", [Int64](repeating: RowBatch.null, count: 1500)))
        out.append(("one row", [dec("4.5")]))
        let texts = ["2.5", "2.50", "-0.0", "0", "-122.8073349", "38.8361667", "0.085599999999999996", "27.0",
                     "100", "9.8300000000000001", "-0.001", "1e3", "0.0070449581017813", "6.1"]
        out.append(("mixed scales", (0..<4100).map { i in
            i % 11 == 0 ? RowBatch.null : dec(texts[Int(rng.next() % UInt64(texts.count))])
        }))
        let exact = texts.filter { $0.count < 12 }
        out.append(("mixed scales, exact", (0..<3000).map { i in
            i % 9 == 0 ? RowBatch.null : dec(exact[Int(rng.next() % UInt64(exact.count))])
        }))
        out.append(("mags", (0..<9000).map { _ in
            dec(String(format: "%.\(rng.next() % 3)f", Double(rng.next() % 900) / 100))
        }))
        out.append(("lat", (0..<2049).map { _ in
            dec(String(format: "%.\(rng.next() % 8)f", Double(Int64(rng.next() % 180_000_000) - 90_000_000) / 1e6))
        }))
        out.append(("huge mantissas", (0..<700).map { i in
            (Int64(i) * 99_999_999_999_999 % ScaledDecimal.maxMantissa) << 6 | Int64(i % 22)
        }))
        var decimal = -40.0
        out.append(("ascending decimals", (0..<3000).map { _ in
            decimal += Double(rng.next() % 50) / 1000
            return dec(String(format: "%.3f", decimal))
        }))
        return out
    }

    package static func textColumns(_ rng: inout SplitMix64) -> [(String, ByteArena)] {
        var cat = ByteArena()
        var text = ByteArena()
        var place = ByteArena()
        let nets = ["us", "ak", "ci", "nc", "", "hv", "uw"]
        let places = ["12 km SSW of Volcano, Hawaii", "3km N of Ridgecrest, CA", "Fiji region", "", "007 km E of X",
                      "5 km W of Zürich, Switzerland", "Ñuñoa, Chile", "100 km NE of Kodiak, Alaska"]
        for i in 0..<5000 {
            cat.append(Array(nets[Int(rng.next() % UInt64(nets.count))].utf8))
            text.append(i % 13 == 0 ? [] : Array("id\(rng.next() % 100_000)".utf8))
            place.append(Array(places[Int(rng.next() % UInt64(places.count))].utf8))
        }
        return [("category", cat), ("text", text), ("place", place)]
    }

    /// Row ranges worth trying: edges of 1024-row miniblocks, singles, empties, random spans.
    package static func ranges(_ n: Int, _ rng: inout SplitMix64) -> [Range<Int>] {
        var out: [Range<Int>] = [0..<n, 0..<0, n..<n, 0..<1, (n - 1)..<n]
        for edge in stride(from: 1024, to: n, by: 1024) {
            out.append((edge - 1)..<(edge + 1))
            out.append(edge..<n)
        }
        for _ in 0..<20 {
            let first = Int(rng.next() % UInt64(n))
            let second = Int(rng.next() % UInt64(n))
            out.append(Swift.min(first, second)..<Swift.max(first, second))
        }
        return out
    }
}
