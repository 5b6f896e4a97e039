import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// The hashed id index (format v3): a key and a partition per event, with the exact path
/// through the partitions. Loads whose index keys collide on almost every id (3 key bits)
/// must give the same counts, rows and history as loads with full keys; the index must list
/// exactly the stored events after every step (`verify`), rebuild under `repair`, and refuse
/// damaged files. Bucket files of formats v1 and v2 still read.
@Suite struct IdHashesTests {
    struct Step: Equatable {
        var counts: [Int]
        var rows: RowBatch
        var changes: [HistoryChange]
    }

    /// Loads `steps` into a fresh store with index keys of `bits` bits (`later` from the second
    /// step on, for buckets not written yet: a bucket file keeps the width it was first written
    /// with).
    static func run(_ steps: [[String]], bits: Int, later: Int? = nil) throws -> (steps: [Step], store: String) {
        let dir = TestSupport.tempDir("idhash-\(bits)-\(UUID().uuidString)") + "/store"
        let s = try Store.openOrCreate(path: dir, partitioning: .month)
        var out: [Step] = []
        var widths = [Int?](repeating: nil, count: Manifest.idBucketCount)
        for (k, paths) in steps.enumerated() {
            var o = LoadOptions()
            o.batchRows = 1000
            o.idHashBits = k == 0 ? bits : later ?? bits
            let summary = try s.load(paths, options: o)
            var changes: [HistoryChange] = []
            if summary.committed {
                try s.forEachChange(generation: s.manifest.generation) { changes.append($0) }
            }
            out.append(Step(counts: [summary.rowsRead, summary.new, summary.updated, summary.unchanged,
                                     summary.duplicates, summary.rejected],
                            rows: try TestSupport.allRows(s), changes: changes))
            #expect(try s.verify().rows == s.manifest.rows)
            for (b, f) in s.manifest.idBuckets.enumerated() {
                guard let f else { continue }
                let h = try IdHashes.read(path: dir + "/ids/" + f, bucket: b, partitioning: .month)
                if widths[b] == nil { widths[b] = o.idHashBits }
                #expect(h.bits == widths[b])
            }
        }
        return (out, dir)
    }

    static func compare(_ steps: [[String]]) throws {
        let (full, _) = try run(steps, bits: IdHashes.defaultBits)
        let (narrow, path) = try run(steps, bits: 3)
        #expect(full.count == narrow.count)
        for (k, (a, b)) in zip(full, narrow).enumerated() {
            #expect(a.counts == b.counts, "step \(k)")
            #expect(a.rows == b.rows, "step \(k): rows")
            #expect(a.changes == b.changes, "step \(k): history")
        }
        // repair rebuilds the same manifest from the files, colliding keys and all
        let before = try Store(path: path).manifest
        try FileManager.default.removeItem(atPath: path + "/manifest.qkm")
        _ = try Store.repair(path: path)
        let after = try Store(path: path)
        #expect(after.manifest.partitions == before.partitions)
        #expect(after.manifest.idBuckets == before.idBuckets)
        #expect(try TestSupport.allRows(after) == narrow.last?.rows)
    }

    @Test func collidingKeysResolveExactlyUnderUpserts() throws {
        let (feed, up, more) = try TestSupport.upsertInputs("idh", seed: 21, picks: 600, country: "Peru")
        try IdHashesTests.compare([[feed], [up, more], [feed, up], [more]])
    }

