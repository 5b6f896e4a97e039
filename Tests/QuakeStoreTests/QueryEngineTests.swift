import Foundation
import Testing
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeInterchange
@testable import QuakeTestSupport
import QuakeGenerator

/// Every filter, sort, page, cursor and count kind against the naive reference, on generated
/// data and on the real USGS files, with randomized queries and the edge cases.
@Suite struct QueryEngineTests {
    static let sortable: [Column] = [.time, .mag, .depth, .place, .net, .latitude, .updated, .nst, .magType, .id, .felt]
    static let nullable: [Column] = [.nst, .felt, .magError, .gap, .horizontalError, .alert, .mag, .place]

    static func randomLeaf(_ data: [Quake], _ rng: inout SplitMix64) -> Filter {
        let q = data[Int(rng.next() % UInt64(data.count))]
        switch rng.next() % 11 {
        case 0:
            let t = q.timeMilliseconds
            return .timeRange(.time, lower: t - Int64(rng.next() % 20) * 86_400_000, upper: t + Int64(rng.next() % 40) * 86_400_000)
        case 1:
            let m = Double(rng.next() % 60) / 10
            return .numberRange(.mag, lower: .init(m, inclusive: rng.next() % 2 == 0), upper: rng.next() % 2 == 0 ? nil : .init(m + 1.5))
        case 2:
            return .numberRange(.depth, lower: nil, upper: .init(Double(rng.next() % 30), inclusive: false))
        case 3:
            let lat = q.latitude, lon = q.longitude
            if rng.next() % 3 == 0 { return .box(minLatitude: -60, maxLatitude: 60, minLongitude: 170, maxLongitude: -170) }
            return .box(minLatitude: lat - 3, maxLatitude: lat + 3, minLongitude: max(-180, lon - 5), maxLongitude: min(180, lon + 5))
        case 4:
            return .near(latitude: q.latitude, longitude: q.longitude, radiusKm: Double(rng.next() % 300))
        case 5, 6:
            let place = q.place ?? "Alaska"
            let chars = Array(place)
            let len = min(chars.count, 3 + Int(rng.next() % 8))
            let start = Int(rng.next() % UInt64(max(1, chars.count - len + 1)))
            var needle = String(chars[start..<(start + len)])
            let insensitive = rng.next() % 2 == 0
            if insensitive { needle = Naive.fold(needle).uppercased() }
            return .contains(.place, needle, insensitive: insensitive)
        case 7:
            return .oneOf(.net, [q.net ?? "ak"] + (rng.next() % 2 == 0 ? ["us"] : []))
        case 8:
            return .isNull(nullable[Int(rng.next() % UInt64(nullable.count))])
        case 9:
            return .oneOf(.magType, [q.magType ?? "ml"])
        default:
            return .oneOf(.status, ["reviewed"])
        }
    }

    static func randomFilter(_ data: [Quake], _ rng: inout SplitMix64, depth: Int = 0) -> Filter {
        let r = rng.next() % 6
        if depth > 1 || r < 2 { return randomLeaf(data, &rng) }
        let parts = (0..<(2 + Int(rng.next() % 2))).map { _ in randomFilter(data, &rng, depth: depth + 1) }
        switch r {
        case 2, 3: return .and(parts)
        case 4: return .or(parts)
        default: return .not(parts[0])
        }
    }

    static func randomSpec(_ data: [Quake], _ rng: inout SplitMix64) -> QuerySpec {
        let keys = (0..<(1 + Int(rng.next() % 2))).map { _ in
            SortKey(sortable[Int(rng.next() % UInt64(sortable.count))], ascending: rng.next() % 2 == 0)
        }
        let limit: Int? = rng.next() % 5 == 0 ? nil : 1 + Int(rng.next() % 60)
        let offset = rng.next() % 3 == 0 ? Int(rng.next() % 200) : 0
        return QuerySpec(filter: randomFilter(data, &rng), sort: keys, limit: limit, offset: offset)
    }

