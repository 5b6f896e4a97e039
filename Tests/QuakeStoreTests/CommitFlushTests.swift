import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// A small commit flushes the files its snapshot names and the last did not, one by one, not
/// the whole file system: every file a load leaves in the store must then be one of those, or
/// one written durably by itself (the catalog, copies of history ids).
@Suite struct CommitFlushTests {
    /// Files of the store's three folders, store-relative.
    private static func files(_ store: Store) -> Set<String> {
        var out: Set<String> = []
        for folder in ["partitions", "ids", "history"] {
            for name in FileIO.list(store.path + "/" + folder) { out.insert(folder + "/" + name) }
        }
        return out
    }

    @Test func everyFileALoadLeavesIsNamedByItsSnapshot() throws {
        let feed = try DirectPartitionsTests.generate("commit-flush", rows: 6_000, perFile: 3_000, overlap: 0,
                                                      seed: 7101)
        let names = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted()
        let store = try Store.openOrCreate(path: TestSupport.tempDir("commit-flush-store"), partitioning: .month)
        try store.load([feed + "/" + names[0]])
        let dir = TestSupport.tempDir("commit-flush-edits")
        // a bulk insert, an update in place, a move, and an update of real rows twice over
        var steps = [feed + "/" + names[1]]
        for (k, edit) in [InPlaceUpdateTests.Edit.magnitude, .move, .place, .insert].enumerated() {
            let path = dir + "/edit-\(k).csv"
            try InPlaceUpdateTests.write(edit, of: feed + "/" + names[k % 2], picks: [1, 12][k % 2],
                                         seed: 7_110 + UInt64(k), to: path)
            steps.append(path)
        }
        var flushedOneByOne: [Bool] = []
        for step in steps {
            let before = store.manifest
            let listed = Self.files(store)
            let summary = try store.load([step])
            #expect(summary.committed)
            let after = store.manifest
            let created = Self.files(store).subtracting(listed)
            let named = after.liveFiles.subtracting(before.liveFiles)
            let durable = created.filter { name in
                name.hasSuffix("." + HistoryReference.fileExtension) || name == "partitions/" + (after.catalog ?? "")
            }
            #expect(created.subtracting(named).subtracting(durable).isEmpty,
                    "\(step): \(created.subtracting(named).subtracting(durable).sorted()) not flushed")
            #expect(named.isSubset(of: Self.files(store)))
            flushedOneByOne.append(named.count <= Store.flushedOneByOne)
            #expect(try store.verify().rows == after.rows)
        }
        // the bulk insert writes every id bucket (a syncfs); each edit, a few files one by one
        #expect(flushedOneByOne == [false] + Array(repeating: true, count: steps.count - 1))
    }
}