    /// A store whose bucket files were written with 58-bit keys (by builds before 40 became the
    /// default) goes on loading, with 40-bit keys for new buckets, to the same results.
    @Test func fullWidthFilesStayAndResolveExactly() throws {
        let (feed, up, more) = try TestSupport.upsertInputs("idw", seed: 22, picks: 400, country: "Chile")
        let steps = [[feed], [up, more], [feed, up]]
        let (mixed, _) = try IdHashesTests.run(steps, bits: IdHashes.maxBits, later: IdHashes.defaultBits)
        let (plain, _) = try IdHashesTests.run(steps, bits: IdHashes.defaultBits)
        #expect(mixed.count == plain.count)
        for (k, (a, b)) in zip(mixed, plain).enumerated() {
            #expect(a.counts == b.counts, "step \(k)")
            #expect(a.rows == b.rows, "step \(k): rows")
            #expect(a.changes == b.changes, "step \(k): history")
        }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func realFeedsInHalves() throws {
        let d = try #require(TestSupport.usgsDirectory).path
        let names = FileIO.list(d).filter { !$0.hasPrefix("README") }.sorted().map { d + "/" + $0 }
        let half = names.count / 2
        try IdHashesTests.compare([Array(names[..<half]), Array(names[half...]), names])
    }

    /// `n` entries with random keys, partitions and minutes (one in ten unknown), a shared key,
    /// and for `n` past two blocks a run of one key across a block's edge.
    static func randomEntries(_ n: Int, bits: Int, seed: UInt64) -> IdHashes {
        var rng = SplitMix64(seed: seed)
        var h = IdHashes(bits: bits)
        func hint() -> UInt32 { rng.next() % 10 == 0 ? IdHashes.unknownHint : UInt32(1 + rng.next() % 44_640) }
        for _ in 0..<n {
            h.append(key: rng.next() >> UInt64(64 - bits), ordinal: 24_000 + Int(rng.next() % 300), hint: hint())
        }
        if n > 3 { h.append(key: h.keys[0], ordinal: h.ordinals[0] + 1, hint: hint()) }   // a shared key
        if n > 2 * IdBucketFile.blockEntries {
            let key = h.keys[1]
            for _ in 0..<(IdBucketFile.blockEntries + 7) {
                h.append(key: key, ordinal: 24_000 + Int(rng.next() % 3), hint: hint())
            }
        }
        h.sort()
        return h
    }

    /// The block lookup against a naive scan of the entries: every entry of a key, across the
    /// edges of blocks, for stored keys and others; v3 files read with unknown minutes. The
    /// largest file's directory is longer than the lookup's first read of the file's tail.
    @Test(arguments: [3, 40])
    func blockLookupsMatchANaiveScan(bits: Int) throws {
        for n in [1, 1023, 1024, 1025, 5000, 80_000] {
            let hashes = IdHashesTests.randomEntries(n, bits: bits, seed: UInt64(n * 31 + bits))
            let path = TestSupport.tempDir("idblocks-\(bits)-\(n)") + "/00.g1.idx"
            try FileIO.writeFile(path, hashes.fileBytes())
            let lookup = try IdBucketLookup(path: path, bucket: 0, partitioning: .month)
            var rng = SplitMix64(seed: UInt64(n))
            var keys = (0..<60).map { k in k % 2 == 0 ? hashes.keys[(k * 7919) % hashes.count] : rng.next() >> UInt64(64 - bits) }
            keys.append(hashes.keys[0])
            keys.append(hashes.keys[hashes.count - 1])
            for key in keys {
                let naive = hashes.keys.indices.filter { hashes.keys[$0] == key }
                    .map { IdBucketLookup.Place(ordinal: hashes.ordinals[$0], hint: hashes.hints[$0]) }
                #expect(try lookup.places(of: [key]) == naive, "\(n) entries, key \(key)")
            }
            let v3 = try hashes.fileBytesV3().withUnsafeBytes {
                try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t")
            }
            #expect(v3.keys == hashes.keys && v3.ordinals.count == hashes.count)
            #expect(v3.hints.allSatisfy { $0 == IdHashes.unknownHint })
        }
    }

    /// Id-index buckets damaged (a byte flipped), cut short or gone under a sound manifest:
    /// `verify` names the bucket, and `repair` writes each again from the partitions, equal to
    /// the file it replaces (the default key width), after which the store verifies and a point
    /// read of every id answers as before. A second `repair` finds nothing to do.
    @Test func damagedBucketsAreRebuiltByRepair() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 20000, years: 2021...2023, seed: 31)
        let path = dir + "/store"
        let rows = try TestSupport.allRows(s)
        let named = s.manifest.idBuckets.enumerated().compactMap { bucket, file in file.map { (bucket, $0) } }
        #expect(named.count > 10)
        var original: [Int: IdHashes] = [:]
        for (bucket, file) in named {
            original[bucket] = try IdHashes.read(path: path + "/ids/" + file, bucket: bucket, partitioning: .month)
        }
        let ids = rows.quakes.map(\.id)
        let specs = stride(from: 0, to: ids.count, by: 2500).map { start in
            QuerySpec(filter: .ids(EventIdSet(ids[start..<min(ids.count, start + 2500)])),
                      sort: [SortKey(.id, ascending: true)], limit: 5000)
        }
        let answers = try specs.map { try s.query($0, columns: [.id, .mag, .time]).ids }
        #expect(answers.joined().count > 15000)
        // a byte in the middle of one, the second half of another cut away, a third removed
        let (flipped, cut, gone) = (named[1], named[named.count / 2], named[named.count - 1])
        var bytes = try FileIO.readFile(path + "/ids/" + flipped.1)
        bytes[bytes.count / 2] ^= 0x5A
        TestSupport.write(bytes, to: path + "/ids/" + flipped.1)
        let whole = try FileIO.readFile(path + "/ids/" + cut.1)
        TestSupport.write(Array(whole.prefix(whole.count / 2)), to: path + "/ids/" + cut.1)
        try FileManager.default.removeItem(atPath: path + "/ids/" + gone.1)
        #expect { _ = try Store(path: path).verify() } throws: { "\($0)".contains("ids/") }

