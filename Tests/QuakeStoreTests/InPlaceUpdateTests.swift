import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator
import Synchronization

/// A partition whose events are all updated where they stand is rewritten from its old file,
/// encoding only the columns that changed. Whatever the change, the store must be the one the
/// whole merge writes: every partition, catalog, projection and id-index file byte for byte,
/// the same rows, history and counts, on generated and on real feeds.
@Suite struct InPlaceUpdateTests {
    /// What a step of edits does to the rows it picks.
    enum Edit: CaseIterable {
        /// A magnitude 0.1 higher and a later `updated`.
        case magnitude
        /// A new place text (its locality new to the store) and a later `updated`.
        case place
        /// The time 1 ms later (the order mostly stays; where a neighbour is that close it does not).
        case nudge
        /// The status `deleted`.
        case deleted
        /// A magnitude of 9.6: the projection's rows change.
        case strongest
        /// A magnitude 0.05 higher, of rows among the strongest fiftieth of the file: the rows at the
        /// top stay at their places, and the projection is patched.
        case strongMagnitude
        /// The stored row again, unchanged.
        case same
        /// Only some columns carried (time, place, depth, magnitude, id, updated): the other fields keep
        /// their stored values and the provenance changes.
        case partial
        /// A new event beside updates: that partition is merged whole.
        case insert
        /// The time 40 days later: the event moves to another partition.
        case move
    }

    /// What one step left in a store: counts, every file the manifest names with its bytes, the
    /// rows, and the step's history.
    struct Snapshot: Equatable {
        var counts: [Int]
        var files: [String: [UInt8]]
        var rows: RowBatch
        var changes: [HistoryChange]
    }

    /// Loads `base`, then each step, into a store that updates in place and one that merges
    /// whole; every step must leave the two the same. Returns each step's partitions updated in
    /// place, and what it did with the magnitude projection (the whole merge never patches it).
    static func compare(base: [String], steps: [String], partitioning: Partitioning = .month,
                        blockRows: Int = Manifest.defaultBlockRows) throws -> [(Int, Store.TopRowsBuild)] {
        let root = TestSupport.tempDir("inplace-\(UUID().uuidString)")
        let inPlace = try Store.openOrCreate(path: root + "/a", partitioning: partitioning, blockRows: blockRows)
        let whole = try Store.openOrCreate(path: root + "/b", partitioning: partitioning, blockRows: blockRows)
        var counts: [(Int, Store.TopRowsBuild)] = []
        for (k, paths) in ([base] + steps.map { [$0] }).enumerated() {
            var options = LoadOptions()
            options.batchRows = 1000
            let updated = try snapshot(inPlace, paths, options)
            options.updatesInPlace = false
            let merged = try snapshot(whole, paths, options)
            #expect(updated.snapshot.counts == merged.snapshot.counts, "step \(k)")
            #expect(updated.snapshot.files.keys.sorted() == merged.snapshot.files.keys.sorted(), "step \(k)")
            for (name, bytes) in merged.snapshot.files {
                #expect(updated.snapshot.files[name] == bytes, "step \(k): \(name) differs")
            }
            #expect(updated.snapshot.rows == merged.snapshot.rows, "step \(k)")
            #expect(updated.snapshot.changes == merged.snapshot.changes, "step \(k)")
            #expect(merged.inPlace == 0)
            #expect(merged.projection != .patched, "step \(k)")
            #expect(try inPlace.verify().rows == inPlace.manifest.rows)
            counts.append((updated.inPlace, updated.projection))
        }
        #expect(inPlace.manifest.top?.rows == whole.manifest.top?.rows)
        return counts.dropFirst().map { $0 }
    }

    private static func snapshot(_ store: Store, _ paths: [String], _ options: LoadOptions) throws
        -> (snapshot: Snapshot, inPlace: Int, projection: Store.TopRowsBuild) {
        let summary = try store.load(paths, options: options)
        let manifest = store.manifest
        var names = manifest.partitions.map { "partitions/" + $0.file }
        names += manifest.idBuckets.compactMap { $0.map { "ids/" + $0 } }
        if let catalog = manifest.catalog { names.append("partitions/" + catalog) }
        if let top = manifest.top { names.append("partitions/" + top.file) }
        var files: [String: [UInt8]] = [:]
        for name in names {
            files[name] = try FileIO.readFile(store.path + "/" + name, limit: Int.max)
        }
        var changes: [HistoryChange] = []
        if summary.committed {
            try store.forEachChange(generation: manifest.generation) { changes.append($0) }
        }
        let counts = [summary.rowsRead, summary.new, summary.updated, summary.unchanged, summary.rejected,
                      summary.committed ? 1 : 0]
        return (Snapshot(counts: counts, files: files, rows: try TestSupport.allRows(store), changes: changes),
                summary.partitionsUpdatedInPlace, summary.projection)
    }

