import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// Granule sums of frame-of-reference chunks: every byte of such a chunk is covered either by
/// the directory's checksum (the head) or by exactly one granule's sum; each sum equals the
/// checksum of its bytes; a damaged granule is an error wherever a read touches it, and a read
/// of the other granules still gives the reference answer.
@Suite struct GranuleSumsTests {
    /// Checks every frame-of-reference chunk of `s`; returns how many carried sums.
    static func checkCover(_ s: Store) throws -> Int {
        var withSums = 0
        for e in s.manifest.partitions {
            let path = s.path + "/partitions/" + e.file
            let bytes = try FileIO.readFile(path)
            let d = try bytes.withUnsafeBytes { try PartitionFile.directory($0, path: path, rows: e.rows) }
            for c in Column.allCases {
                for info in d.chunks[c.rawValue] where info.codec == .forInteger || info.codec == .forDecimal {
                    try bytes.withUnsafeBytes { b in
                        let chunk = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
                        guard let t = try info.codec.granuleSums(chunk, count: info.rows) else {
                            // only a chunk of nulls has no body to sum
                            #expect(info.stats.nulls == info.rows, "\(c) in \(e.file) has no sums")
                            #expect(info.codec.covered(chunk, count: info.rows) == chunk.count)
                            return
                        }
                        withSums += 1
                        #expect(t.granules == (info.rows + 4095) / 4096)
                        #expect(info.codec.covered(chunk, count: info.rows) == t.dataStart)
                        #expect(Checksum.wide(UnsafeRawBufferPointer(rebasing: chunk[..<t.dataStart])) == info.checksum)
                        // the granules' runs follow one another from the head to the chunk's end
                        var at = t.dataStart
                        for g in 0..<t.granules {
                            let r = t.body.packedRange(granule: g)
                            if r.isEmpty { continue }
                            #expect(t.dataStart + r.lowerBound == at, "\(c) in \(e.file): granule \(g) starts apart")
                            at = t.dataStart + r.upperBound
                            // the table sits right before the body's miniblock count and headers
                            let body = 4 + FrameOfReference.headerSize * ((info.rows + 1023) / 1024)
                            let table = t.dataStart - body - 8 * t.granules
                            let stored = chunk.loadUnaligned(fromByteOffset: table + 8 * g, as: UInt64.self)
                            let run = UnsafeRawBufferPointer(rebasing: chunk[(t.dataStart + r.lowerBound)..<at])
                            let sum = Checksum.wide(run)
                            #expect(sum == UInt64(littleEndian: stored), "\(c) in \(e.file): granule \(g)")
                            #expect(t.check(g))
                        }
                        #expect(at == chunk.count, "\(c) in \(e.file): \(chunk.count - at) bytes outside every sum")
                    }
                }
            }
        }
        return withSums
    }

    @Test func everyByteOfAFrameOfReferenceChunkIsSummedOnce() throws {
        let n = try Self.checkCover(Fixtures.large.store) + Self.checkCover(Fixtures.generated.store)
        #expect(n > 100)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func everyByteOfARealChunkIsSummedOnce() throws {
        let f = try #require(Fixtures.real, "real feeds present but not loaded")
        #expect(try Self.checkCover(f.store) > 100)
    }

    /// One year partition of 30,000 rows in one block: eight granules per chunk.
    static func oneBlock(_ dir: String) throws -> (Store, [Quake]) {
        let s = try CatalogTests.generatedStore(dir, rows: 30000, years: 2022...2022, seed: 5, partitioning: .year,
                                                blockRows: 65536)
        let b = try TestSupport.allRows(s)
        return (s, (0..<b.count).map { Quake(batch: b, row: $0) })
    }

    /// Flips a byte inside granule `g`'s packed data of column `c`'s first chunk.
    static func damage(_ s: Store, _ c: Column, granule g: Int) throws {
        let e = try #require(s.manifest.partitions.first)
        let path = s.path + "/partitions/" + e.file
        var bytes = try FileIO.readFile(path)
        let d = try bytes.withUnsafeBytes { try PartitionFile.directory($0, path: path, rows: e.rows) }
        let info = d.chunks[c.rawValue][0]
        let at = try bytes.withUnsafeBytes { b -> Int in
            let chunk = UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)])
            guard let t = try info.codec.granuleSums(chunk, count: info.rows) else {
                throw QuakeError.corrupt(path, "no granule sums")
            }
            let r = t.body.packedRange(granule: g)
            return info.offset + t.dataStart + r.lowerBound + r.count / 2
        }
        bytes[at] ^= 0x10
        TestSupport.write(bytes, to: path)
    }

    @Test func aDamagedGranuleIsAnErrorWhereReadAndTheOthersStillAnswer() throws {
        let dir = TestSupport.tempDir()
        let (s, quakes) = try Self.oneBlock(dir)
        #expect(s.manifest.partitions.count == 1)
        let byTime = quakes.sorted { ($0.timeMilliseconds, $0.id) < ($1.timeMilliseconds, $1.id) }
        #expect(byTime.count > 4 * 4096)
        // granule 0 holds the first 4,096 rows by time: a window inside it reads no other granule
        let inside = QuerySpec(filter: .timeRange(.time, lower: byTime[10].timeMilliseconds,
                                                  upper: byTime[4000].timeMilliseconds),
                               sort: [SortKey(.time, ascending: true)], limit: 5000)
        let want = try Naive.query(quakes, inside).map(\.id)
        let every = QuerySpec(filter: .all, sort: [SortKey(.time, ascending: true)], limit: 100_000)
        try Self.damage(s, .time, granule: 3)
        try Self.damage(s, .mag, granule: 5)

        let damaged = try Store(path: dir + "/store")
        #expect(try damaged.query(inside, columns: [.id, .time, .mag]).ids == want)
        #expect { _ = try damaged.query(every, columns: [.id, .time]) } throws: {
            "\($0)".contains("granule 3: checksum mismatch") && "\($0)".contains(".qkp")
        }
        let band = QuerySpec(filter: .numberRange(.mag, lower: .init(2.25, inclusive: true), upper: .init(3.05)),
                             sort: [SortKey(.time, ascending: true)], limit: 100_000)
        #expect { _ = try damaged.query(band, columns: [.id]) } throws: {
            "\($0)".contains("granule 5: checksum mismatch")
        }
        #expect(throws: (any Error).self) { _ = try damaged.verify() }
        // still an error the second time: a failed check is never remembered as passed
        #expect(throws: (any Error).self) { _ = try damaged.query(every, columns: [.id, .time]) }
    }
}
