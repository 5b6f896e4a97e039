import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// Transactions whose inserted ids are those of the partition files their load wrote: listed
/// exactly as the stored ids, kept through the later loads that replace those files, and an
/// error (never a shorter list) when the copy is damaged or gone.
@Suite struct HistoryReferenceTests {
    /// A fresh store loaded from generated feeds: `files` snapshots of 6,000 events over 2023,
    /// overlapping (so ids repeat within the load and it merges) when `overlap` is above 0.
    static func loaded(files: Int, overlap: Double) throws -> (Store, [String]) {
        let dir = TestSupport.tempDir("histref")
        var o = GeneratorOptions(rows: 6000 * files)
        o.firstYear = 2023
        o.lastYear = 2023
        o.rowsPerFile = 6000
        o.overlap = overlap
        o.seed = 11
        let paths = try FeedGenerator.generate(o, into: dir + "/feed")
        let s = try Store.openOrCreate(path: dir + "/s")
        try s.load(paths)
        return (s, paths)
    }

    /// Every stored id, in byte order: what a first load inserted.
    static func storedIds(_ s: Store) throws -> [String] {
        let b = try TestSupport.allRows(s)
        let ids = b.text[Column.id.rawValue]
        return HistoryIdList.sortedOrder(ids).map { ids.string($0) ?? "" }
    }

    /// Transaction `g`'s inserted ids, in the order listed (byte order within each partition).
    static func inserted(_ s: Store, _ g: Int) throws -> [String] {
        try #require(try s.history().first { $0.generation == g }).inserted
    }

