import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Point reads through the id index's minute hints (format v4 buckets): a list of ids reads only
/// the granules of the minutes the index names, and answers as the naive reference does after
/// loads that move events within a partition (a new minute) and across partitions, with keys
/// that collide on almost every id, with buckets written before hints, and never from a damaged
/// bucket.
@Suite struct IdPointReadTests {
    /// The rows `ids` select, in time order both ways, whole and as pages cut inside the list,
    /// against the naive reference over every stored row; counts too.
    static func expectPointReads(_ store: Store, _ ids: [String], _ label: String) throws {
        let batch = try TestSupport.allRows(store)
        let quakes = (0..<batch.count).map { Quake(batch: batch, row: $0) }
        let pages: [(limit: Int?, offset: Int)] = [(nil, 0), (3, 2), (max(1, ids.count / 2), 1)]
        for filter in [Filter.oneOf(.id, ids),
                       .conjunction([.numberRange(.depth, lower: .init(-10), upper: nil), .oneOf(.id, ids)])] {
            for ascending in [true, false] {
                for page in pages {
                    var spec = QuerySpec()
                    spec.filter = filter
                    spec.sort = [SortKey(.time, ascending: ascending)]
                    spec.limit = page.limit
                    spec.offset = page.offset
                    let result = try store.query(spec, columns: [.id, .time, .mag])
                    let want = try Naive.query(quakes, spec)
                    #expect(result.ids == want.map(\.id),
                            "\(label): \(ids.count) ids, ascending \(ascending), page \(page)")
                }
            }
            var all = QuerySpec()
            all.filter = filter
            #expect(try store.count(filter) == Naive.query(quakes, all).count, "\(label): count of \(ids.count) ids")
        }
    }

    /// `count` ids drawn from `stored` (some twice) and two that no event has.
    static func draw(_ stored: [String], _ count: Int, _ rng: inout SplitMix64) -> [String] {
        var ids = (0..<count).map { _ in stored[Int(rng.next() % UInt64(stored.count))] }
        ids.append("zz-not-stored-\(count)")
        ids.append(ids[0])
        ids.append("zz" + ids[0])
        return ids
    }

    /// A CSV that re-reviews up to `picks` of `quakes`: each moved by up to two hours (into
    /// another minute, mostly of the same partition) with `updated` a day later.
    static func minuteMoves(_ quakes: [Quake], picks: Int, seed: UInt64, to path: String) -> [String] {
        var rng = SplitMix64(seed: seed)
        var lines = ["time,latitude,longitude,depth,mag,magType,net,id,updated,place,type"]
        var moved: [String] = []
        var seen = Set<String>()
        for _ in 0..<picks {
            let quake = quakes[Int(rng.next() % UInt64(quakes.count))]
            guard seen.insert(quake.id).inserted else { continue }
            let shift = (Int64(rng.next() % 240) - 120) * 60_000 + Int64(rng.next() % 60_000)
            let updated = Int64((quake.updated ?? quake.time).timeIntervalSince1970 * 1000) + 86_400_000
            lines.append([Timestamp.string(quake.timeMilliseconds + shift), "\(quake.latitude)",
                          "\(quake.longitude)", "10", "3.1", "ml", "us", quake.id, Timestamp.string(updated),
                          "\"5 km N of Minute, Testland\"", "earthquake"].joined(separator: ","))
            moved.append(quake.id)
        }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: path)
        return moved
    }

    @Test func oneIdReadsTheGranulesOfItsMinute() throws {
        let fixture = Fixtures.generated
        var rng = SplitMix64(seed: 6801)
        let stored = fixture.quakes.map(\.id)
        for _ in 0..<20 {
            let id = stored[Int(rng.next() % UInt64(stored.count))]
            let (count, stats) = try QueryExecutor(store: fixture.store).count(.oneOf(.id, [id]))
            #expect(count == 1, "\(id)")
            let read = stats.granulesTotal - stats.granulesPruned
            #expect(read >= 1 && read <= 2, "\(id) read \(read) granules: \(stats.report(filter: .oneOf(.id, [id])))")
        }
    }

    @Test(arguments: [IdHashes.defaultBits, 3])
    func pointReadsFollowMovesWithinAndAcrossPartitions(bits: Int) throws {
        let (feed, up, more) = try TestSupport.upsertInputs("pr\(bits)", seed: 68, picks: 500, country: "Peru")
        let path = TestSupport.tempDir("point-\(bits)-\(UUID().uuidString)") + "/store"
        let store = try Store.openOrCreate(path: path, partitioning: .month)
        var options = LoadOptions()
        options.batchRows = 1000
        options.idHashBits = bits
        var rng = SplitMix64(seed: UInt64(bits))
        try store.load([feed], options: options)
        let first = try TestSupport.allRows(store)
        let quakes = (0..<first.count).map { Quake(batch: first, row: $0) }
        let minutes = TestSupport.tempDir("pr-min-\(bits)") + "/minutes.csv"
        let moved = IdPointReadTests.minuteMoves(quakes, picks: 400, seed: UInt64(bits) &+ 7, to: minutes)
        for (step, paths) in [[feed], [minutes], [up, more], [minutes, feed]].enumerated() {
            if step > 0 { try store.load(paths, options: options) }
            #expect(try store.verify().rows == store.manifest.rows, "step \(step)")
            let stored = try TestSupport.allRows(store)
            let ids = (0..<stored.count).compactMap { stored.text[Column.id.rawValue].string($0) }
            for size in [1, 10, 300] {
                try IdPointReadTests.expectPointReads(store, IdPointReadTests.draw(ids, size, &rng),
                                                      "bits \(bits), step \(step)")
            }
            try IdPointReadTests.expectPointReads(store, Array(moved.prefix(200)), "bits \(bits), step \(step), moved")
        }
    }

    /// A store whose buckets were written before hints (v3: no minutes) answers the same, passes
    /// `verify`, and a load that changes events writes v4 buckets that mix known and unknown
    /// minutes, still exact.
    @Test func bucketsWrittenBeforeHintsStillAnswer() throws {
        let feed = try TestSupport.generatedFeed("v3ids", rows: 6000, perFile: 3000, overlap: 0.2, seed: 683)
        let path = TestSupport.tempDir("v3ids-\(UUID().uuidString)") + "/store"
        let store = try Store.openOrCreate(path: path, partitioning: .month)
        try store.load([feed])
        for (bucket, name) in store.manifest.idBuckets.enumerated() {
            guard let name else { continue }
            let hashes = try IdHashes.read(path: path + "/ids/" + name, bucket: bucket, partitioning: .month)
            try FileIO.writeFile(path + "/ids/" + name, hashes.fileBytesV3())
        }
        let old = try Store(path: path)
        let batch = try TestSupport.allRows(old)
        let quakes = (0..<batch.count).map { Quake(batch: batch, row: $0) }
        let ids = quakes.map(\.id)
        var rng = SplitMix64(seed: 684)
        #expect(try old.verify().rows == quakes.count)
        try IdPointReadTests.expectPointReads(old, IdPointReadTests.draw(ids, 50, &rng), "v3 buckets")
        let minutes = TestSupport.tempDir("v3ids-min") + "/minutes.csv"
        let moved = IdPointReadTests.minuteMoves(quakes, picks: 300, seed: 685, to: minutes)
        try old.load([minutes])
        let after = try Store(path: path)
        #expect(try after.verify().rows == quakes.count)
        try IdPointReadTests.expectPointReads(after, moved, "v3 buckets, then moves")
        try IdPointReadTests.expectPointReads(after, IdPointReadTests.draw(ids, 50, &rng), "v3 buckets, then moves")
        var rewritten = 0
        for name in after.manifest.idBuckets.compactMap({ $0 }) {
            let file = try MappedFile(path: path + "/ids/" + name)
            if withExtendedLifetime(file, { IdBucketFile.isV4(file.bytes) }) { rewritten += 1 }
        }
        #expect(rewritten > 0, "the load wrote v4 buckets")
    }

    /// A flipped byte in the block an id's entry lies in is an error naming the file, never a
    /// row left out.
    @Test func aDamagedBlockIsAnError() throws {
        let feed = try TestSupport.generatedFeed("dmgids", rows: 4000, perFile: 4000, overlap: 0, seed: 686)
        let path = TestSupport.tempDir("dmgids-\(UUID().uuidString)") + "/store"
        let store = try Store.openOrCreate(path: path, partitioning: .month)
        try store.load([feed])
        let id = try #require(try TestSupport.allRows(store).text[Column.id.rawValue].string(7))
        var text = id
        let hash = text.withUTF8 { IdHashes.hash(UnsafeRawBufferPointer($0)) }
        let name = try #require(store.manifest.idBuckets[IdHashes.bucket(hash)])
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/ids/" + name)))
        bytes[min(40, bytes.count / 4)] ^= 0x10
        try FileIO.writeFile(path + "/ids/" + name, bytes)
        let damaged = try Store(path: path)
        #expect(throws: QuakeError.self) { try damaged.count(.oneOf(.id, [id])) }
    }

    /// Windows against a naive list of spans: membership, meeting and covering.
    @Test func timeWindowsMatchANaiveList() {
        var rng = SplitMix64(seed: 687)
        for _ in 0..<200 {
            let ranges: [Range<Int64>] = (0..<Int(rng.next() % 12)).map { _ in
                let start = Int64(rng.next() % 1000)
                return start..<(start + Int64(rng.next() % 60))
            }
            let windows = TimeWindows(ranges)
            for index in windows.spans.indices.dropFirst() {
                #expect(windows.spans[index - 1].upperBound < windows.spans[index].lowerBound)
            }
            for _ in 0..<50 {
                let least = Int64(rng.next() % 1100) - 50
                let greatest = least + Int64(rng.next() % 80)
                let naiveMeets = ranges.contains { !$0.isEmpty && $0.lowerBound <= greatest && least < $0.upperBound }
                #expect(windows.meets(least, greatest) == naiveMeets)
                #expect(windows.contains(least) == ranges.contains { $0.contains(least) })
                let naiveCovers = (least...greatest).allSatisfy { time in ranges.contains { $0.contains(time) } }
                #expect(windows.covers(least, greatest) == naiveCovers)
                let clipped = windows.spans(meeting: least, greatest).reduce(0) { $0 + $1.count }
                let naiveClipped = (least...greatest).filter { time in ranges.contains { $0.contains(time) } }.count
                #expect(clipped == naiveClipped)
            }
        }
    }
}