    /// Writes a CSV of `edit` applied to `picks` rows of `csv` drawn with `seed`.
    static func write(_ edit: Edit, of csv: String, picks: Int, seed: UInt64, to path: String) throws {
        let rows = NaiveCSV.parse(try String(contentsOfFile: csv, encoding: .utf8))
        let header = rows[0]
        let body = rows.dropFirst().filter { $0.count == header.count }
        func column(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
        var rng = SplitMix64(seed: seed)
        var pool = Array(0..<body.count)
        if edit == .strongMagnitude {
            let mags = body.map { Double($0[column("mag")]) ?? -.infinity }
            let cut = mags.sorted()[mags.count * 49 / 50]
            pool = pool.filter { mags[$0] > cut }
        }
        var picked: [Int: [String]] = [:]
        while picked.count < min(picks, pool.count) {
            let k = pool[Int(rng.next() % UInt64(pool.count))]
            picked[k] = body[body.startIndex + k]
        }
        let carried = edit == .partial ? ["time", "latitude", "longitude", "depth", "mag", "id", "updated"] : header
        var lines = [carried.joined(separator: ",")]
        for (k, original) in picked.sorted(by: { $0.key < $1.key }) {
            var fields = original
            let updated = (Timestamp.parse(fields[column("updated")]) ?? 0) + 86_400_000
            let time = Timestamp.parse(fields[column("time")]) ?? 0
            let mag = Double(fields[column("mag")]) ?? 1
            if edit != .same { fields[column("updated")] = Timestamp.string(updated) }
            switch edit {
            case .magnitude, .partial: fields[column("mag")] = String(format: "%.2f", mag + 0.1)
            case .place: fields[column("place")] = "\(k % 90) km NNE of Edited Place \(k % 7), Testland"
            case .nudge: fields[column("time")] = Timestamp.string(time + 1)
            case .deleted: fields[column("status")] = "deleted"
            case .strongest: fields[column("mag")] = "9.6"
            case .strongMagnitude: fields[column("mag")] = String(format: "%.2f", mag + 0.05)
            case .same: break
            case .insert:
                fields[column("mag")] = String(format: "%.2f", mag + 0.1)
                if k % 3 == 0 { fields[column("id")] = "zz" + fields[column("id")] }
            case .move: fields[column("time")] = Timestamp.string(time + 40 * 86_400_000)
            }
            lines.append(carried.map { quoted(fields[column($0)]) }.joined(separator: ","))
        }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: path)
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(",") || field.contains("\"") else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Every edit, one step each, on a generated store of three snapshots over two years.
    @Test func everyEditOnGeneratedFeedsWritesTheWholeMergesBytes() throws {
        let feed = try DirectPartitionsTests.generate("inplace", rows: 12_000, perFile: 4_000, overlap: 0, seed: 6801)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted().map { feed + "/" + $0 }
        let dir = TestSupport.tempDir("inplace-edits")
        var steps: [String] = []
        for (k, edit) in Edit.allCases.enumerated() {
            let path = dir + "/edit-\(k).csv"
            try Self.write(edit, of: files[k % files.count], picks: k % 2 == 0 ? 1 : 40, seed: 6_810 + UInt64(k), to: path)
            steps.append(path)
        }
        // a second round on the edited store: updates of updated rows, and of one row twice
        steps.append(contentsOf: steps.prefix(3))
        let inPlace = try Self.compare(base: files, steps: steps)
        for (k, edit) in Edit.allCases.enumerated() {
            switch edit {
            case .magnitude, .place, .deleted, .strongest, .partial:
                #expect(inPlace[k].0 > 0, "\(edit) was not updated in place")
            case .strongMagnitude:
                #expect(inPlace[k].0 > 0 && inPlace[k].1 == .patched, "the rows at the top stayed at their places")
            case .same:
                #expect(inPlace[k].0 == 0, "an unchanged row wrote a partition")
            case .nudge, .insert, .move:
                break
            }
        }
    }

    /// Magnitude and place edits of real feeds (mixed decimals, long places, deleted rows).
    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func realFeedsUpdatedInPlaceWriteTheWholeMergesBytes() throws {
        let names = ["csv_2019-06-19_2019-07-19_3121.csv", "csv_2021-05-17_2021-06-16_12887.csv"]
        let files = try names.map { try #require(TestSupport.usgs($0)) }
        let dir = TestSupport.tempDir("inplace-real")
        var steps: [String] = []
        let edits = [Edit.magnitude, .place, .partial, .strongest, .deleted, .magnitude, .strongMagnitude]
        for (k, edit) in edits.enumerated() {
            let path = dir + "/edit-\(k).csv"
            try Self.write(edit, of: files[k % files.count], picks: [1, 25, 300][k % 3], seed: 6_820 + UInt64(k), to: path)
            steps.append(path)
        }
        let inPlace = try Self.compare(base: files, steps: steps, partitioning: .day)
        #expect(inPlace.allSatisfy { $0.0 > 0 })
        #expect(inPlace.last?.1 == .patched)
    }

    /// Partitions of several blocks (years of 10,000 rows in blocks of 4,096): edits in the
    /// first, middle and last block, and the rows read alone against the whole partition's.
    /// Finding the updated rows among the rows at the incoming versions' times, and the ids beside
    /// each patched row, against every id of the partition decoded: random picks from partitions
    /// of several blocks with runs of equal times, at their stored time, moved, and unknown.
    @Test func locatingAtTheIncomingTimesAgreesWithEveryId() throws {
        let feed = try DirectPartitionsTests.generate("inplace-locate", rows: 20_000, perFile: 20_000, overlap: 0,
                                                      seed: 6803)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted().map { feed + "/" + $0 }
        let store = try Store.openOrCreate(path: TestSupport.tempDir("inplace-locate-store") + "/s",
                                           partitioning: .year, blockRows: 4096)
        try store.load(files)
        var rng = SplitMix64(seed: 68_031)
        var fast = 0
        for entry in store.manifest.partitions {
            let reader = PartitionReader(storePath: store.path, entry: entry)
            let blockRows = try reader.directory().blockRows
            let times = try reader.ints(.time)
            let ids = try reader.arena(.id)
            let stored = try reader.rows(at: Array(0..<entry.rows))
            for trial in 0..<30 {
                let picks = (0..<(1 + Int(rng.next() % 12))).map { _ in Int(rng.next() % UInt64(entry.rows)) }
                var incoming = stored.gather(picks)
                if trial % 3 == 1 {
                    // one pick moved by a millisecond: not stored at its incoming time
                    incoming.ints[Column.time.rawValue][0] += 1
                } else if trial % 3 == 2 {
                    var other = ByteArena()
                    for row in 0..<incoming.count {
                        other.append(row == 0 ? Array("zz-unknown".utf8) : Array(incoming.text[Column.id.rawValue]
                            .bytes[incoming.text[Column.id.rawValue].range(row)]))
                    }
                    incoming.text[Column.id.rawValue] = other
                }
                let naive = MergePass.locate(incoming, in: ids)
                let atTimes = try MergePass.locate(incoming, at: times, reader: reader, blockRows: blockRows)
                if let atTimes {
                    fast += 1
                    #expect(atTimes == naive, "partition \(entry.file) trial \(trial)")
                } else {
                    // refused only where some incoming (id, time) is not a stored row
                    let everyPairStored = (0..<incoming.count).allSatisfy { row in
                        guard let at = naive?[row] else { return false }
                        return times[at] == incoming.ints[Column.time.rawValue][row]
                    }
                    #expect(!everyPairStored, "partition \(entry.file) trial \(trial): refused")
                }
                // the ids beside patched rows order them as every id does
                let patches = Set(picks).sorted().map { MergePass.Patch(row: $0, folded: 0, stored: 0) }
                let beside = try MergePass.neighbourIds(patches, rows: entry.rows, reader: reader, blockRows: blockRows)
                var moved = times
                for patch in patches where rng.next() % 2 == 0 {
                    moved[patch.row] = times[max(0, patch.row - 1)]
                }
                #expect(MergePass.keepsOrder(patches, times: moved, ids: beside)
                    == MergePass.keepsOrder(patches, times: moved, ids: ids), "partition \(entry.file) trial \(trial)")
            }
        }
        #expect(fast == 10 * store.manifest.partitions.count, "the picks at their stored times are all found there")
    }

    /// A damaged old projection is never patched into a new one: the commit leaves the store
    /// without one (queries then read the partitions), and `verify` passes.
    @Test func aDamagedProjectionIsNotPatched() throws {
        let feed = try DirectPartitionsTests.generate("inplace-damaged-top", rows: 12_000, perFile: 12_000,
                                                      overlap: 0, seed: 6804)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted().map { feed + "/" + $0 }
        let dir = TestSupport.tempDir("inplace-damaged-top-edits")
        for damaged in [false, true] {
            let store = try Store.openOrCreate(path: dir + "/s-\(damaged)", partitioning: .month)
            try store.load(files)
            let top = try #require(store.manifest.top)
            if damaged {
                // a byte in the middle of the depth column, which the edit leaves as it was
                let chunk = try PartitionReader(storePath: store.path, entry: top.entry).blocks(.depth)[0]
                let path = store.path + "/partitions/" + top.file
                var bytes = try FileIO.readFile(path, limit: Int.max)
                bytes[chunk.offset + chunk.length / 2] ^= 0x5A
                try FileIO.writeFile(path, bytes)
            }
            try Self.write(.strongMagnitude, of: files[0], picks: 3, seed: 6_840, to: dir + "/edit.csv")
            let messages = Messages()
            var options = LoadOptions()
            options.onMessage = { messages.add($0) }
            let summary = try store.load([dir + "/edit.csv"], options: options)
            #expect(summary.updated == 3)
            #expect(summary.projection == (damaged ? .missing : .patched))
            #expect((store.manifest.top == nil) == damaged)
            #expect(messages.all.contains { $0.contains("no magnitude projection") } == damaged)
            #expect(try store.verify().rows == store.manifest.rows)
            guard damaged else { continue }
            // it stays missing through the next load, until repair builds it
            try Self.write(.magnitude, of: files[0], picks: 5, seed: 6_841, to: dir + "/edit2.csv")
            #expect(try store.load([dir + "/edit2.csv"]).projection == .missing)
            let report = try Store.repair(path: store.path)
            #expect(report.description.hasPrefix("rebuilt the magnitude projection at generation"))
            let repaired = try Store(path: store.path)
            #expect(repaired.manifest.top != nil)
            #expect(try repaired.verify().rows == repaired.manifest.rows)
        }
    }

    @Test func partitionsOfSeveralBlocks() throws {
        let feed = try DirectPartitionsTests.generate("inplace-blocks", rows: 20_000, perFile: 20_000, overlap: 0,
                                                      seed: 6802)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.sorted().map { feed + "/" + $0 }
        let dir = TestSupport.tempDir("inplace-blocks-edits")
        var steps: [String] = []
        for (k, edit) in [Edit.magnitude, .place, .partial, .deleted, .strongMagnitude].enumerated() {
            let path = dir + "/edit-\(k).csv"
            try Self.write(edit, of: files[0], picks: [1, 60][k % 2], seed: 6_830 + UInt64(k), to: path)
            steps.append(path)
        }
        let inPlace = try Self.compare(base: files, steps: steps, partitioning: .year, blockRows: 4096)
        #expect(inPlace.allSatisfy { $0.0 > 0 })
        #expect(inPlace.last?.1 == .patched)

        let store = try Store.openOrCreate(path: dir + "/store", partitioning: .year, blockRows: 4096)
        try store.load(files)
        var rng = SplitMix64(seed: 6803)
        for entry in store.manifest.partitions {
            let reader = PartitionReader(storePath: store.path, entry: entry)
            #expect(try reader.directory().blockSizes.count > 1)
            let all = try reader.readAll()
            let picks = Array(Set((0..<(1 + Int(rng.next() % 60))).map { _ in Int(rng.next() % UInt64(entry.rows)) }))
                .sorted()
            #expect(try reader.rows(at: picks) == all.gather(picks))
            #expect(try reader.rows(at: Array(0..<entry.rows)) == all)
            for c in Column.allCases {
                let image = try reader.columnImage(c)
                #expect(image.chunks.count == (try reader.directory().blockSizes.count))
                #expect(image.chunks.reduce(0) { $0 + $1.length } == image.bytes.count)
            }
        }
    }
}

/// The messages a load gives its `onMessage`, from any thread.
private final class Messages: Sendable {
    private let lines = Mutex<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}
