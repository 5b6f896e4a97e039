import Foundation
import QuakeStore
import Testing

/// Foundation's meaning on real feeds: every answer is compared with `Predicate.evaluate` and
/// `sorted(using:)` over every stored event.
@Suite("Foundation semantics on real feeds",
       .enabled(if: Paths.hasUSGS, "needs ../shared/usgs (real USGS feeds; see README)"))
struct SemanticsTests {
    @Test("the fixture holds the feeds, with nil magnitudes, depths and places among them")
    func fixture() throws {
        let f = try RealFeeds.shared.get()
        #expect(f.all.count > 30_000)
        #expect(f.all.contains { $0.magnitude == nil })
        #expect(f.all.contains { $0.nst == nil })
        #expect(Set(f.all.map(\.id)).count == f.all.count)
    }

    @Test("a predicate fetches what evaluate keeps, or throws predicateFailed where evaluate throws",
          arguments: PredicateShapes.names)
    func predicate(_ name: String) throws {
        let f = try RealFeeds.shared.get()
        let p = try #require(PredicateShapes.named(name))
        let d = FetchDescriptor(predicate: p)
        let kept = evaluated(p, f.all)
        let reference = kept.map { foundationOrder($0, [SortDescriptor(\.time)]) }
        let ids = Result { try f.store.fetchIdentifiers(d) }
        let count = Result { try f.store.fetchCount(d) }
        switch (reference, ids, count) {
        case (let r?, .success(let ids), .success(let n)):
            expectSameIds(ids, r, name)
            #expect(n == r.count, "\(name)")
        case (nil, .failure(let e), .failure(let e2)):
            #expect((e as? QuakeError)?.kind == .predicateFailed, "\(name): \(e)")
            #expect((e2 as? QuakeError)?.kind == .predicateFailed, "\(name): \(e2)")
        default:
            let evaluate = reference == nil ? "throws" : "keeps \(reference?.count ?? 0)"
            Issue.record("\(name): evaluate \(evaluate), fetch gives \(ids.map(\.count)), fetchCount \(count)")
        }
    }

