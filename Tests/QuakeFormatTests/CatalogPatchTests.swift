import Foundation
import Testing
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// A catalog patched for replaced partitions is byte for byte the catalog encoded whole for the
/// new partitions (new and vanished magnitudes and changed place summaries included), or nil
/// where the list of localities changes: drawn at random against
/// ``Catalog/encode(files:histograms:places:)``.
@Suite struct CatalogPatchTests {
    static let magnitudes: [Double] = (0..<40).map { Double($0) / 10 }

    /// A histogram of some of `pool`'s values (at least `floor` rows of each of `always`).
    static func histogram(_ rng: inout SplitMix64, pool: [Double], always: [Double] = []) -> Catalog.Histogram {
        var counts: [Double: UInt64] = [:]
        for value in always { counts[value] = 1 + rng.next() % 3 }
        for value in pool where rng.next() % 3 == 0 { counts[value, default: 0] += 1 + rng.next() % 50 }
        let values = counts.keys.sorted()
        return Catalog.Histogram(values: values, counts: values.map { counts[$0] ?? 0 }, nulls: rng.next() % 4)
    }

    static func summary(_ rng: inout SplitMix64) -> PlaceSummary? {
        guard rng.next() % 4 != 0 else { return nil }
        let names = ["Alaska", "Chile", "Japan", "Nevada", "Tonga"].filter { _ in rng.next() % 2 == 0 }
        return PlaceSummary(entries: names.map {
            PlaceSummary.Entry(locality: Array($0.utf8), least: 0.0, greatest: Double(rng.next() % 60) / 10)
        })
    }

