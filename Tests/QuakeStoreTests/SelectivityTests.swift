import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The kernel order of a conjunction follows estimated selectivity: the estimates against the
/// rows themselves, and conjunctions whose terms move against the naive reference.
@Suite struct SelectivityTests {
    /// Boxes that keep few rows against magnitude floors that keep most, and the reverse; one
    /// box narrow in longitude, so that longitude runs before latitude.
    static let filters: [Filter] = [
        .and([.numberRange(.mag, lower: .init(1), upper: nil),
              .box(minLatitude: 18, maxLatitude: 23, minLongitude: -161, maxLongitude: -154)]),
        .and([.numberRange(.mag, lower: .init(5), upper: nil),
              .box(minLatitude: 30, maxLatitude: 65, minLongitude: -170, maxLongitude: -110)]),
        .and([.numberRange(.mag, lower: .init(0.5), upper: nil),
              .box(minLatitude: -60, maxLatitude: 70, minLongitude: -150.5, maxLongitude: -149.5)]),
        .and([.numberRange(.depth, lower: nil, upper: .init(5, inclusive: false)),
              .numberRange(.mag, lower: .init(2.5), upper: nil),
              .box(minLatitude: 55, maxLatitude: 70, minLongitude: -160, maxLongitude: -140)]),
    ]

    @Test func reorderedConjunctionsMatchTheReference() throws {
        try Self.checkReordered([Fixtures.generated])
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func reorderedConjunctionsMatchTheReferenceOnRealFeeds() throws {
        try Self.checkReordered([try #require(Fixtures.real, "real feeds present but not loaded")])
    }

    /// Counts and a top 25 of each store for every filter, against the naive reference.
    static func checkReordered(_ fixtures: [Fixtures.Loaded]) throws {
        for f in fixtures {
            for filter in Self.filters {
                let want = try f.quakes.filter { try Naive.matches(filter, $0) }.count
                #expect(try f.store.count(filter) == want, "\(filter)")
                let spec = QuerySpec(filter: filter, sort: [SortKey(.mag, ascending: false)], limit: 25)
                #expect(try f.store.query(spec, columns: [.id]).ids == (try Naive.query(f.quakes, spec)).map(\.id))
            }
        }
    }

    /// A mag estimate is the exact share (the histograms); a box estimate from its sample lies
    /// within a wide margin of the true share on every window of the generated store (whose
    /// blocks hold one window each: see the next test for blocks of several).
    @Test func estimatesFollowTheRows() throws {
        let f = Fixtures.generated
        let executor = QueryExecutor(store: f.store)
        let mag = Filter.numberRange(.mag, lower: .init(1.5), upper: nil)
        let box = Filter.box(minLatitude: 50, maxLatitude: 72, minLongitude: -170, maxLongitude: -130)
        var windows = 0
        for p in executor.manifest.partitions.indices {
            var stats = QueryStats()
            for u in try executor.units(p, .all, merge: false, stats: &stats) {
                let d = executor.data(u)
                let kept = try d.select(mag, .all(d.rows)).count
                #expect(abs(d.selectivity(mag) - Double(kept) / Double(d.rows)) < 1e-9)
                let inBox = Double(try d.select(box, .all(d.rows)).count) / Double(d.rows)
                #expect(abs(d.selectivity(box) - inBox) < 0.4, "window of \(d.rows) rows: \(inBox)")
                windows += 1
            }
        }
        #expect(windows > 0)
    }

    /// Windows of one block share a term's estimate: the first to ask computes it from its own
    /// rows (so it is the exact share of one of the block's windows), the others reuse it, and
    /// the reader hands a kept estimate back without computing it again.
    @Test func windowsOfABlockShareOneEstimate() throws {
        let f = Fixtures.large
        let executor = QueryExecutor(store: f.store)
        // bounds no other test uses, so that no earlier query kept an estimate for them
        let terms: [Filter] = [.numberRange(.mag, lower: .init(2.35), upper: nil),
                               .numberRange(.depth, lower: .init(7.25), upper: .init(33.75))]
        var reused = 0, exactChecked = 0
        for term in terms {
            for p in executor.manifest.partitions.indices {
                var stats = QueryStats()
                var first: [Int: Double] = [:]
                for u in try executor.units(p, .all, merge: false, stats: &stats) {
                    let d = executor.data(u)
                    let e = d.selectivity(term)
                    if let kept = first[u.block] {
                        #expect(abs(e - kept) < 1e-8, "\(term) block \(u.block) of partition \(p)")
                        reused += 1
                        continue
                    }
                    first[u.block] = e
                    // a first window of whole granules: its mag estimate is its exact share
                    if case .numberRange(.mag, _, _) = term, d.firstRow % GranuleIndex.granuleRows == 0,
                       d.rows == GranuleIndex.granuleRows {
                        let share = Double(try d.select(term, .all(d.rows)).count) / Double(d.rows)
                        #expect(abs(e - share) < 1e-9, "block \(u.block) of partition \(p)")
                        exactChecked += 1
                    }
                }
            }
        }
        #expect(reused > 10)
        #expect(exactChecked > 0)
        let r = executor.reader(0)
        var calls = 0
        let key: UInt64 = 0xFEED_F00D_1234_5678
        let a = r.estimate(key) { calls += 1; return 0.25 }
        let b = r.estimate(key) { calls += 1; return 0.75 }
        #expect(calls == 1)
        #expect(abs(a - 0.25) < 1e-9 && abs(b - 0.25) < 1e-8)
    }
}
