import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Load history against a naive diff of the store's rows before and after each load, on real
/// overlapping USGS snapshots and on edited copies that move events across partitions.
@Suite struct HistoryTests {
    /// Every stored event: id -> every column's value as text ("" for null).
    static func snapshot(_ s: Store) throws -> [String: [String]] {
        let b = try TestSupport.allRows(s)
        var out: [String: [String]] = [:]
        for i in 0..<b.count {
            let row = Column.allCases.map { ResultWriter.cell(b, $0, i) ?? "" }
            out[row[Column.id.rawValue]] = row
        }
        return out
    }

    /// The event ids of a feed file, read naively (CSV by header, GeoJSON by JSONSerialization).
    static func inputIds(_ path: String) throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        if path.hasSuffix(".geojson") {
            let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let features = obj?["features"] as? [[String: Any]] ?? []
            return Set(features.compactMap { $0["id"] as? String })
        }
        let rows = NaiveCSV.parse(String(decoding: data, as: UTF8.self))
        guard let k = rows.first?.firstIndex(of: "id") else { return [] }
        return Set(rows.dropFirst().compactMap { $0.count > k ? $0[k] : nil })
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          arguments: [Partitioning.month, .day])
    func historyEqualsTheNaiveDiffOfEachLoad(_ partitioning: Partitioning) throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let b = try #require(TestSupport.usgs("csv_2019-06-30_2019-07-07_5834.csv"))
        let c = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        let e = try #require(TestSupport.usgs("geojson_2019-01-29_2019-01-30_233.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        let r1 = try RevisedFeed.write(b, into: d, every: 7, shift: 2 * 86_400_000)
        let r2 = try RevisedFeed.write(a, into: d, every: 3, shift: -3 * 86_400_000)
        let s = try Store.openOrCreate(path: d + "/s", partitioning: partitioning)
        // per committed generation, the ids its load inserted or updated (naive diff)
        var changedAt: [Int: Set<String>] = [:]
        var transactions = 0
        for file in [a, b, c, a, e, r1, r2, c] {
            let before = try Self.snapshot(s)
            let genBefore = s.manifest.generation
            let summary = try s.load([file])
            let after = try Self.snapshot(s)
            let inserted = Set(after.keys).subtracting(before.keys)
            let updated = Set(before.keys.filter { after[$0] != before[$0] })
            let unchanged = Self.inputIdsOrEmpty(file).intersection(before.keys).subtracting(updated)
            if inserted.isEmpty && updated.isEmpty {
                #expect(!summary.committed && s.manifest.generation == genBefore, "\(file): a no-op load commits nothing")
                continue
            }
            transactions += 1
            changedAt[s.manifest.generation] = inserted.union(updated)
            let t = try #require(try s.history(since: HistoryToken(generation: genBefore)).first)
            #expect(t.generation == s.manifest.generation && t.files == [file])
            #expect(Set(t.inserted) == inserted && t.inserted.count == inserted.count, "\(file): inserted")
            #expect(Set(t.updated.map(\.id)) == updated && t.updated.count == updated.count, "\(file): updated")
            #expect(t.insertedCount == summary.new && t.updatedCount == summary.updated)
            #expect(t.unchangedCount == unchanged.count && t.unchangedCount == summary.unchanged, "\(file): unchanged")
            for u in t.updated {
                let old = before[u.id] ?? [], new = after[u.id] ?? []
                let naive = Column.allCases.filter { old[$0.rawValue] != new[$0.rawValue] }
                #expect(u.changedFields == naive, "\(u.id): changed fields")
            }
            var unchangedSeen = Set<String>()
            try s.forEachChange(generation: t.generation) { ch in if ch.kind == .unchanged { unchangedSeen.insert(ch.id) } }
            #expect(unchangedSeen == unchanged)
        }
        #expect(try s.history().count == transactions && transactions >= 5)
        try s.verify()
        // --changed-since g: the union of the naive diffs of the loads after g (an event
        // updated and later reverted was still updated)
        let all = try s.query(QuerySpec(filter: .all, sort: [SortKey(.time)], limit: nil)).quakes
        for g in 0...s.manifest.generation {
            let naive = changedAt.filter { $0.key > g }.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            let f = try s.changedFilter(since: HistoryToken(generation: g))
            let got = try s.query(QuerySpec(filter: f, sort: [SortKey(.time)], limit: nil)).quakes.map(\.id)
            #expect(Set(got) == naive && got.count == naive.count, "changed since \(g)")
            let strong = Filter.conjunction([f, .numberRange(.mag, lower: .init(2.5), upper: nil)])
            let expect = try all.filter { try Naive.matches(strong, $0) && naive.contains($0.id) }.map(\.id)
            #expect(try s.query(QuerySpec(filter: strong, sort: [SortKey(.time)], limit: nil)).quakes.map(\.id) == expect)
            #expect(try s.count(f) == naive.count)
            // reading only the changes within a filter's time bounds gives the same answer
            let july = Filter.timeRange(.time, lower: Timestamp.parse("2019-07-01T00:00:00.000Z"),
                                        upper: Timestamp.parse("2019-07-06T00:00:00.000Z"))
            let narrow = try s.changedFilter(since: HistoryToken(generation: g), within: july)
            let want = all.filter { (try? Naive.matches(july, $0)) == true && naive.contains($0.id) }.count
            #expect(try s.count(.conjunction([july, narrow])) == want && want <= naive.count, "within, since \(g)")
        }
    }

    static func inputIdsOrEmpty(_ p: String) -> Set<String> { (try? inputIds(p)) ?? [] }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func pruneDropsHistoryNotDataAndRefusesIncompleteAnswers() throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let c = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        let e = try #require(TestSupport.usgs("geojson_2019-01-29_2019-01-30_233.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: d + "/s")
        for f in [a, c, e] { try s.load([f]) }
        let rows = s.manifest.rows
        let before = s.historyExtent
        #expect(before.transactions == 3 && before.completeAfter == 0)
        let r = try s.pruneHistory(before: 3)
        #expect(r.transactions == 2 && r.bytes > 0)
        #expect(s.manifest.rows == rows && s.historyExtent.transactions == 1 && s.historyExtent.completeAfter == 2)
        #expect(s.historyExtent.bytes == before.bytes - r.bytes)
        #expect(throws: QuakeError.self) { try s.changedFilter(since: HistoryToken(generation: 1)) }
        #expect(throws: QuakeError.self) { try s.history(since: HistoryToken(generation: 0)) }
        #expect(throws: QuakeError.self) { try s.changedFilter(since: Date(timeIntervalSince1970: 0)) }
        #expect(try s.count(try s.changedFilter(since: HistoryToken(generation: 2))) == 233)
        #expect(throws: QuakeError.self) { try s.transaction(generation: 1) }
        try s.verify()
        // the pruned files are kept one generation for readers still on the old snapshot, then collected
        #expect(FileManager.default.fileExists(atPath: HistoryFile.path(store: s.path, generation: 1)))
        // a no-op load keeps them (its snapshot is the one they were retired on); the next commit collects them
        try s.load([a])
        #expect(FileManager.default.fileExists(atPath: HistoryFile.path(store: s.path, generation: 1)))
        let one = d + "/one.csv"
        let row = "2019-07-01T00:00:00.000Z,35.7,-117.6,5,2.1,ml,10,50,0.02,0.1,ci,ci0000001,"
            + "2019-07-01T01:00:00.000Z,\"Somewhere, CA\",earthquake,0.2,0.5,0.1,5,automatic,ci,ci"
        TestSupport.write(TestSupport.header22 + "\n" + row + "\n", to: one)
        try s.load([one])
        #expect(!FileManager.default.fileExists(atPath: HistoryFile.path(store: s.path, generation: 1)))
        #expect(try s.count(.all) == rows + 1)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aDamagedTransactionIsAnErrorNeverAWrongAnswer() throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let c = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        let s = try Store.openOrCreate(path: d + "/s")
        for f in [a, c] { try s.load([f]) }
        let path = HistoryFile.path(store: s.path, generation: 2)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in [20, good.count / 2, good.count - 3] {
            var bad = good
            bad[offset] ^= 0x40
            try bad.write(to: URL(fileURLWithPath: path))
            #expect(throws: (any Error).self, "flip at \(offset)") {
                let f = try s.changedFilter(since: HistoryToken(generation: 1))
                _ = try s.count(f)
            }
            #expect(throws: (any Error).self) { try s.verify() }
        }
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: (any Error).self) { try s.history(since: HistoryToken(generation: 1)) }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aRevisionTwoManifestStartsHistoryAtItsNextLoad() throws {
        let a = try #require(TestSupport.usgs("csv_2019-06-19_2019-07-19_3121.csv"))
        let c = try #require(TestSupport.usgs("geojson_2019-06-19_2019-07-19_3121.geojson"))
        try #require(FileManager.default.fileExists(atPath: a), "a real feed is missing from \(TestSupport.usgsPath)")
        let d = TestSupport.tempDir()
        var s = try Store.openOrCreate(path: d + "/s")
        try s.load([a])
        // rewrite the manifest as revision 2 wrote it: no history section, version 2
        var m = s.manifest
        m.history = HistoryRetention()
        m.catalog = nil
        m.catalogChecksum = 0
        m.top = nil
        var bytes = m.encoded()
        // checksum, revision 7's tombstone counts and (no) sync cursors, projection (empty name),
        // catalog (empty name, checksum), base generation, base time, range count
        bytes.removeLast(8 + (4 + 8 * m.partitions.count + 4) + 2 + 2 + 8 + 8 + 8 + 4)
        bytes.replaceSubrange(8..<12, with: [2, 0, 0, 0])
        var w = ByteWriter()
        w.bytes = bytes
        w.u64(Checksum.hash(bytes))
        try Data(w.bytes).write(to: URL(fileURLWithPath: d + "/s/" + Manifest.fileName))
        s = try Store(path: d + "/s")
        #expect(s.manifest.history.baseGeneration == 1 && s.manifest.history.ranges.isEmpty)
        #expect(throws: QuakeError.self) { try s.changedFilter(since: HistoryToken(generation: 0)) }
        #expect(throws: QuakeError.self) { try s.changedFilter(since: Date(timeIntervalSince1970: 0)) }
        let start = Date()
        try s.load([c])
        #expect(try s.count(try s.changedFilter(since: HistoryToken(generation: 1))) == 3121)
        // history is complete from its first transaction's commit on, not before
        let t = try #require(try s.history().first)
        #expect(t.generation == 2)
        #expect(try s.count(try s.changedFilter(since: t.committed.addingTimeInterval(-0.001))) == 3121)
        #expect(try s.count(try s.changedFilter(since: t.committed)) == 0)
        #expect(throws: QuakeError.self) { try s.changedFilter(since: start.addingTimeInterval(-1)) }
    }

    /// The prefix-keyed sort against a naive byte sort: NUL and high bytes, ids shorter than,
    /// equal to and longer than the 8-byte key, and many shared prefixes.
    @Test func idOrderEqualsANaiveByteSort() {
        var gen = SplitMix64(seed: 12)
        var ids = ByteArena()
        let alphabet: [UInt8] = [0, 1, 0x61, 0x62, 0x7F, 0x80, 0xFF]
        for _ in 0..<20000 {
            let n = Int(gen.next() % 14)
            ids.append((0..<n).map { _ in alphabet[Int(gen.next() % UInt64(alphabet.count))] })
        }
        let got = HistoryIdList.sortedOrder(ids).map { Array(ids.bytes[ids.range($0)]) }
        let naive = (0..<ids.count).map { Array(ids.bytes[ids.range($0)]) }.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(got == naive)
        #expect(Set(HistoryIdList.sortedOrder(ids)).count == ids.count)
    }

    @Test func idListsRoundTripSortedWithMasks() throws {
        var gen = SplitMix64(seed: 9)
        var ids = ByteArena()
        var masks: [UInt64] = []
        for _ in 0..<5000 {
            let n = Int(gen.next() % 12)
            ids.append((0..<n).map { _ in UInt8(97 + gen.next() % 4) })
            masks.append(gen.next())
        }
        let enc = HistoryIdList.encode(ids, masks: masks)
        let dec = try enc.bytes.withStoreBytes { (b) throws(QuakeError) in
            try HistoryIdList.decode(b, rawSize: enc.rawSize, masks: true, count: ids.count)
        }
        let naive = (0..<ids.count).map { (Array(ids.bytes[ids.range($0)]), masks[$0]) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
        #expect(dec.ids.count == naive.count)
        for (k, e) in naive.enumerated() {
            #expect(Array(dec.ids.bytes[dec.ids.range(k)]) == e.0)
        }
        // equal ids may come in either order, so compare masks as multisets per id
        #expect(dec.masks.sorted() == masks.sorted())
    }
}
