import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport

/// Foundation `#Predicate` and `SortDescriptor` through the SwiftData-shaped API: each
/// recognised shape compiles to kernels and returns what `Predicate.evaluate` returns; an
/// unrecognised shape runs on the exact slow path.
@Suite struct PredicateTranslationTests {
    static let day = Date(timeIntervalSince1970: Double(Timestamp.parse("2024-03-05")!) / 1000)
    static let next = day.addingTimeInterval(86400)

    static func check(_ p: Predicate<Quake>, kernelsOnly: Bool, sort: [SortDescriptor<Quake>] = [SortDescriptor(\Quake.time)],
                      _ comment: Comment? = nil) throws {
        let f = Fixtures.generated
        var d = FetchDescriptor<Quake>(predicate: p, sortBy: sort)
        let got = try f.store.fetch(d).map(\.id)
        let keys = try d.sortKeys()
        let want = Naive.sorted(try f.quakes.filter { try p.evaluate($0) }, keys).map(\.id)
        #expect(got == want, comment)
        #expect(try f.store.fetchCount(d) == want.count, comment)
        #expect(PredicateTranslator.filter(p).usesSlowPath == !kernelsOnly, "\(PredicateTranslator.filter(p))")
        d.fetchLimit = 7
        d.fetchOffset = 3
        #expect(try f.store.fetchIdentifiers(d) == Array(want.dropFirst(3).prefix(7)), comment)
    }