        let report = try Store.repair(path: path)
        #expect(report.catalogOnly && report.rebuiltIdBuckets == 3)
        #expect(report.description.hasPrefix("rebuilt 3 id-index buckets at generation"), "\(report)")
        let repaired = try Store(path: path)
        _ = try repaired.verify()
        for (bucket, file) in repaired.manifest.idBuckets.enumerated() {
            guard let file else { continue }
            let rebuilt = try IdHashes.read(path: path + "/ids/" + file, bucket: bucket, partitioning: .month)
            #expect(rebuilt == original[bucket], "bucket \(bucket)")
        }
        #expect(try TestSupport.allRows(repaired) == rows)
        for (spec, answer) in zip(specs, answers) {
            #expect(try repaired.query(spec, columns: [.id, .mag, .time]).ids == answer)
        }
        #expect { _ = try Store.repair(path: path) } throws: { ($0 as? QuakeError)?.kind == .nothingToRepair }
    }

    /// Bucket files that pass their checks but list other entries than the partitions give:
    /// another bucket's file copied or renamed over one, two swapped, a bucket's older file put
    /// back, and the whole `ids` folder gone. `repair` finds each by comparing what the files
    /// list with what the partitions give, writes those buckets again, and the store verifies
    /// and answers point reads as before.
    @Test func misplacedBucketFilesAreRebuiltByRepair() throws {
        let dir = TestSupport.tempDir()
        let s = try CatalogTests.generatedStore(dir, rows: 12000, years: 2021...2022, seed: 33)
        let path = dir + "/store"
        // a second generation, so that some buckets have an older file beside the current one
        let older = s.manifest.idBuckets
        let quakes = try TestSupport.allRows(s).quakes
        let seen = TestSupport.writeUpserts(of: quakes, picks: 40, seed: 34, to: dir + "/rev.csv") { _, _ in
            UpsertFields(mag: "3.3")
        }
        #expect(try s.load([dir + "/rev.csv"]).updated == seen.count)
        let rows = try TestSupport.allRows(s)
        let ids = rows.quakes.map(\.id)
        let spec = QuerySpec(filter: .ids(EventIdSet(ids.prefix(3000))), sort: [SortKey(.id, ascending: true)],
                             limit: 5000)
        let answer = try s.query(spec, columns: [.id, .mag]).ids
        let current = s.manifest.idBuckets.enumerated().compactMap { bucket, file in file.map { (bucket, $0) } }
        let changed = current.first { older[$0.0] != nil && older[$0.0] != $0.1 }
        let stale = try #require(changed, "some bucket was written again")
        let (first, second) = (current[2], current[5])
        let cases: [(String, (String) throws -> Void)] = [
            ("copied over", { store in
                try FileManager.default.removeItem(atPath: store + "/ids/" + second.1)
                try FileManager.default.copyItem(atPath: store + "/ids/" + first.1, toPath: store + "/ids/" + second.1)
            }),
            ("renamed over", { store in
                try FileManager.default.removeItem(atPath: store + "/ids/" + second.1)
                try FileManager.default.moveItem(atPath: store + "/ids/" + first.1, toPath: store + "/ids/" + second.1)
            }),
            ("swapped", { store in
                let aside = store + "/ids/aside"
                try FileManager.default.moveItem(atPath: store + "/ids/" + first.1, toPath: aside)
                try FileManager.default.moveItem(atPath: store + "/ids/" + second.1, toPath: store + "/ids/" + first.1)
                try FileManager.default.moveItem(atPath: aside, toPath: store + "/ids/" + second.1)
            }),
            ("older file put back", { store in
                let old = try #require(older[stale.0])
                try FileManager.default.removeItem(atPath: store + "/ids/" + stale.1)
                try FileManager.default.copyItem(atPath: store + "/ids/" + old, toPath: store + "/ids/" + stale.1)
            }),
            ("folder gone", { store in try FileManager.default.removeItem(atPath: store + "/ids") }),
        ]
        for (name, damage) in cases {
            let copy = dir + "/copy-" + name.replacingOccurrences(of: " ", with: "-")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try damage(copy)
            #expect(throws: (any Error).self, "\(name)") { _ = try Store(path: copy).verify() }
            let report = try Store.repair(path: copy)
            #expect(report.catalogOnly && report.rebuiltIdBuckets > 0, "\(name): \(report)")
            let repaired = try Store(path: copy)
            _ = try repaired.verify()
            #expect(try TestSupport.allRows(repaired) == rows, "\(name)")
            #expect(try repaired.query(spec, columns: [.id, .mag]).ids == answer, "\(name)")
            #expect(throws: QuakeError.self, "\(name): nothing left to repair") { _ = try Store.repair(path: copy) }
        }
    }

    /// A byte flipped anywhere in a v4 file read block by block (`pread`, not mapped): opening
    /// it or looking up every stored key throws; no lookup answers from damaged bytes.
    @Test func damagedFilesAreRefusedByTheBlockLookup() throws {
        let hashes = IdHashesTests.randomEntries(3000, bits: 40, seed: 21)
        let good = hashes.fileBytes()
        let path = TestSupport.tempDir("idblocks-damaged") + "/00.g1.idx"
        var rng = SplitMix64(seed: 22)
        for _ in 0..<120 {
            var bad = good
            let at = Int(rng.next() % UInt64(bad.count))
            bad[at] ^= UInt8(1 << (rng.next() % 8))
            try FileIO.writeFile(path, bad)
            #expect(throws: QuakeError.self, "byte \(at)") {
                let lookup = try IdBucketLookup(path: path, bucket: 0, partitioning: .month)
                _ = try lookup.places(of: hashes.keys)
            }
        }
        // cut short, and empty
        for cut in [Array(good.prefix(good.count - 3)), Array(good.suffix(30)), []] {
            try FileIO.writeFile(path, cut)
            #expect(throws: QuakeError.self) {
                _ = try IdBucketLookup(path: path, bucket: 0, partitioning: .month).places(of: hashes.keys)
            }
        }
    }

    @Test(arguments: [1, 3, 17, 58])
    func filesRoundTrip(bits: Int) throws {
        for n in [0, 1, 5, 4000] {
            let h = IdHashesTests.randomEntries(n, bits: bits, seed: UInt64(n * 100 + bits))
            let bytes = h.fileBytes()
            let back = try bytes.withUnsafeBytes { try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t") }
            #expect(back == h)
            // the lookup table against a naive scan, for stored keys and others
            let table = IdHashes.Directory(back)
            var rng = SplitMix64(seed: UInt64(n))
            for k in 0..<100 where n > 0 {
                let key = k % 2 == 0 ? h.keys[(k * 7919) % h.count] : rng.next() >> UInt64(64 - bits)
                let naive = h.keys.indices.filter { h.keys[$0] == key }
                let found = table.entries(key, in: back)
                #expect(Array(found) == naive, "key \(key)")
            }
        }
    }

    @Test func damagedFilesAreRefused() throws {
        let h = IdHashesTests.randomEntries(500, bits: 58, seed: 3)
        let good = h.fileBytes()
        var rng = SplitMix64(seed: 8)
        for _ in 0..<200 {
            var bad = good
            let at = Int(rng.next() % UInt64(bad.count))
            bad[at] ^= UInt8(1 << (rng.next() % 8))
            #expect(throws: QuakeError.self) {
                _ = try bad.withUnsafeBytes { try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t") }
            }
        }
        // entries out of order, under a valid checksum
        var unsorted = h
        unsorted.keys.swapAt(0, 100)
        let file = unsorted.fileBytes()
        #expect { _ = try file.withUnsafeBytes { try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t") } }
            throws: { "\($0)".contains("out of order") }
        // across blocks: the directory's first keys out of order
        var crossed = h
        crossed.keys.swapAt(0, 400)
        let crossedFile = crossed.fileBytes()
        #expect(throws: QuakeError.self) {
            _ = try crossedFile.withUnsafeBytes { try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t") }
        }
        // cut short
        let cut = Array(good.prefix(good.count - 3))
        #expect(throws: QuakeError.self) {
            _ = try cut.withUnsafeBytes { try IdHashes.decode($0, bucket: 0, partitioning: .month, path: "t") }
        }
    }

    @Test func formatV2BucketsReadAsEntries() throws {
        var rng = SplitMix64(seed: 12)
        var perBucket = [IdRecords](repeating: IdRecords(), count: Manifest.idBucketCount)
        for i in 0..<3000 {
            let id = Array("ci\(rng.next() % 100_000_000)x\(i)".utf8)
            let t = 1_600_000_000_000 + Int64(rng.next() % 100_000_000_000)
            id.withUnsafeBytes { perBucket[IdRecords.bucket($0)].append(id: $0, time: t, updated: t + 5, seq: 0) }
        }
        for (b, recs) in perBucket.enumerated() where recs.count > 0 {
            let v2 = recs.fileBytes()
            let read = try v2.withUnsafeBytes { try IdHashes.decode($0, bucket: b, partitioning: .month, path: "t") }
            // the naive reference: each id's hash key (the top `defaultBits` of the 58 above the
            // bucket's 6) and month, sorted
            #expect(read.bits == IdHashes.defaultBits)
            var naive: [(UInt64, Int)] = []
            recs.ids.bytes.withUnsafeBytes { raw in
                for i in 0..<recs.count {
                    let h = Checksum.hash(UnsafeRawBufferPointer(rebasing: raw[recs.ids.range(i)]), seed: 0x51_7CC1_B727_220A)
                    #expect(Int(h % 64) == b)
                    let key = (h >> 6) >> UInt64(58 - IdHashes.defaultBits)
                    naive.append((key, Partitioning.month.ordinal(recs.time[i])))
                }
            }
            naive.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            #expect(read.keys == naive.map(\.0))
            #expect(read.ordinals == naive.map(\.1))
            // the same records filed under another bucket are refused
            #expect(throws: QuakeError.self) {
                _ = try v2.withUnsafeBytes { try IdHashes.decode($0, bucket: (b + 1) % 64, partitioning: .month, path: "t") }
            }
        }
    }
}
