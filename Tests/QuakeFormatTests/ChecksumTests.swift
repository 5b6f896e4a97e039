import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The checksums behind every chunk: the eight-chain `wide` sum equals a naive reference, any
/// flipped byte changes both sums, and partition files written with the older single-chain sum
/// still read, verify and catch damage.
@Suite struct ChecksumTests {
    /// `wide` written plainly: eight chains in an array, word by word, then folded in order.
    static func naiveWide(_ b: [UInt8]) -> UInt64 {
        var lanes: [UInt64] = [0x9E37_79B9_7F4A_7C15 ^ UInt64(b.count), 0xBF58_476D_1CE4_E5B9,
                               0x94D0_49BB_1331_11EB, 0xFF51_AFD7_ED55_8CCD, 0x2545_F491_4F6C_DD1D,
                               0x9FB2_1C65_1E98_DF25, 0xD6E8_FEB8_6659_FD93, 0xA076_1D64_78BD_642F]
        func word(_ i: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[i + $1]) << (8 * UInt64($1)) } }
        func step(_ lane: Int, _ k: UInt64) {
            var a = (lanes[lane] ^ k) &* 0xC4CE_B9FE_1A85_EC53
            a ^= a >> 29
            lanes[lane] = a
        }
        let stripes = b.count / 64
        for s in 0..<stripes { for l in 0..<8 { step(l, word(s * 64 + l * 8)) } }
        var i = stripes * 64
        while i + 8 <= b.count { step(0, word(i)); i += 8 }
        var tail: UInt64 = 0
        for (j, byte) in b[i...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(j)) }
        var h = lanes[0]
        for a in lanes.dropFirst() + [tail] {
            h = (h ^ a) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
        }
        return h
    }

    @Test func wideEqualsNaiveReference() {
        var rng = SplitMix64(seed: 7)
        var lengths = Array(0...200) + [511, 512, 513, 4096, 65_537]
        lengths += (0..<20).map { _ in Int(rng.next() % 300_000) }
        for n in lengths {
            let b = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            #expect(Checksum.wide(b) == Self.naiveWide(b), "length \(n)")
        }
        #expect(Checksum.wide([]) != Checksum.wide([0]))
        #expect(Checksum.wide([UInt8](repeating: 0, count: 64)) != Checksum.wide([UInt8](repeating: 0, count: 72)))
    }

    @Test func everyFlippedByteChangesBothSums() {
        var rng = SplitMix64(seed: 11)
        for n in [1, 7, 8, 63, 64, 65, 200, 1000] {
            let b = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let w = Checksum.wide(b), h = Checksum.hash(b)
            for i in 0..<n {
                var c = b
                c[i] ^= UInt8(1 << (i % 8))
                #expect(Checksum.wide(c) != w, "wide missed byte \(i) of \(n)")
                #expect(Checksum.hash(c) != h, "hash missed byte \(i) of \(n)")
            }
        }
    }

    /// Rewrites a partition file as files written before `wide` were: chunk and region sums by
    /// `hash`, directory flag 4 cleared, the directory's own sum recomputed.
    static func downgrade(_ bytes: [UInt8], _ d: PartitionFile.Directory) -> [UInt8] {
        var b = bytes
        func put(_ v: UInt64, at o: Int) { for j in 0..<8 { b[o + j] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(j))) } }
        func u64(at o: Int) -> Int { (0..<8).reduce(0) { $0 | Int(b[o + $1]) << (8 * $1) } }
        let footer = b.count - PartitionFile.footerSize
        let dirOffset = u64(at: footer), dirLength = u64(at: footer + 8)
        let blocks = d.blockSizes.count
        b[dirOffset + 12] &= ~UInt8(PartitionFile.wideChecksums)
        let sums = dirOffset + 24 + 4 * blocks + PartitionFile.ChunkInfo.size * Column.count * blocks
        for c in 0..<Column.count {
            for k in 0..<blocks {
                let i = d.chunks[c][k]
                put(Checksum.hash(Array(b[i.offset..<(i.offset + i.length)])), at: sums + 8 * (c * blocks + k))
            }
        }
        // the regions close the directory: place index, aggregates, then provenance, 24 bytes each
        var end = dirOffset + dirLength
        for reg in [d.provenance, d.aggregates, d.placeIndex].compactMap({ $0 }) {
            put(Checksum.hash(Array(b[reg.offset..<(reg.offset + reg.length)])), at: end - 8)
            end -= 24
        }
        put(Checksum.hash(Array(b[dirOffset..<(dirOffset + dirLength)])), at: footer + 16)
        return b
    }

    @Test func filesWithTheOlderSumStillReadAndCatchDamage() throws {
        let dir = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 3000)
        o.firstYear = 2021; o.lastYear = 2021
        _ = try FeedGenerator.generate(o, into: dir + "/gen")
        let (s, _, _) = try TestSupport.load([dir + "/gen"])
        let part = s.manifest.partitions[2]
        let path = s.path + "/partitions/" + part.file
        let d = try s.reader(part).directory()
        #expect(d.wideChecksums)
        #expect(d.placeIndex != nil && d.aggregates != nil)
        let before = try s.reader(part).readAll()
        let old = Self.downgrade(Array(try Data(contentsOf: URL(fileURLWithPath: path))), d)
        TestSupport.write(old, to: path)
        let fresh = try Store(path: s.path)
        let r = fresh.reader(part)
        #expect(try r.directory().wideChecksums == false)
        #expect(try r.readAll() == before)
        #expect(try r.placeIndex() != nil)
        #expect(try r.unitAggregates(group: nil) != nil)
        _ = try fresh.verify()
        // damage inside a chunk is still caught under the older sum
        let mag = d.chunks[Column.mag.rawValue][0]
        var bad = old
        bad[mag.offset + mag.length / 2] ^= 0x21
        TestSupport.write(bad, to: path)
        #expect(throws: (any Error).self) { _ = try Store(path: s.path).reader(part).readAll() }
    }

    /// A framed chunk's directory sum covers its head; each frame is checked when read: damage
    /// in the last frame fails reads of that frame (naming the file) and `verify`, not reads of
    /// the first, and damage in the head fails every read.
    @Test func framesCheckThemselvesAndTheHeadIsCovered() throws {
        let dir = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 12_000)
        o.firstYear = 2022; o.lastYear = 2022
        _ = try FeedGenerator.generate(o, into: dir + "/gen")
        let (s, _, _) = try TestSupport.load([dir + "/gen"], partitioning: .year)
        let part = try #require(s.manifest.partitions.first)
        let path = s.path + "/partitions/" + part.file
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let d = try s.reader(part).directory()
        for c in [Column.id, Column.place] {
            let info = d.chunks[c.rawValue][0]
            #expect(info.rows > 2 * GranuleIndex.granuleRows)
            let head = original.withUnsafeBytes { b in
                info.codec.covered(UnsafeRawBufferPointer(rebasing: b[info.offset..<(info.offset + info.length)]),
                                   count: info.rows)
            }
            #expect(head < info.length / 2, "\(c): head \(head) of \(info.length)")
            let first = 0..<100, last = (info.rows - 100)..<info.rows
            for (at, what) in [(info.offset + info.length - 3, "last frame"), (info.offset + head - 2, "head")] {
                var bad = original
                bad[at] ^= 0x44
                TestSupport.write(bad, to: path)
                let r = try Store(path: s.path).reader(part)
                if what == "head" {
                    #expect(throws: QuakeError.self) { _ = try r.decode(c, block: 0, rows: first) }
                } else {
                    #expect(throws: Never.self) { _ = try r.decode(c, block: 0, rows: first) }
                }
                do {
                    _ = try r.decode(c, block: 0, rows: last)
                    Issue.record("\(c): damage in the \(what) was read")
                } catch {
                    #expect(error.description.contains(part.file), "\(error)")
                }
                #expect(throws: (any Error).self) { _ = try Store(path: s.path).verify() }
            }
            TestSupport.write(original, to: path)
        }
        _ = try Store(path: s.path).verify()
    }

    /// Chunk frames carry no zstd content checksum (the file's own sums cover them); a frame
    /// of an older chunk, written with one, still decodes, and zstd still checks it.
    @Test func chunkFramesCarryNoZstdChecksumAndOlderOnesStillRead() throws {
        var ids = ByteArena()
        for i in 0..<700 { ids.append(Array("us7000\(i * 7919 % 100_000)".utf8)) }
        var chunk: [UInt8] = []
        _ = ZstdTextCodec.encode(ids, rows: 0..<ids.count, into: &chunk)
        // u32 raw length, the frame's magic, then its header descriptor: bit 2 is the checksum flag
        #expect(Array(chunk[4..<8]) == [0x28, 0xB5, 0x2F, 0xFD])
        #expect(chunk[8] & 0x04 == 0)
        let payload = TextPayload.encode(ids, rows: 0..<ids.count)
        var older = ByteWriter()
        older.u32(UInt32(payload.count))
        older.bytes += Zstd.compress(payload, level: ZstdFrame.level)
        #expect(older.bytes[8] & 0x04 != 0)
        for bytes in [chunk, older.bytes] {
            let v = try bytes.withUnsafeBytes {
                try ZstdTextCodec.decode($0, count: ids.count, rows: 0..<ids.count, as: .stored)
            }
            guard case .text(let a) = v else { Issue.record("not text"); continue }
            #expect((0..<ids.count).allSatisfy { a.string($0) == ids.string($0) })
        }
        var damaged = older.bytes
        damaged[damaged.count - 1] ^= 0x01
        #expect(throws: QuakeError.self) {
            _ = try damaged.withUnsafeBytes {
                try ZstdTextCodec.decode($0, count: ids.count, rows: 0..<10, as: .stored)
            }
        }
    }
}