    @Test func comparisonsAndCapturedValues() throws {
        let start = Self.day, end = Self.next, m = 2.5
        try Self.check(#Predicate<Quake> { $0.time >= start && $0.time < end }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.time > start && q.time <= end && q.latitude > 30 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.longitude < -150 || q.longitude >= 170 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.magnitude ?? 0) >= m }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.magnitude ?? 10) < m }, kernelsOnly: true, "?? default that matches")
        try Self.check(#Predicate<Quake> { q in q.magnitude! > 4 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in if let mag = q.magnitude { mag > 3 } else { false } }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.depth ?? 0) <= 5 && !(q.latitude < 20) }, kernelsOnly: true)
    }

    @Test func equalityMembershipAndNil() throws {
        let net = "ak"
        try Self.check(#Predicate<Quake> { q in q.net == net }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.net != "ak" && q.status == "reviewed" }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.felt == nil }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.felt != nil && q.nst == 20 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.magType == "md" || q.magType == "mww" }, kernelsOnly: true)
    }

    @Test func placeContainsAndOptionalChaining() throws {
        let text = "Alaska"
        try Self.check(#Predicate<Quake> { q in (q.place ?? "").contains(text) }, kernelsOnly: true, sort: [SortDescriptor(\Quake.magnitude, order: .reverse)])
        try Self.check(#Predicate<Quake> { q in q.place?.contains("Pāhala") == true }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.place!.contains("km N of") }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in !(q.place ?? "").contains("CA") }, kernelsOnly: true)
    }

    @Test func unrecognisedShapesRunExactlyOnTheSlowPath() throws {
        // integer arithmetic truncates and traps in Swift: exact, row by row
        try Self.check(#Predicate<Quake> { q in (q.nst ?? 0) * 2 > 100 }, kernelsOnly: false)
        try Self.check(#Predicate<Quake> { q in q.id.starts(with: "ak") && q.latitude > 60 }, kernelsOnly: false)
        // the recognised half still runs as a kernel
        let f = PredicateTranslator.filter(#Predicate<Quake> { q in q.id.starts(with: "ak") && (q.magnitude ?? 0) > 2 })
        #expect(f.plan.kernels.count == 1 && f.plan.slowPath.count == 1)
    }

    /// Arithmetic over `Double` properties runs as a kernel, with Swift's semantics: `/` by zero
    /// is infinity or NaN, NaN fails comparisons and `!=` is the complement of `==`.
    @Test func arithmeticOverDoublesRunsAsAKernel() throws {
        let factor = 3.0
        try Self.check(#Predicate<Quake> { q in q.latitude * 2 > 100 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.magnitude ?? 0) - (q.depth ?? 0) / 10 > 1.5 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.magnitude ?? 0) * factor >= (q.depth ?? 0) }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in q.latitude > q.longitude }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in -(q.depth ?? 0) < -30 }, kernelsOnly: true)
        try Self.check(#Predicate<Quake> { q in (q.depth ?? 0) / (q.magnitude ?? 0) > 10 }, kernelsOnly: true,
                       "division by a zero default: infinity")
        try Self.check(#Predicate<Quake> { q in (q.gap ?? 0) / (q.dmin ?? 0) != 5 }, kernelsOnly: true, "0/0 is NaN")
        try Self.check(#Predicate<Quake> { q in !((q.rms ?? 0) + q.latitude <= 20) && q.magnitude! > 1 },
                       kernelsOnly: true)
        let translated = PredicateTranslator.filter(#Predicate<Quake> { q in q.latitude - q.longitude > 0 })
        guard case .arithmetic = translated else {
            Issue.record("not an arithmetic kernel: \(translated)")
            return
        }
    }

    @Test func sortDescriptorsMapToColumnsWithNullsLast() throws {
        let all = #Predicate<Quake> { _ in true }
        try Self.check(all, kernelsOnly: true, sort: [SortDescriptor(\Quake.felt, order: .reverse), SortDescriptor(\Quake.time)])
        try Self.check(all, kernelsOnly: true, sort: [SortDescriptor(\Quake.place), SortDescriptor(\Quake.magnitude, order: .reverse)])
    }

    @Test func theSeedAppsQueriesWorkAsWritten() throws {
        let f = Fixtures.generated
        for text in ["", "Alaska", "Pāhala"] {
            let p = Quake.predicate(searchText: text, searchDate: Self.day.addingTimeInterval(3600 * 5))
            #expect(!PredicateTranslator.filter(p).usesSlowPath)
            // map: one day, largest first
            let map = FetchDescriptor<Quake>(predicate: p, sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
            let got = try f.store.fetch(map).map(\.id)
            let want = Naive.sorted(try f.quakes.filter { try p.evaluate($0) }, [SortKey(.mag, ascending: false)]).map(\.id)
            #expect(got == want && (text != "" || !got.isEmpty))
            // list: by time or magnitude, in the order the user picks
            for sort in [SortDescriptor(\Quake.time, order: .reverse), SortDescriptor(\Quake.time), SortDescriptor(\Quake.magnitude)] {
                var list = FetchDescriptor<Quake>(predicate: p, sortBy: [sort])
                list.fetchLimit = 50
                let keys = try list.sortKeys()
                #expect(try f.store.fetch(list).map(\.id) == Array(Naive.sorted(try f.quakes.filter { try p.evaluate($0) }, keys).prefix(50)).map(\.id))
            }
        }
    }

    @Test func enumerateSectionsPropertiesAndAggregates() throws {
        let f = Fixtures.generated
        let p = #Predicate<Quake> { q in (q.magnitude ?? 0) >= 2 }
        let d = FetchDescriptor<Quake>(predicate: p, sortBy: [SortDescriptor(\.magnitude, order: .reverse)])
        var ids: [String] = []
        try f.store.enumerate(d, batchSize: 333) { ids.append($0.id) }
        #expect(ids == (try f.store.fetchIdentifiers(d)))
        var slim = d
        slim.propertiesToFetch = [\Quake.magnitude, \Quake.place]
        slim.fetchLimit = 5
        let rows = try f.store.fetch(slim)
        #expect(rows.count == 5 && rows.allSatisfy { $0.place != nil && $0.depth == nil && $0.url == nil })
        let sections = try f.store.fetchSections(d, by: .value(.net), limitPerSection: 2)
        #expect(sections.reduce(0) { $0 + $1.totalCount } == ids.count)
        let agg = try f.store.aggregate(p, by: [.value(.net)], metrics: [.count])
        #expect(agg.map { Int($0.values[0]!) } == sections.map(\.totalCount))
        // named access: sections carry their key and elements, aggregate rows their names
        #expect(agg.map { $0["net"] } == sections.map(\.id))
        #expect(agg.map { $0.value("count") } == sections.map { Double($0.totalCount) })
        #expect(agg.first?["mag"] == nil && agg.first?.value("avg(mag)") == nil)
        for sec in sections {
            #expect(sec.count == min(2, sec.totalCount))
            #expect(sec.allSatisfy { $0.net == sec.id })
        }
        let avg = try f.store.aggregate(p, by: [.value(.net)], metrics: [.count, .avg(.mag)])
        for row in avg {
            let mags = try f.store.fetch(FetchDescriptor(predicate: p)).filter { $0.net == row["net"] }
                .compactMap(\.magnitude)
            if let a = row.value("avg(mag)") {
                #expect(abs(a - mags.reduce(0, +) / Double(mags.count)) < 1e-9)
            } else { #expect(mags.isEmpty) }
        }
    }
}