    @Test("a predicate with a page, a sort and searchText equals Foundation's slice")
    func predicatePage() throws {
        let f = try RealFeeds.shared.get()
        var d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) >= 1.5 },
                                       sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        d.fetchOffset = 40
        d.fetchLimit = 75
        d.searchText = "hawaii"
        let kept = f.all.filter { ($0.magnitude ?? 0) >= 1.5 && folded($0.place ?? "").contains("hawaii") }
        let reference = Array(foundationOrder(kept, d.sortBy).dropFirst(40).prefix(75))
        expectSameIds(try f.store.fetchIdentifiers(d), reference, "page of hawaii")
        #expect(try f.store.fetchCount(d) == reference.count)
    }

    @Test("a sort orders as sorted(using:) with the id as the last key", arguments: SortShapes.names)
    func sort(_ name: String) throws {
        let f = try RealFeeds.shared.get()
        let sort = try #require(SortShapes.named(name))
        expectSameIds(try f.store.fetchIdentifiers(FetchDescriptor(sortBy: sort)), foundationOrder(f.all, sort), name)
        // pages and small batches over two networks' events, which hold nil magnitudes and depths
        // (a debug build enumerates 40,000 events 500 at a time in half a minute)
        let subset = #Predicate<Quake> { $0.net == "av" || $0.net == "nn" }
        let rows = try f.all.filter { try subset.evaluate($0) }
        let reference = foundationOrder(rows, sort)
        let nils = rows.filter { $0.magnitude == nil }.count
        #expect(nils > 0, "no nil magnitude in the subset")
        for (offset, limit) in [(0, 10), (max(0, nils - 5), 10), (1000, 137), (reference.count - 3, 10)] {
            var d = FetchDescriptor<Quake>(predicate: subset, sortBy: sort)
            d.fetchOffset = offset
            d.fetchLimit = limit
            expectSameIds(try f.store.fetchIdentifiers(d), Array(reference.dropFirst(offset).prefix(limit)),
                          "\(name) offset \(offset)")
        }
        var enumerated: [String] = []
        try f.store.enumerate(FetchDescriptor(predicate: subset, sortBy: sort), batchSize: 500) { q in
            enumerated.append(q.id)
        }
        expectSameIds(enumerated, reference, "\(name), enumerate")
    }

    @Test("an unfetched property is nil; id, time, latitude and longitude are real",
          arguments: ["time", "place default comparator", "magnitude reverse, depth"])
    func propertiesToFetch(_ sortName: String) throws {
        let f = try RealFeeds.shared.get()
        var d = FetchDescriptor<Quake>(sortBy: try #require(SortShapes.named(sortName)))
        d.propertiesToFetch = [\.magnitude, \.net]
        let partial = try f.store.fetch(d)
        let full = Dictionary(uniqueKeysWithValues: f.all.map { ($0.id, $0) })
        #expect(partial.count == f.all.count)
        var problems: [String] = []
        for q in partial {
            guard let w = full[q.id] else {
                problems.append("\(q.id) unknown")
                continue
            }
            if q.time != w.time || q.latitude != w.latitude || q.longitude != w.longitude {
                problems.append("\(q.id): time or coordinates differ (\(q.latitude), \(q.longitude))")
            }
            if q.magnitude != w.magnitude || q.net != w.net { problems.append("\(q.id): fetched values differ") }
            let filled = Mirror(reflecting: q).children.filter { child in
                let value = Mirror(reflecting: child.value)
                return value.displayStyle == .optional && !value.children.isEmpty
                    && child.label != "magnitude" && child.label != "net"
            }
            if !filled.isEmpty {
                problems.append("\(q.id): unfetched \(filled.compactMap(\.label).joined(separator: ", ")) not nil")
            }
        }
        #expect(problems.count == 0, "\(sortName): \(problems.count) problems, first \(problems.prefix(3))")
    }

    @Test("fetchSections with a limit and offset holds exactly fetch's events",
          arguments: [(0, 300), (120, 300), (5000, 40)])
    func sectionsPage(_ offset: Int, _ limit: Int) throws {
        let f = try RealFeeds.shared.get()
        var d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) >= 1 },
                                       sortBy: [SortDescriptor(\.time, order: .reverse)])
        d.fetchOffset = offset
        d.fetchLimit = limit
        let page = try f.store.fetchIdentifiers(d)
        let position = Dictionary(uniqueKeysWithValues: page.enumerated().map { ($1, $0) })
        let matching = f.all.filter { ($0.magnitude ?? 0) >= 1 }
        let net = Dictionary(uniqueKeysWithValues: f.all.map { ($0.id, $0.net) })
        for perSection in [nil, 3] as [Int?] {
            let sections = try f.store.fetchSections(d, by: .value(.net), limitPerSection: perSection)
            let shown = sections.flatMap { $0.map(\.id) }
            #expect(Set(shown).count == shown.count, "an event in two sections")
            #expect(Set(shown).isSubset(of: Set(page)), "an event fetch does not return")
            if perSection == nil { #expect(Set(shown) == Set(page)) }
            #expect(Set(sections.map(\.id)).count == sections.count, "section ids repeat")
            for s in sections {
                let onPage = page.filter { net[$0] ?? nil == s.id }
                #expect(s.map(\.id) == Array(onPage.prefix(perSection ?? .max)), "section \(s.id ?? "nil")")
                let positions = s.compactMap { position[$0.id] }
                #expect(positions == positions.sorted(), "section \(s.id ?? "nil") out of fetch's order")
                #expect(s.totalCount == matching.filter { $0.net == s.id }.count, "total of \(s.id ?? "nil")")
            }
        }
    }

    @Test("searchText finds the places a case- and diacritic-folded contains finds",
          arguments: ["pahala", "HAWAII", "alaska", "méxico", "CA", "Volcano", "ile", "b.c.", "  "])
    func searchText(_ text: String) throws {
        let f = try RealFeeds.shared.get()
        var d = FetchDescriptor<Quake>()
        d.searchText = text
        // blank text searches nothing: every event
        let needle = folded(text.trimmingCharacters(in: .whitespaces))
        let found = needle.isEmpty ? f.all : f.all.filter { folded($0.place ?? "").contains(needle) }
        let reference = foundationOrder(found, [SortDescriptor(\.time)])
        expectSameIds(try f.store.fetchIdentifiers(d), reference, text)
    }

    @Test("aggregates by net equal counts and averages computed in memory, keyed by property name")
    func aggregates() throws {
        let f = try RealFeeds.shared.get()
        let p = #Predicate<Quake> { ($0.depth ?? 0) < 20 }
        let rows = try f.store.aggregate(p, by: [.value(.net)], metrics: [.count, .avg(.mag), .max(.depth)])
        let kept = f.all.filter { ($0.depth ?? 0) < 20 }
        let groups = Dictionary(grouping: kept, by: \.net)
        #expect(rows.count == groups.count)
        #expect(Set(rows.map(\.id)).count == rows.count)
        for row in rows {
            let members = groups[row["net"]] ?? []
            #expect(row.value(.count) == Double(members.count), "\(row["net"] ?? "nil")")
            let mags = members.compactMap(\.magnitude)
            let avg = mags.isEmpty ? nil : mags.reduce(0, +) / Double(mags.count)
            #expect(row.value("avg(magnitude)") == row.value(.avg(.mag)))
            if let avg, let got = row.value(.avg(.mag)) {
                #expect(abs(got - avg) < 1e-9, "avg of \(row["net"] ?? "nil")")
            } else {
                #expect(avg == nil && row.value(.avg(.mag)) == nil)
            }
            #expect(row.value(.max(.depth)) == members.compactMap(\.depth).max())
        }
    }
}
