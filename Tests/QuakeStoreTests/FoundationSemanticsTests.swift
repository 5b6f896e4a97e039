import Foundation
import Testing
@testable import QuakeStore
import QuakeFormat
import QuakeTestSupport

/// The library's answers against Foundation's own: `Predicate.evaluate` over every stored event,
/// and `sorted(using:)` with the event id (lexically) as the last key, on generated and real data.
@Suite struct FoundationSemanticsTests {
    /// Every stored event the library shows by default (tombstones left out), as Foundation sees them.
    static func all(_ s: Store) throws -> [Quake] {
        try s.fetch(FetchDescriptor<Quake>())
    }

    static let sorts: [[SortDescriptor<Quake>]] = [
        [SortDescriptor(\Quake.magnitude)],
        [SortDescriptor(\Quake.magnitude, order: .reverse)],
        [SortDescriptor(\Quake.depth), SortDescriptor(\Quake.time, order: .reverse)],
        [SortDescriptor(\Quake.updated)],
        [SortDescriptor(\Quake.place)],
        [SortDescriptor(\Quake.place, comparator: .lexical)],
        [SortDescriptor(\Quake.net, comparator: .lexical, order: .reverse), SortDescriptor(\Quake.magnitude)],
        [SortDescriptor(\Quake.time, order: .reverse)],
    ]

    /// Compares the sorts over the events before `cutoff` whose magnitude is below 3 (or nil).
    static func checkSorts(_ s: Store, _ rows: [Quake], before cutoff: Date = .distantFuture) throws {
        let p = #Predicate<Quake> { ($0.magnitude ?? 0) < 3 && $0.time < cutoff }
        let matching = try rows.filter { try p.evaluate($0) }
        for sort in sorts {
            let want = matching.sorted(using: sort + [SortDescriptor(\Quake.id, comparator: .lexical)]).map(\.id)
            var d = FetchDescriptor<Quake>(predicate: p, sortBy: sort)
            #expect(try s.fetch(d).map(\.id) == want, "\(sort.count) keys, first \(sort[0].order)")
            for (offset, limit) in [(0, 25), (7, 40), (want.count / 2, 100), (max(0, want.count - 5), 50)] {
                d.fetchOffset = offset
                d.fetchLimit = limit
                #expect(try s.fetchIdentifiers(d) == Array(want.dropFirst(offset).prefix(limit)))
            }
            var paged: [String] = []
            d.fetchOffset = 3
            d.fetchLimit = nil
            try s.enumerate(d, batchSize: 97) { paged.append($0.id) }
            #expect(paged == Array(want.dropFirst(3)), "enumerate across the nil and non-nil runs")
        }
    }

