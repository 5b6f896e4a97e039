import Foundation
import QuakeStore
import Testing

/// What an app needs of the library: search, writes of values, maintenance, conformances.
@Suite("What an app needs")
struct AppNeedsTests {
    static let t0 = Date(timeIntervalSince1970: 1_704_153_600)   // 2024-01-02

    static func sample(_ id: String, magnitude: Double, updated: Date?) -> Quake {
        var q = Quake(id: id, time: t0.addingTimeInterval(3600), latitude: 61.25, longitude: -149.875, depth: 33.5,
                      magnitude: magnitude, place: "12 km N of Anchorage, Alaska")
        q.magType = "ml"
        q.net = "ak"
        q.nst = 17
        q.gap = 81
        q.status = "reviewed"
        q.updated = updated
        q.felt = 3
        q.title = "M \(magnitude) - Anchorage"
        return q
    }

    @Test("searchText ignores case and diacritics, ANDed with the predicate",
          arguments: ["pahala", "PĀHALA", "sao tome", "zurich", "ZÜRICH", "anchorage", "mexico", "ILE D'OLERON",
                      "krakow", "california"])
    func searchText(_ text: String) throws {
        let store = try Store(path: try Generated.smallStore.get())
        let all = try store.fetch(FetchDescriptor())
        let needle = folded(text)
        var d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.time)])
        d.searchText = text
        let reference = foundationOrder(all.filter { folded($0.place ?? "").contains(needle) }, d.sortBy)
        #expect(!reference.isEmpty)
        expectSameIds(try store.fetchIdentifiers(d), reference, text)
        d.predicate = #Predicate { ($0.magnitude ?? 0) > 3 }
        let both = all.filter { ($0.magnitude ?? 0) > 3 && folded($0.place ?? "").contains(needle) }
        expectSameIds(try store.fetchIdentifiers(d), foundationOrder(both, d.sortBy), "\(text) and magnitude > 3")
    }

    @Test("upsert then fetch returns the values; a newer version replaces, an older one does not")
    func upsert() throws {
        let store = try Generated.freshStore("upsert")
        let q = Self.sample("ak0001", magnitude: 3.1, updated: Self.t0.addingTimeInterval(7200))
        let first = try store.upsert([q])
        #expect(first.new == 1 && first.committed)
        let byId = FetchDescriptor<Quake>(predicate: #Predicate { $0.id == "ak0001" })
        #expect(try store.fetch(byId) == [q])

        var newer = q
        newer.magnitude = 3.4
        newer.updated = Self.t0.addingTimeInterval(9000)
        newer.place = "13 km N of Anchorage, Alaska"
        #expect(try store.upsert([newer]).updated == 1)
        #expect(try store.fetch(byId) == [newer])

        var older = q
        older.magnitude = 9.9
        older.updated = Self.t0
        #expect(try store.upsert([older]).unchanged == 1)
        #expect(try store.fetch(byId).first?.magnitude == 3.4)

        var bad = q
        bad.latitude = .nan
        #expect(quakeError { try store.upsert([bad]) }?.kind == .invalidArgument)
        var never = q
        never.time = Date(timeIntervalSince1970: 1e13)   // the year 318857
        #expect(quakeError { try store.upsert([never]) }?.kind == .invalidArgument)
        #expect(try store.fetch(byId).first?.magnitude == 3.4, "a refused upsert changed the store")
    }

    @Test("delete(ids:) hides the events; includesDeleted shows them as deleted; history shows both")
    func deleteAndHistory() throws {
        let store = try Generated.freshStore("delete")
        let token = store.historyToken
        let quakes = (1...3).map { Self.sample("ak00\($0)", magnitude: Double($0), updated: Self.t0) }
        try store.upsert(quakes)
        let gone = try store.delete(ids: ["ak001", "ak003", "not-stored"])
        #expect(gone.updated == 2)
        let ours = #Predicate<Quake> { $0.id.starts(with: "ak00") }
        #expect(try store.fetchIdentifiers(FetchDescriptor(predicate: ours)) == ["ak002"])
        var withDeleted = FetchDescriptor<Quake>(predicate: ours, sortBy: [SortDescriptor(\.id, comparator: .lexical)])
        withDeleted.includesDeleted = true
        let shown = try store.fetch(withDeleted)
        #expect(shown.map(\.id) == ["ak001", "ak002", "ak003"])
        #expect(shown.map(\.status) == ["deleted", "reviewed", "deleted"])
        #expect(try store.fetchCount(withDeleted) == 3)

        let history = try store.history(since: token)
        #expect(history.count == 2)
        #expect(Set(history.first?.inserted ?? []) == Set(quakes.map(\.id)))
        let deletion = try #require(history.last)
        let changed = Set(deletion.deleted + deletion.updated.map(\.id))
        #expect(changed == ["ak001", "ak003"])
        #expect(deletion.updated.allSatisfy { $0.changedFields.contains(.status) })
        #expect(try store.delete(ids: ["ak001"]).updated == 0, "deleting a tombstone again")
    }

    @Test("verify(), info() and pruneHistory(before:)")
    func maintenance() throws {
        let store = try Generated.freshStore("maintenance")
        try store.upsert([Self.sample("ak01", magnitude: 2, updated: Self.t0)])
        let report = try store.verify()
        let info = try store.info()
        #expect(report.rows == 3001)
        #expect(report.partitions == info.partitions && report.partitions >= 1)
        #expect(report.blocks > 0)
        #expect(info.rows == 3001)
        #expect(info.partitioning == "month")
        #expect(info.generation == store.historyToken.generation)
        #expect(info.historyTransactions == 2)

        #expect(try store.history().count == 2)
        let pruned = try store.pruneHistory(before: HistoryToken(generation: info.generation + 1))
        #expect(pruned.transactions == 2)
        #expect(pruned.bytes > 0)
        #expect(quakeError { _ = try store.history(since: HistoryToken(generation: 0)) }?.kind
            == .historyUnavailable)
        #expect(try store.info().historyTransactions == 0)
        #expect(try store.fetchCount(FetchDescriptor()) == 3001, "pruning history dropped data")
        try store.verify()
    }

    @Test("Store.repair(path:) rebuilds a deleted manifest.qkm")
    func repair() throws {
        let store = try Generated.freshStore("repair")
        try store.upsert([Self.sample("ak02", magnitude: 2, updated: Self.t0)])
        let ids = try store.fetchIdentifiers(FetchDescriptor())
        try FileManager.default.removeItem(atPath: store.path + "/manifest.qkm")
        #expect(quakeError { _ = try Store(path: store.path) }?.kind == .noManifest)
        let report = try Store.repair(path: store.path)
        #expect(report.rows == ids.count)
        let reopened = try Store(path: store.path)
        #expect(try reopened.fetchIdentifiers(FetchDescriptor()) == ids)
        try reopened.verify()
        #expect(quakeError { _ = try Store.repair(path: store.path) }?.kind == .nothingToRepair)
    }

    @Test("LoadProgress.total is known while reading", arguments: [false, true])
    func progressTotal(_ existing: Bool) throws {
        let store = existing ? try Generated.freshStore("progress")
            : try Store.openOrCreate(path: try Paths.temporary("progress-new").appendingPathComponent("q.store").path)
        let feed = try Paths.temporary("progress-feed").appendingPathComponent("feed.csv")
        try Generated.write(feed, rows: 50_000, prefix: "p", startDay: 19_900)
        let seen = Locked<[LoadProgress]>([])
        var options = LoadOptions()
        options.onProgress = { p in seen.update { $0.append(p) } }
        try store.load([feed.path], options: options)
        let reads = seen.value.filter { $0.phase == .read }
        #expect(!reads.isEmpty)
        #expect(reads.allSatisfy { $0.total != nil })
        let size = try #require(try FileManager.default.attributesOfItem(atPath: feed.path)[.size] as? Int)
        #expect(reads.allSatisfy { ($0.total ?? 0) >= size && $0.done <= ($0.total ?? 0) })
    }

    @Test("aggregate keys are named by property; rows are Identifiable with unique ids")
    func aggregateKeys() throws {
        let store = try Store(path: try Generated.smallStore.get())
        #expect(Metric.avg(.mag).key == "avg(magnitude)")
        #expect(GroupBy.bin(.mag, width: 0.5).key == "magnitude:0.5")
        let rows = try store.aggregate(nil, by: [.value(.net), .value(.magType), .bin(.mag, width: 1)],
                                       metrics: [.count, .avg(.mag), .percentile(90, .depth)])
        #expect(!rows.isEmpty)
        #expect(Set(rows.map(\.id)).count == rows.count)
        #expect(rows.contains { $0.keys[1] == nil }, "the nil magType group")
        #expect(rows.contains { $0.keys[2] == nil }, "the nil magnitude group")
        for row in rows {
            #expect(row[.value(.magType)] == row.keys[1])
            #expect(row["magnitude:1"] == row.keys[2])
            #expect(row[.bin(.mag, width: 1)] == row.keys[2])
            #expect(row.value("avg(magnitude)") == row.value(.avg(.mag)))
            #expect(row.value("count") == row.value(.count))
            #expect(row.value("p90(depth)") == row.value(.percentile(90, .depth)))
            #expect(row["net"] == row[.value(.net)])
        }
        let total = rows.reduce(0) { $0 + ($1.value(.count) ?? 0) }
        #expect(total == 3000)
    }

    @Test("HistoryTransaction round-trips through JSON and is Hashable")
    func historyCodable() throws {
        let store = try Generated.freshStore("codable")
        try store.delete(ids: ["uss0", "uss6"])
        let history = try store.history()
        #expect(history.count == 2)
        let data = try JSONEncoder().encode(history)
        let decoded = try JSONDecoder().decode([HistoryTransaction].self, from: data)
        #expect(decoded == history)
        #expect(Set(decoded + history).count == 2)
        #expect(Set(history.map(\.id)).count == 2)
        let token = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(history[0].token))
        #expect(token == history[0].token)
    }

    @Test("URL overloads: openOrCreate(url:), Store(url:), load([URL])")
    func urls() async throws {
        let url = try Paths.temporary("urls").appendingPathComponent("quakes.store")
        let store = try Store.openOrCreate(url: url, partitioning: .year)
        let feed = try Generated.small.get()
        #expect(try blocking { try store.load([feed]) }.new == 3000)
        let reopened = try Store(url: url)
        #expect(try await reopened.fetchCount(FetchDescriptor()) == 3000)
        #expect(try reopened.info().partitioning == "year")
        let again = try await reopened.load([feed])
        #expect(again.unchanged == 3000)
        #expect(quakeError { _ = try Store.openOrCreate(url: url, partitioning: .month) }?.kind
            == .partitioningMismatch)
    }
}