    @Test func patchedCatalogsEqualTheWholeEncode() throws {
        let dir = TestSupport.tempDir()
        var rng = SplitMix64(seed: 6840)
        var patchedCount = 0
        var refusals = 0
        var relaidOut = 0
        var placesPatched = 0
        for trial in 0..<200 {
            let partitions = 1 + Int(rng.next() % 30)
            // every magnitude of the pool held somewhere, so the list is the pool's
            let keep = Self.magnitudes.filter { _ in rng.next() % 4 != 0 }
            var histograms = (0..<partitions).map { _ in Self.histogram(&rng, pool: keep) }
            histograms[0] = Self.histogram(&rng, pool: keep, always: keep)
            let places = (0..<partitions).map { _ in Self.summary(&rng) }
            let files = (0..<partitions).map { "p\($0).g1.qkp" }
            let (bytes, checksum) = try #require(Catalog.encode(files: files, histograms: histograms, places: places))
            let path = dir + "/catalog-\(trial).qkc"
            TestSupport.write(bytes, to: path)
            let catalog = try Catalog(path: path, checksum: checksum, files: files)

            var newHistograms = histograms
            var newPlaces = places
            var newFiles = files
            var changes: [Int: (histogram: Catalog.Histogram, places: PlaceSummary?)] = [:]
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let index = Int(rng.next() % UInt64(partitions))
                // mostly values of the list; sometimes one it lacks (the patch must refuse)
                let pool = rng.next() % 8 == 0 ? Self.magnitudes : keep
                newHistograms[index] = Self.histogram(&rng, pool: pool)
                if rng.next() % 8 == 0 {
                    newPlaces[index] = Self.summary(&rng)
                } else if rng.next() % 3 == 0, var bumped = newPlaces[index], !bumped.entries.isEmpty {
                    // the same localities, a bound moved (a magnitude raised past its locality's greatest)
                    let at = Int(rng.next() % UInt64(bumped.entries.count))
                    bumped.entries[at].greatest = (bumped.entries[at].greatest ?? 0) + 0.1
                    newPlaces[index] = bumped
                }
                newFiles[index] = "p\(index).g2.qkp"
                changes[index] = (newHistograms[index], newPlaces[index])
            }
            let whole = Catalog.encode(files: newFiles, histograms: newHistograms, places: newPlaces)
            if let patched = try catalog.patched(files: newFiles, changes: changes) {
                patchedCount += 1
                #expect(patched.bytes == whole?.bytes, "trial \(trial)")
                #expect(patched.checksum == whole?.checksum, "trial \(trial)")
                if Set(newHistograms.flatMap(\.values)) != Set(catalog.values) { relaidOut += 1 }
                if places != newPlaces { placesPatched += 1 }
            } else {
                refusals += 1
                // a refusal is for a reason the whole encode shows: another list of localities
                func localities(_ summaries: [PlaceSummary?]) -> Set<[UInt8]> {
                    Set(summaries.flatMap { $0?.entries.map(\.locality) ?? [] })
                }
                #expect(localities(places) != localities(newPlaces), "trial \(trial): refused a patch it could make")
            }
        }
        #expect(patchedCount > 150)
        // the paths taken: new or vanished magnitudes laid out again, place summaries patched in
        #expect(relaidOut > 10 && placesPatched > 10, "\(relaidOut) laid out again, \(placesPatched) places")
        #expect(refusals > 0)
    }

    /// Running counts over `histograms` (one row per partition boundary, values then nulls), naively.
    static func runningCounts(_ histograms: [Catalog.Histogram], values: [Double]) -> [[UInt64]] {
        var running = [UInt64](repeating: 0, count: values.count + 1)
        var rows = [running]
        for histogram in histograms {
            for (value, count) in zip(histogram.values, histogram.counts) {
                running[values.firstIndex(of: value)!] += count
            }
            running[values.count] += histogram.nulls
            rows.append(running)
        }
        return rows
    }

    /// Counts past what a u32 holds are written as u64s (`QKCATLG2`), the rest as u32s
    /// (`QKCATLG3`); both read back as the naive running sums, and a patch of either width (an
    /// older catalog's u64s included) is the whole encode's bytes, crossing 2^32 both ways.
    @Test func countWidthsFollowTheLargestCount() throws {
        let dir = TestSupport.tempDir()
        var rng = SplitMix64(seed: 6842)
        var widths: Set<Int> = []
        for trial in 0..<60 {
            let partitions = 2 + Int(rng.next() % 12)
            let keep = Self.magnitudes.filter { _ in rng.next() % 3 != 0 }
            func draw(_ huge: Bool) -> Catalog.Histogram {
                var histogram = Self.histogram(&rng, pool: keep, always: keep)
                if huge { histogram.counts[0] += 1_500_000_000 }
                return histogram
            }
            let hugeAt = trial % 3 == 0 ? -1 : Int(rng.next() % UInt64(partitions))
            let histograms = (0..<partitions).map { draw($0 == hugeAt || ($0 > hugeAt && trial % 3 == 2)) }
            let places = (0..<partitions).map { _ in Self.summary(&rng) }
            let files = (0..<partitions).map { "p\($0).g1.qkp" }
            let (bytes, checksum) = try #require(Catalog.encode(files: files, histograms: histograms, places: places))
            let values = Array(Set(histograms.flatMap(\.values))).sorted()
            let naive = Self.runningCounts(histograms, values: values)
            let wide = naive.last!.contains { $0 > UInt64(UInt32.max) }
            #expect(bytes[7] == (wide ? UInt8(ascii: "2") : UInt8(ascii: "3")), "trial \(trial)")
            // the same catalog written with u64 counts, as before version 3
            var oldBytes: [UInt8] = []
            var oldSums: [UInt64] = []
            for row in naive {
                let start = oldBytes.count
                for count in row { withUnsafeBytes(of: count.littleEndian) { oldBytes.append(contentsOf: $0) } }
                oldSums.append(oldBytes[start...].withUnsafeBytes { Checksum.hash($0) })
            }
            let section = Catalog.Places.encode(places)
            let old = Catalog.encode(files: files, values: values, rowBytes: oldBytes, countBytes: 8,
                                     rowChecksums: oldSums, section: section)
            for (name, written) in [("new", (bytes: bytes, checksum: checksum)), ("u64", old)] {
                let path = dir + "/catalog-\(trial)-\(name).qkc"
                TestSupport.write(written.bytes, to: path)
                let catalog = try Catalog(path: path, checksum: written.checksum, files: files)
                widths.insert(catalog.countBytes)
                for (index, row) in naive.enumerated() { #expect(try catalog.row(index) == row, "trial \(trial) \(name)") }
                // replace partitions, with counts that cross 2^32 up or down
                var newHistograms = histograms
                var newFiles = files
                var changes: [Int: (histogram: Catalog.Histogram, places: PlaceSummary?)] = [:]
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    let index = Int(rng.next() % UInt64(partitions))
                    newHistograms[index] = draw(rng.next() % 2 == 0)
                    newFiles[index] = "p\(index).g2.qkp"
                    changes[index] = (newHistograms[index], places[index])
                }
                let whole = try #require(Catalog.encode(files: newFiles, histograms: newHistograms, places: places))
                let patched = try #require(try catalog.patched(files: newFiles, changes: changes), "trial \(trial)")
                #expect(patched.bytes == whole.bytes, "trial \(trial) \(name)")
                #expect(patched.checksum == whole.checksum, "trial \(trial) \(name)")
            }
        }
        #expect(widths == [4, 8])
    }
}