    @Test func sortsMatchSortedUsingOnGeneratedData() throws {
        let f = Fixtures.generated
        try Self.checkSorts(f.store, try Self.all(f.store))
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func sortsMatchSortedUsingOnRealFeeds() throws {
        let f = try #require(Fixtures.real)
        let rows = try Self.all(f.store)
        #expect(rows.contains { $0.magnitude == nil }, "the real feeds hold events without a magnitude")
        // about 8,000 events: the orders run in memory re-sort them for every page
        let times = rows.map(\.time).sorted()
        try Self.checkSorts(f.store, rows, before: times[min(times.count - 1, 8000)])
    }

    static let unwraps: [Predicate<Quake>] = [
        #Predicate<Quake> { $0.magnitude! >= 4.5 },
        #Predicate<Quake> { $0.magnitude != nil && $0.magnitude! >= 4.5 },
        #Predicate<Quake> { $0.magnitude == nil || $0.magnitude! > 2 },
        #Predicate<Quake> { $0.magnitude! * 2 > 9 },
        { () -> Predicate<Quake> in
            let epoch = Date(timeIntervalSince1970: 0)
            return #Predicate<Quake> { $0.time > epoch && $0.felt! > 10 }
        }(),
        #Predicate<Quake> { !($0.depth! < 5) },
        #Predicate<Quake> { $0.net! == "us" },
    ]

    /// Whatever Foundation's evaluate does over the rows (answer or throw), the fetch does too.
    static func checkUnwraps(_ s: Store, _ rows: [Quake]) throws {
        for (k, p) in unwraps.enumerated() {
            let want: [String]? = try? rows.filter { try p.evaluate($0) }.map(\.id).sorted()
            let d = FetchDescriptor<Quake>(predicate: p)
            if let want {
                #expect(try s.fetch(d).map(\.id).sorted() == want, "predicate \(k)")
                #expect(try s.fetchCount(d) == want.count, "predicate \(k)")
            } else {
                let e = #expect(throws: QuakeError.self, "predicate \(k): evaluate throws") { _ = try s.fetch(d) }
                #expect(e?.kind == .predicateFailed, "predicate \(k)")
                let c = #expect(throws: QuakeError.self) { _ = try s.fetchCount(d) }
                #expect(c?.kind == .predicateFailed, "predicate \(k)")
            }
        }
    }

    @Test func forceUnwrapsMeanWhatEvaluateMeansOnGeneratedData() throws {
        let f = Fixtures.generated
        let rows = try Self.all(f.store)
        #expect(rows.contains { $0.felt == nil }, "the fixture has nil felt values to trip on")
        try Self.checkUnwraps(f.store, rows)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func forceUnwrapsMeanWhatEvaluateMeansOnRealFeeds() throws {
        let f = try #require(Fixtures.real)
        try Self.checkUnwraps(f.store, try Self.all(f.store))
    }

    @Test func callerInputNeverTraps() throws {
        let s = Fixtures.generated.store
        var d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\Quake.magnitude, order: .reverse)])
        d.fetchLimit = .max
        d.propertiesToFetch = [\Quake.magnitude]
        let n = try s.fetchCount(FetchDescriptor<Quake>())
        #expect(try s.fetch(d).count == n)
        d.fetchOffset = .max
        #expect(try s.fetch(d).isEmpty)
        var seen = 0
        try s.enumerate(FetchDescriptor<Quake>(), batchSize: .max) { _ in seen += 1 }
        #expect(seen == n)
        let sections = try s.fetchSections(FetchDescriptor<Quake>(), by: .value(.net), limitPerSection: .max)
        #expect(sections.reduce(0) { $0 + $1.count } == n)
    }

    @Test func badArgumentsAreInvalidArgumentsNotCorruption() throws {
        let s = Fixtures.generated.store
        func kind(_ body: () throws -> Void) -> QuakeError.Kind? {
            do { try body(); return nil } catch let e as QuakeError { return e.kind } catch { return nil }
        }
        var d = FetchDescriptor<Quake>()
        d.fetchOffset = -5
        #expect(kind { _ = try s.fetch(d) } == .invalidArgument)
        d.fetchOffset = nil
        d.fetchLimit = -1
        #expect(kind { _ = try s.fetchCount(d) } == .invalidArgument)
        #expect(kind { try s.enumerate(FetchDescriptor<Quake>(), batchSize: 0) { _ in } } == .invalidArgument)
        #expect(kind { _ = try s.fetchSections(FetchDescriptor<Quake>(), by: .value(.net), limitPerSection: -1) }
            == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [], metrics: [.avg(.net)]) } == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [.bin(.net, width: 1)], metrics: [.count]) } == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [.bin(.mag, width: 0)], metrics: [.count]) } == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [.bin(.mag, width: -1)], metrics: [.count]) } == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [], metrics: [.percentile(150, .mag)]) } == .invalidArgument)
        #expect(kind { _ = try s.aggregate(nil, by: [.value(.mag)], metrics: [.count]) } == .invalidArgument)
        let sorted = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\Quake.timeMilliseconds)])
        #expect(kind { _ = try s.fetch(sorted) } == .unsupportedSort)
    }

    @Test func sectionsOfAPageHoldExactlyThePage() throws {
        let s = Fixtures.generated.store
        var d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\Quake.time, order: .reverse)])
        d.fetchOffset = 120
        d.fetchLimit = 300
        let page = try s.fetch(d)
        let sections = try s.fetchSections(d, by: .time(.day), limitPerSection: nil)
        #expect(sections.flatMap(\.elements).map(\.id) == page.map(\.id), "sections in page order, newest day first")
        let all = try s.fetchSections(FetchDescriptor<Quake>(), by: .time(.day))
        let totals = Dictionary(all.map { ($0.id ?? "", $0.totalCount) }, uniquingKeysWith: { a, _ in a })
        for sec in sections { #expect(sec.totalCount == totals[sec.id ?? ""], "the whole day's count") }
    }

    @Test func unfetchedPropertiesAreNilAndCoordinatesAreReal() throws {
        var d = FetchDescriptor<Quake>()
        d.propertiesToFetch = [\Quake.place]
        d.fetchLimit = 50
        let full = try Fixtures.generated.store.fetch(FetchDescriptor<Quake>(sortBy: [SortDescriptor(\Quake.time)]))
        for (q, w) in zip(try Fixtures.generated.store.fetch(d), full) {
            #expect(q.latitude == w.latitude && q.longitude == w.longitude && q.time == w.time && q.place == w.place)
            #expect(q.magnitude == nil && q.depth == nil && q.net == nil)
        }
    }

    @Test func searchTextIgnoresCaseAndDiacritics() throws {
        let s = Fixtures.generated.store
        let rows = try Self.all(s)
        for text in ["alaska", "CA", "hawaii", "são"] {
            var d = FetchDescriptor<Quake>()
            d.searchText = text
            let needle = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            let want = rows.filter {
                ($0.place ?? "").folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).contains(needle)
            }
            #expect(try s.fetchCount(d) == want.count, "\(text)")
        }
    }
}