    @Test(arguments: [0.0, 0.3]) func aFirstLoadRefersToItsPartitionsAndListsEveryStoredId(_ overlap: Double) throws {
        let (s, _) = try Self.loaded(files: 3, overlap: overlap)
        let h = try HistoryFile.read(path: HistoryFile.path(store: s.path, generation: 1))
        #expect(h.sections.count >= 12 && h.sections.allSatisfy(\.reference))
        for i in h.sections.indices { #expect(try h.isReference(i)) }
        // a list per partition, sorted within it; partitions in time order, as the ids' months
        let listed = try Self.inserted(s, 1)
        #expect(listed.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } == (try Self.storedIds(s)))
        #expect(Set(listed).count == listed.count && listed.count == s.manifest.rows)
        // a few hundred bytes, where the ids themselves take tens of kilobytes
        #expect(s.historyExtent.bytes < 4096)
        try s.verify()
    }

    @Test func aReplacedPartitionKeepsItsTransactionsIdsInACopy() throws {
        let (s, paths) = try Self.loaded(files: 2, overlap: 0)
        let before = try Self.inserted(s, 1)
        let dir = (paths[0] as NSString).deletingLastPathComponent
        func files() -> [String: String] {
            Dictionary(uniqueKeysWithValues: s.manifest.partitions.map { ($0.key, $0.file) })
        }
        // every seventh event of the first half-year revised, every 35th moved two days
        let first = files()
        try s.load([try RevisedFeed.write(paths[0], into: dir, every: 7, shift: 2 * 86_400_000)])
        let replaced = first.keys.filter { files()[$0] != first[$0] }.sorted()
        #expect(s.manifest.generation == 2 && replaced.count >= 4 && replaced.count < first.count)
        for key in first.keys {
            let copied = FileIO.exists(HistoryReference.copyPath(store: s.path, generation: 1, key: key))
            #expect(copied == replaced.contains(key), "\(key)")
        }
        #expect(try Self.inserted(s, 1) == before)
        // the next commit collects the files the last one retired; the copies stay
        try s.load([try RevisedFeed.write(paths[1], into: dir, every: 11, shift: 0)])
        #expect(s.manifest.generation == 3)
        for key in replaced {
            #expect(!FileIO.exists(s.path + "/partitions/" + HistoryReference.partitionFile(key: key, generation: 1)))
        }
        #expect(try Self.inserted(s, 1) == before)
        #expect(try s.count(try s.changedFilter(since: HistoryToken(generation: 0))) == s.manifest.rows)
        try s.verify()

        // a damaged or missing copy is an error, never a shorter list
        let copy = HistoryReference.copyPath(store: s.path, generation: 1, key: replaced[0])
        let good = try Data(contentsOf: URL(fileURLWithPath: copy))
        var random = SystemRandomNumberGenerator()
        // the header, the chunk table and its checksum, a chunk's bytes: anywhere
        let offsets = [3, 20, 30, 60, good.count / 2, good.count - 1] + (0..<12).map { _ in
            Int.random(in: 0..<good.count, using: &random)
        }
        for offset in offsets {
            var bad = good
            bad[offset] ^= 0x21
            try bad.write(to: URL(fileURLWithPath: copy))
            #expect(throws: (any Error).self, "flip at \(offset)") { try Self.inserted(s, 1) }
            // verify names the damaged copy, once
            let verified = Result { try s.verify() }
            guard case .failure(let error) = verified else {
                Issue.record("verify passed a copy flipped at \(offset)")
                continue
            }
            let named = "\(error)".components(separatedBy: (copy as NSString).lastPathComponent).count - 1
            #expect(named == 1, "\(error)")
        }
        try FileManager.default.removeItem(atPath: copy)
        #expect(throws: QuakeError.self) { try s.changedFilter(since: HistoryToken(generation: 0)) }
        try good.write(to: URL(fileURLWithPath: copy))
        #expect(try Self.inserted(s, 1) == before)

        // pruning the transaction drops its copies with it (collected by the commit after)
        let bytes = s.historyExtent.bytes
        let pruned = try s.pruneHistory(before: 2)
        #expect(pruned.transactions == 1 && pruned.bytes > good.count && s.historyExtent.bytes == bytes - pruned.bytes)
        try s.load([try RevisedFeed.write(paths[0], into: dir, every: 5, shift: 0)])
        #expect(FileIO.list(s.path + "/history").allSatisfy { HistoryReference.generation(ofHistoryFile: $0) != 1 })
        try s.verify()
    }

    /// A copy in the first layout (the ids sorted, as a compressed list) still reads, as stores
    /// written before the chunk copies have them; the next commits keep it.
    @Test func aCopyInTheFirstLayoutStillReads() throws {
        let (s, paths) = try Self.loaded(files: 2, overlap: 0)
        let before = try Self.inserted(s, 1)
        let dir = (paths[0] as NSString).deletingLastPathComponent
        let first = Dictionary(uniqueKeysWithValues: s.manifest.partitions.map { ($0.key, $0) })
        try s.load([try RevisedFeed.write(paths[0], into: dir, every: 9, shift: 0)])
        let replaced = s.manifest.partitions.filter { first[$0.key]?.file != $0.file }.map(\.key)
        try #require(!replaced.isEmpty)
        for key in replaced {
            let copy = HistoryReference.copyPath(store: s.path, generation: 1, key: key)
            let chunks = try Data(contentsOf: URL(fileURLWithPath: copy))
            #expect(chunks.prefix(8) == Data("QKHIDS02".utf8))
            // the same ids, as the first layout held them: sorted and front-coded
            let entry = try #require(first[key])
            let ids = try PartitionReader(storePath: s.path, entry: entry).arena(.id)
            try Data(HistoryReference.listCopy(ids)).write(to: URL(fileURLWithPath: copy))
        }
        #expect(try Self.inserted(s, 1) == before)
        try s.load([try RevisedFeed.write(paths[1], into: dir, every: 13, shift: 0)])
        #expect(try Self.inserted(s, 1) == before)
        for key in replaced {
            let copy = HistoryReference.copyPath(store: s.path, generation: 1, key: key)
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)).prefix(8) == Data("QKHIDS01".utf8))
        }
        try s.verify()
    }

    @Test func historyFileNamesParse() {
        #expect(HistoryReference.generation(ofHistoryFile: "tx.g12.qkh") == 12)
        #expect(HistoryReference.generation(ofHistoryFile: "tx.g3.2021-06.qki") == 3)
        #expect(HistoryReference.generation(ofHistoryFile: "tx.g.qkh") == nil)
        #expect(HistoryReference.generation(ofHistoryFile: "tx.g12") == nil)
        #expect(HistoryReference.generation(ofHistoryFile: "other") == nil)
        #expect(HistoryReference.parsePartitionFile("2021-06.g4.qkp")! == ("2021-06", 4))
        #expect(HistoryReference.parsePartitionFile("2021-06-01.g40.qkp")! == ("2021-06-01", 40))
        #expect(HistoryReference.parsePartitionFile("2021-06.qkp") == nil)
        #expect(HistoryReference.parsePartitionFile("2021-06.gx.qkp") == nil)
        #expect(HistoryReference.parsePartitionFile("catalog.g2.qkc") == nil)
    }
}
