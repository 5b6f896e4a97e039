import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import QuakeGenerator

/// The resolve pass reads, of each partition its new ids meet, only the minutes the id index
/// names for them. Those rows must hold every stored version: checked against a naive filter
/// of the times, and against a naive model of a store whose events move across minutes.
@Suite struct ResolveWindowsTests {
    /// The runs of rows found for random windows against the rows whose times fall in them,
    /// in partitions of several blocks.
    @Test func rowRunsMatchANaiveFilter() throws {
        let feed = try DirectPartitionsTests.generate("windows-runs", rows: 12_000, perFile: 12_000, overlap: 0,
                                                      seed: 6901)
        let files = FileIO.list(feed).filter { $0.hasSuffix(".csv") }.map { feed + "/" + $0 }
        let store = try Store.openOrCreate(path: TestSupport.tempDir("windows-runs-store"), partitioning: .year,
                                           blockRows: 4096)
        try store.load(files)
        var rng = SplitMix64(seed: 6902)
        var checked = 0
        var mostBlocks = 0
        for entry in store.manifest.partitions {
            let reader = PartitionReader(storePath: store.path, entry: entry)
            let blockSizes = try reader.directory().blockSizes
            mostBlocks = max(mostBlocks, blockSizes.count)
            for (block, size) in blockSizes.enumerated() {
                let times = try reader.ints(.time, block: block)
                for _ in 0..<20 {
                    // minutes of random rows (some twice, some neighbours), and a few arbitrary spans
                    var windows: [Range<Int64>] = []
                    for _ in 0..<(1 + Int(rng.next() % 6)) {
                        let time = times[Int(rng.next() % UInt64(size))]
                        let minute = time - ((time % 60_000) + 60_000) % 60_000
                        windows.append(minute..<(minute + 60_000))
                        if rng.next() % 3 == 0 { windows.append((minute + 60_000)..<(minute + 120_000)) }
                    }
                    if rng.next() % 4 == 0 {
                        let low = times[0] + Int64(rng.next() % 86_400_000)
                        windows.append(low..<(low + Int64(rng.next() % 7_200_000)))
                    }
                    let sorted = Self.disjoint(windows)
                    let runs = try ResolvePass.rowRuns(reader, block: block, rows: 0..<size, windows: sorted)
                    let naive = times.indices.filter { row in sorted.contains { $0.contains(times[row]) } }
                    #expect(runs.flatMap { Array($0) } == naive)
                    #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
                    checked += 1
                }
            }
        }
        #expect(checked >= 40)
        #expect(mostBlocks > 1)
    }

    /// Windows sorted and merged where they overlap or touch.
    private static func disjoint(_ windows: [Range<Int64>]) -> [Range<Int64>] {
        var out: [Range<Int64>] = []
        for window in windows.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, last.upperBound >= window.lowerBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, window.upperBound)
            } else {
                out.append(window)
            }
        }
        return out
    }

    /// Rounds of updates that move events by up to three minutes either way (across minute
    /// edges, now and then across a month's), some twice in a round, some again in later
    /// rounds: after every load each event is stored once, as its newest version, as a naive
    /// model of the fold says.
    @Test func eventsMovedAcrossMinutesAreFoundAgain() throws {
        let feed = try DirectPartitionsTests.generate("windows-moves", rows: 6_000, perFile: 6_000, overlap: 0,
                                                      seed: 6903)
        let name = try #require(FileIO.list(feed).first { $0.hasSuffix(".csv") })
        let file = feed + "/" + name
        let rows = NaiveCSV.parse(try String(contentsOfFile: file, encoding: .utf8))
        let header = rows[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
        var model: [String: [String]] = [:]
        for row in rows.dropFirst() where row.count == header.count { model[row[column("id")]] = row }
        let dir = TestSupport.tempDir("windows-moves-store")
        let store = try Store.openOrCreate(path: dir + "/store", partitioning: .month)
        try store.load([file])
        var rng = SplitMix64(seed: 6904)
        let ids = model.keys.sorted()
        for round in 1...5 {
            var lines = [header.joined(separator: ",")]
            for pick in 0..<40 {
                let id = ids[Int(rng.next() % UInt64(ids.count))]
                guard var fields = model[id] else { continue }
                let time = Timestamp.parse(fields[column("time")]) ?? 0
                let updated = Timestamp.parse(fields[column("updated")]) ?? 0
                let shift = Int64(rng.next() % 360_001) - 180_000
                fields[column("time")] = Timestamp.string(time + shift)
                fields[column("updated")] = Timestamp.string(updated + 3_600_000 + Int64(pick))
                fields[column("mag")] = String(format: "%.2f", Double(round) + Double(rng.next() % 90) / 100)
                model[id] = fields
                lines.append(fields.map(Self.quoted).joined(separator: ","))
            }
            let path = dir + "/round-\(round).csv"
            TestSupport.write(lines.joined(separator: "\n") + "\n", to: path)
            let summary = try store.load([path])
            #expect(summary.new == 0, "round \(round)")
            let stored = try TestSupport.allRows(store)
            #expect(stored.count == model.count, "round \(round)")
            var seen: [String: Int] = [:]
            let storedIds = stored.text[Column.id.rawValue]
            for row in 0..<stored.count {
                let id = String(decoding: storedIds.bytes[storedIds.range(row)], as: UTF8.self)
                seen[id, default: 0] += 1
                guard let want = model[id] else {
                    Issue.record("round \(round): \(id) is not in the model")
                    continue
                }
                #expect(stored.ints[Column.time.rawValue][row] == Timestamp.parse(want[column("time")]),
                        "round \(round): \(id)")
                #expect(stored.ints[Column.updated.rawValue][row] == Timestamp.parse(want[column("updated")]),
                        "round \(round): \(id)")
            }
            #expect(seen.values.allSatisfy { $0 == 1 }, "round \(round): an event stored twice")
            #expect(try store.verify().rows == model.count)
        }
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(",") || field.contains("\"") else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
