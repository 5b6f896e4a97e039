import Foundation
import QuakeStore

let store = try Store.openOrCreate(path: "quakes.store")
try store.load(["feeds/"])

// The seed app's map: one day, optional search text, largest first.
let p = Quake.predicate(searchText: "Alaska", searchDate: .now)
let map = try store.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.magnitude, order: .reverse)]))

var list = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) >= 4.5 },
                                  sortBy: [SortDescriptor(\.time, order: .reverse)])
list.fetchLimit = 50
list.searchText = "alaska"            // place, ignoring case and diacritics
list.propertiesToFetch = [\.magnitude, \.place]
let page = try store.fetch(list)
let n = try store.fetchCount(list)
try store.enumerate(list, batchSize: 5000) { quake in print(quake.id) }

// Sections, as SwiftData's sectionBy: an id, the group's total, and its events on this page.
for section in try store.fetchSections(list, by: .value(.net), limitPerSection: 10) {
    print(section.id ?? "no net", section.totalCount, section.map(\.id))
}

// Aggregates, keyed by the Quake property.
for row in try store.aggregate(p, by: [.time(.month)], metrics: [.count, .avg(.mag)]) {
    print(row[.time(.month)] ?? "", row.value(.count) ?? 0, row.value("avg(magnitude)") ?? .nan)
}

// Errors are one type, QuakeError, with a kind to switch on.
do {
    list.fetchOffset = -5
    _ = try store.fetch(list)
} catch let e as QuakeError where e.kind == .invalidArgument {
    print(e.localizedDescription)     // "fetchOffset must be 0 or more, not -5"
}

// Writes of Quake values, committed like a load; deletions are tombstones, as sync keeps.
let q = Quake(id: "xx1", time: .now, latitude: 61.2, longitude: -149.9, magnitude: 3.1, place: "Anchorage")
try store.upsert([q])
var revised = q
revised.place = nil                                   // stored as it is: nil clears the place
revised.magnitude = 3.3
revised.updated = .now
try store.upsert([revised], fields: [\.magnitude])     // a partial update: the place stays
try store.upsert([revised])                           // the whole value: the place is cleared
try store.delete(ids: ["xx1"])

// Load history, like SwiftData's fetchHistory: what each load inserted and updated.
var token = store.historyToken
try store.load(["feeds/today.csv"])
for t in try store.history(since: token) {
    print(t.generation, t.committed, t.inserted.count, t.updated.map { ($0.id, $0.changedFields) })
    token = t.token
}

// Async, off the caller's executor; cancelling the task stops a fetch or a load.
Task {
    let latest = try await store.fetch(list)
    print(latest.count)
    for try await update in store.countResults(for: list) { print(update.generation, update.result) }
}