    static func check(_ f: Fixtures.Loaded, iterations: Int, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for n in 0..<iterations {
            let spec = randomSpec(f.quakes, &rng)
            let want = try Naive.query(f.quakes, spec).map(\.id)
            let got = try f.store.query(spec, columns: [.id]).ids
            #expect(got == want, "query \(n): \(spec.filter) sort \(spec.sort) limit \(String(describing: spec.limit)) offset \(spec.offset)")
            let count = try f.store.count(spec.filter)
            let naive = try f.quakes.filter { try Naive.matches(spec.filter, $0) }.count
            #expect(count == naive, "count \(n): \(spec.filter)")
            // a capped count (whether rows lie past a page) gives min(count, cap)
            let cap = Int(rng.next() % UInt64(naive + 2)) + (rng.next() % 4 == 0 ? 1 : 0)
            #expect(try f.store.count(spec.filter, cap: cap) == min(naive, cap), "count \(n) capped at \(cap): \(spec.filter)")
            if got != want { return }
        }
    }

    @Test func randomizedQueriesMatchTheReferenceOnGeneratedData() throws {
        try Self.check(Fixtures.generated, iterations: 150, seed: 1)
    }

    @Test func randomizedQueriesMatchTheReferenceOnIndependentColumns() throws {
        let f = Fixtures.independent
        // what the generator promises: `updated` never before `time`, and spread over years
        let delays = f.quakes.compactMap { q in q.updated.map { $0.timeIntervalSince(q.time) } }
        #expect(delays.count == f.quakes.count)
        #expect(delays.allSatisfy { $0 >= 0 })
        #expect(delays.contains { $0 > 365 * 86_400 } && delays.contains { $0 < 3_600 })
        // and a network's events are no longer in its own region: Hawaii's network lists other places
        let hv = f.quakes.filter { $0.net == "hv" }
        #expect(hv.count > 100)
        #expect(hv.filter { !($0.place ?? "").contains("Hawaii") }.count > hv.count / 2)
        try Self.check(f, iterations: 150, seed: 3)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func randomizedQueriesMatchTheReferenceOnRealFeeds() throws {
        let real = try #require(Fixtures.real, "real feeds present but not loaded")
        try Self.check(real, iterations: 60, seed: 2)
    }

    @Test func fullRowsComeBackExactly() throws {
        let f = Fixtures.generated
        let spec = QuerySpec(filter: .numberRange(.mag, lower: .init(4), upper: nil), sort: [SortKey(.mag, ascending: false)], limit: 40)
        let got = try f.store.query(spec).quakes
        let want = try Naive.query(f.quakes, spec)
        #expect(got == want)
    }

    @Test func edgeCases() throws {
        let f = Fixtures.generated
        // empty result
        #expect(try f.store.query(QuerySpec(filter: .timeRange(.time, lower: 0, upper: 1))).count == 0)
        #expect(try f.store.count(.none) == 0)
        // offset past the end
        #expect(try f.store.query(QuerySpec(filter: .all, sort: [SortKey(.mag)], limit: 10, offset: 10_000_000)).count == 0)
        #expect(try f.store.query(QuerySpec(filter: .all, sort: [SortKey(.time)], limit: 10, offset: 10_000_000)).count == 0)
        // nil magnitudes sort last both ways, ties broken by id
        for asc in [true, false] {
            let spec = QuerySpec(filter: .all, sort: [SortKey(.felt, ascending: asc)], limit: nil)
            let got = try f.store.query(spec, columns: [.id, .felt]).quakes
            let firstNil = got.firstIndex { $0.felt == nil } ?? got.count
            #expect(got[firstNil...].allSatisfy { $0.felt == nil })
            #expect(got.map(\.id) == (try Naive.query(f.quakes, spec)).map(\.id))
        }
        // antimeridian box
        let box = Filter.box(minLatitude: -90, maxLatitude: 90, minLongitude: 179, maxLongitude: -179)
        let n = try f.store.count(box)
        #expect(n == f.quakes.filter { $0.longitude >= 179 || $0.longitude <= -179 }.count)
        // non-ASCII places
        let pahala = try f.store.count(.contains(.place, "pahala", insensitive: true))
        #expect(pahala > 0 && pahala == f.quakes.filter { ($0.place ?? "").contains("Pāhala") }.count)
        #expect(try f.store.count(.contains(.place, "Pāhala", insensitive: false)) == pahala)
        #expect(try f.store.count(.contains(.place, "pahala", insensitive: false)) == 0)
        #expect(try f.store.count(.contains(.place, "TURKIYE", insensitive: true)) == f.quakes.filter { ($0.place ?? "").contains("Türkiye") }.count)
        // needles that span the generated prefix and the locality
        for needle in ["km N of ", "N of Pā", "0 km", " of Ano", "of Healy"] {
            #expect(try f.store.count(.contains(.place, needle, insensitive: false)) == f.quakes.filter { Naive.bytesContain($0.place ?? "", needle) }.count, "\(needle)")
        }
    }

    @Test func anEmptyStoreAnswersEverything() throws {
        let s = try Store.openOrCreate(path: TestSupport.tempDir() + "/empty")
        #expect(try s.count(.all) == 0)
        #expect(try s.query(QuerySpec(sort: [SortKey(.mag, ascending: false)], limit: 5)).count == 0)
        #expect(try s.aggregate(.all, by: [.value(.net)], metrics: [.count, .avg(.mag)]).0.isEmpty)
        #expect(try s.sections(.all, by: .time(.day), sort: [SortKey(.time)], limitPerSection: 3).isEmpty)
    }

    @Test func cursorPagesVisitEveryRowOnceAcrossAConcurrentLoad() throws {
        let dir = TestSupport.tempDir()
        var o = GeneratorOptions(rows: 4000)
        o.firstYear = 2024; o.lastYear = 2024; o.seed = 5
        _ = try FeedGenerator.generate(o, into: dir + "/a")
        o.seed = 6
        _ = try FeedGenerator.generate(o, into: dir + "/b")
        let s = try Store.openOrCreate(path: dir + "/s")
        try s.load([dir + "/a"])
        for keys in [[SortKey(.time, ascending: false)], [SortKey(.mag, ascending: false)], [SortKey(.place), SortKey(.time)]] {
            let before = Set(try s.query(QuerySpec(filter: .all, sort: keys), columns: [.id]).ids)
            var seen: [String] = []
            var spec = QuerySpec(filter: .all, sort: keys, limit: 500)
            var loaded = false
            while true {
                let r = try s.query(spec, columns: [.id])
                seen += r.ids
                if !loaded { try s.load([dir + "/b"]); loaded = true }
                guard r.count == 500, let c = r.cursor else { break }
                spec.after = Cursor(token: c.token)!   // through the opaque text form
            }
            #expect(Set(seen).count == seen.count, "duplicates with \(keys)")
            #expect(before.isSubset(of: Set(seen)), "gaps with \(keys)")
            let after = try s.query(QuerySpec(filter: .all, sort: keys), columns: [.id]).ids
            #expect(seen == after.filter { Set(seen).contains($0) })   // pages follow the sort order
            // reset for the next order
            try? FileManager.default.removeItem(atPath: dir + "/s")
            _ = try Store.openOrCreate(path: dir + "/s")
            try s.refresh()
            try s.load([dir + "/a"])
        }
    }

    @Test func aggregatesMatchTheReference() throws {
        try Self.checkAggregates([Fixtures.generated])
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func aggregatesMatchTheReferenceOnRealFeeds() throws {
        try Self.checkAggregates([try #require(Fixtures.real, "real feeds present but not loaded")])
    }

    /// Grouped aggregates of each store against the naive grouping of its events.
    static func checkAggregates(_ fixtures: [Fixtures.Loaded]) throws {
        for f in fixtures {
            let cases: [([GroupBy], Filter)] = [
                ([.time(.month)], .all), ([.value(.net)], .numberRange(.mag, lower: .init(1), upper: nil)),
                ([.time(.year), .value(.magType)], .all), ([.bin(.mag, width: 0.5)], .all), ([.bin(.depth, width: 10), .value(.status)], .all),
                ([.time(.week)], .contains(.place, "CA", insensitive: false)), ([.time(.day)], .all), ([.time(.hour)], .oneOf(.net, ["us"])), ([], .all),
            ]
            let metrics: [Metric] = [.count, .min(.mag), .max(.mag), .avg(.mag), .sum(.depth), .percentile(50, .mag), .percentile(90, .depth)]
            for (groups, filter) in cases {
                let (rows, _) = try f.store.aggregate(filter, by: groups, metrics: metrics)
                var want: [[SortValue]: [Quake]] = [:]
                for q in try f.quakes.filter({ try Naive.matches(filter, $0) }) {
                    let key = groups.map { Naive.groupKey(q, $0) }
                    want[key, default: []].append(q)
                }
                #expect(rows.count == want.count, "\(groups)")
                for r in rows {
                    let qs = try #require(want[r.keyValues], "\(groups) \(r.keys)")
                    let mags = qs.compactMap(\.magnitude), depths = qs.compactMap(\.depth)
                    #expect(r.values[0] == Double(qs.count))
                    #expect(r.values[1] == mags.min())
                    #expect(r.values[2] == mags.max())
                    if let a = r.values[3] { #expect(abs(a - mags.reduce(0, +) / Double(mags.count)) < 1e-9) } else { #expect(mags.isEmpty) }
                    if let s = r.values[4] { #expect(abs(s - depths.reduce(0, +)) < 1e-6 * max(1, abs(s))) } else { #expect(depths.isEmpty) }
                    let sm = mags.sorted(), sd = depths.sorted()
                    #expect(r.values[5] == (sm.isEmpty ? nil : sm[max(1, Int((0.5 * Double(sm.count)).rounded(.up))) - 1]))
                    #expect(r.values[6] == (sd.isEmpty ? nil : sd[max(1, Int((0.9 * Double(sd.count)).rounded(.up))) - 1]))
                }
            }
        }
    }

    @Test func newerKeysAndMetricsMatchTheReference() throws {
        try Self.checkNewerAggregates(Fixtures.generated)
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func newerKeysAndMetricsMatchTheReferenceOnRealFeeds() throws {
        try Self.checkNewerAggregates(try #require(Fixtures.real, "real feeds present but not loaded"))
    }

    /// Date parts, time buckets, regions, places and several keys, with distinct counts,
    /// deviations, medians and percentiles (issue 72), against ``Naive/groupKey(_:_:)`` and
    /// ``Naive/metric(_:_:)``; then a condition, sort keys and a limit against sorting the full answer.
    static func checkNewerAggregates(_ f: Fixtures.Loaded) throws {
        let cases: [([GroupBy], Filter)] = [
            ([.region], .all), ([.value(.place)], .numberRange(.mag, lower: .init(2), upper: nil)),
            ([.part(.hourOfDay), .part(.dayOfWeek)], .all), ([.interval(milliseconds: 6 * 3_600_000)], .all),
            ([.part(.quarter), .time(.year), .value(.net), .value(.magType), .bin(.mag, width: 1)], .all),
            ([.interval(milliseconds: 7 * 86_400_000)], .oneOf(.net, ["us", "ak"])), ([], .all),
            ([.bin(.mag, width: 0.1)], .all), ([.bin(.depth, width: 0.3), .part(.quarter)], .all),
        ]
        let metrics: [Metric] = [.count, .countValues(.mag), .countDistinct(.net), .countDistinct(.mag),
                                 .countDistinct(.place), .stddev(.depth), .median(.mag), .percentile(90, .depth),
                                 .countValues(.place)]
        for (groups, filter) in cases {
            let (rows, _) = try f.store.aggregate(filter, by: groups, metrics: metrics)
            var want: [[SortValue]: [Quake]] = [:]
            for q in try f.quakes.filter({ try Naive.matches(filter, $0) }) {
                want[groups.map { Naive.groupKey(q, $0) }, default: []].append(q)
            }
            #expect(rows.count == want.count, "\(groups)")
            for row in rows {
                let members = try #require(want[row.keyValues], "\(groups) \(row.keys)")
                for (index, metric) in metrics.enumerated() {
                    let expected = Naive.metric(members, metric)
                    guard let value = row.values[index], let expected else {
                        #expect(row.values[index] == nil && expected == nil, "\(groups) \(row.keys) \(metric)")
                        continue
                    }
                    #expect(abs(value - expected) <= 1e-9 * max(1, abs(expected)),
                            "\(groups) \(row.keys) \(metric): \(value) against \(expected)")
                }
            }
            // count > 3, by count descending then the keys, the first five: as sorting the whole answer
            let condition = try GroupCondition.parse("count > 3 and count(distinct net) >= 1")
            let order = AggregateOrder(keys: [(.metric(0), false)], having: condition, limit: 5)
            let (top, _) = try f.store.aggregate(filter, by: groups, metrics: metrics, order: order)
            let reference = rows.filter { ($0.values[0] ?? 0) > 3 }.sorted { left, right in
                if left.values[0] != right.values[0] { return (left.values[0] ?? 0) > (right.values[0] ?? 0) }
                for (a, b) in zip(left.keyValues, right.keyValues) where a != b {
                    return SortValue.compare(a, b, ascending: true) < 0
                }
                return false
            }
            #expect(top.map(\.keys) == Array(reference.prefix(5)).map(\.keys), "\(groups)")
        }
    }

    @Test func sectionsMatchTheReference() throws {
        let f = Fixtures.generated
        let filter = Filter.timeRange(.time, lower: Timestamp.parse("2024-03-01")!, upper: Timestamp.parse("2024-03-08")!)
        for key in [GroupBy.time(.day), .value(.net), .value(.magType), .time(.month)] {
            let sort = [SortKey(.mag, ascending: false)]
            let sections = try f.store.sections(filter, by: key, sort: sort, limitPerSection: 3)
            let matching = try f.quakes.filter { try Naive.matches(filter, $0) }
            #expect(sections.reduce(0) { $0 + $1.count } == matching.count)
            for s in sections {
                let members = matching.filter { q in
                    switch key {
                    case .time(let b): return Timestamp.string(Aggregator.bucket(q.timeMilliseconds, b)).hasPrefix(s.id!)
                    case .value(let c): return Naive.value(q, c) == (s.id.map { .text($0) } ?? .null)
                    default: return false
                    }
                }
                #expect(members.count == s.count, "\(key) \(s.id ?? "nil")")
                #expect(s.rows.ids == Array(Naive.sorted(members, sort).prefix(3)).map(\.id))
            }
        }
    }

    /// `explain` lists the columns a place top-N reads, the place codes of a few rows included
    /// (read from the chunk one by one once the cut-off leaves few rows).
    @Test func aPlaceTopNListsThePlaceColumnAmongThoseRead() throws {
        let f = Fixtures.generated
        for (needle, k) in [("Alaska", 3), ("Alaska", 50), ("Hawaii", 10)] {
            var q = QuerySpec()
            q.filter = .contains(.place, needle, insensitive: false)
            q.sort = [SortKey(.mag, ascending: false)]
            q.limit = k
            let r = try f.store.query(q, columns: [.time, .mag, .place, .id])
            let matching = try f.quakes.filter { try Naive.matches(q.filter, $0) }.count
            #expect(matching > 0 && r.count == min(k, matching), "\(needle): \(matching) events")
            #expect(r.stats.columnsRead.contains("place") && r.stats.columnsRead.contains("mag"),
                    "\(needle) top \(k): \(r.stats.report(filter: q.filter))")
        }
    }

    /// A filter that requires one of a list of ids reads only the partitions the id index names,
    /// for any list length, and answers as the naive reference does (ids that are not stored,
    /// and one list inside a conjunction, included).
    @Test func idListsGoThroughTheIdIndex() throws {
        let fixtures = [Fixtures.generated] + (Fixtures.real.map { [$0] } ?? [])
        var generator = SystemRandomNumberGenerator()
        for fixture in fixtures {
            let stored = fixture.quakes.map(\.id)
            for size in [1, 3, 10, 1000] {
                var ids = (0..<size).map { _ in stored[Int.random(in: 0..<stored.count, using: &generator)] }
                ids.append("zz-not-stored-\(size)")
                for filter in [Filter.oneOf(.id, ids),
                               .conjunction([.numberRange(.mag, lower: .init(1), upper: nil), .oneOf(.id, ids)])] {
                    var spec = QuerySpec()
                    spec.filter = filter
                    spec.sort = [SortKey(.time, ascending: true)]
                    let result = try fixture.store.query(spec, columns: [.id, .time])
                    let want = try Naive.query(fixture.quakes, spec).map(\.id)
                    #expect(result.ids == want, "\(size) ids")
                    let (count, stats) = try QueryExecutor(store: fixture.store).count(filter)
                    #expect(count == want.count)
                    let read = stats.partitionsTotal - stats.partitionsPruned - stats.partitionsPrunedByIdIndex
                    if size <= 3 {
                        #expect(read <= size, "\(size) ids read \(read) partitions: \(stats.report(filter: filter))")
                    }
                }
            }
        }
    }

    /// `--where` arithmetic: each form's kernel answer equals the naive reference's, on generated
    /// and real events, with SQL's empty-field rule (an empty side fails, and so does its `not`).
    @Test func whereArithmeticMatchesTheReference() throws {
        let texts = ["mag - depth > 1", "mag - depth / 10 >= 2.5", "(mag - depth) / 2 > -1", "depth > mag * 10",
                     "mag > depth", "-depth < -30", "mag*2-1 >= depth/5", "not (mag - depth > 1)",
                     "!(depth / (mag - 2) > 3)", "mag > 2 * 2", "2 * 2 < mag", "updated - time > 86400000",
                     "(updated - time) / 3600000 <= 1 or mag >= 4", "mag + 0 == 3", "mag - 1 != depth",
                     "(mag > 3) and (depth - 10 < 0)", "((mag) > 2)", "mag -1 > 2", "mag>-1", "1 + 1 == 2",
                     "gap / dmin > 100", "latitude + longitude > rms * 10"]
        let fixtures = [Fixtures.generated] + (Fixtures.real.map { [$0] } ?? [])
        for fixture in fixtures {
            var discriminating = 0
            for text in texts {
                let filter = try WhereParser.parse(text)
                let want = try fixture.quakes.filter { try Naive.matches(filter, $0) }.count
                #expect(try fixture.store.count(filter) == want, "\(text): \(filter)")
                if want > 0 && want < fixture.quakes.count { discriminating += 1 }
            }
            #expect(discriminating >= texts.count - 3, "only \(discriminating) of \(texts.count) forms split the events")
        }
        // spot checks of the meaning, beside the reference: a constant side folds into a range kernel
        guard case .numberRange(.mag, let lower?, nil) = try WhereParser.parse("mag > 2 * 2"), lower.value == 4 else {
            Issue.record("mag > 2 * 2 is not a range kernel")
            return
        }
        #expect(try WhereParser.parse("1 + 1 == 2").description == "true")
        let negated = try WhereParser.parse("not (mag - depth > 1)")
        #expect(negated.description == "mag - depth <= 1", "\(negated)")
        let events = Fixtures.generated.quakes
        let manual = events.filter { quake in
            guard let mag = quake.magnitude, let depth = quake.depth else { return false }
            return mag - depth / 10 >= 2.5
        }
        #expect(try Fixtures.generated.store.count(WhereParser.parse("mag - depth / 10 >= 2.5")) == manual.count)
    }

    @Test func whereTextCompilesToTheSameFilterAsFlags() throws {
        let f = Fixtures.generated
        let text = #"mag >= 4.5 && (place.contains("Alaska") || net == "ak") && time >= "2024-03-01""#
        let flags = Filter.and([.numberRange(.mag, lower: .init(4.5), upper: nil),
                                .or([.contains(.place, "Alaska", insensitive: false), .oneOf(.net, ["ak"])]),
                                .timeRange(.time, lower: Timestamp.parse("2024-03-01")!, upper: nil)])
        #expect(try f.store.count(WhereParser.parse(text)) == f.store.count(flags))
        #expect(try f.store.count(WhereParser.parse(#"!(mag < 2) && felt != nil && place.localizedStandardContains("pahala")"#))
                == f.quakes.filter { ($0.magnitude ?? -1) >= 2 && $0.felt != nil && Naive.fold($0.place ?? "").contains("pahala") }.count)
        for (bad, column) in [("mag >= ", 8), ("mag >= 4 && bogus == 1", 13), (#"time > "yesterday""#, 8),
                              ("mag >= 4 ||", 12), (#"place.startsWith("x")"#, 7), ("net + 1 > 2", 1),
                              ("mag - > 2", 7), (#"mag + "x" > 2"#, 7), ("(mag - depth > 2", 17),
                              ("mag > depth +", 14), ("net == depth", 8)] {
            do {
                _ = try WhereParser.parse(bad)
                Issue.record("\(bad) parsed")
            } catch let e as WhereParser.SyntaxError {
                #expect(e.column == column, "\(bad): \(e)")
            }
        }
    }
}
