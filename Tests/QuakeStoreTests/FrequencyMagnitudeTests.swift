import Foundation
import Synchronization
import Testing
import QuakeGenerator
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport

/// The frequency–magnitude distribution, Mc, b, σ and a against a naive reference in
/// Foundation's `Decimal` over the magnitudes' stored text: real feeds, generated events,
/// hand-made edge cases (negative magnitudes, values on bin edges, a 17-digit decimal whose
/// double is a bin edge's), and Gutenberg–Richter catalogs of known b.
@Suite struct FrequencyMagnitudeTests {
    // MARK: the reference

    /// The FMD of `magnitudes` (text as stored, nil without one), computed naively in `Decimal`.
    struct Reference {
        var count = 0
        var withoutMagnitude = 0
        /// (bin centre, count, cumulative), every bin from the lowest to the highest.
        var bins: [(magnitude: Decimal, count: Int, cumulative: Int)] = []
        var mc: Decimal?
        var eventsAboveMc = 0
        var b: Double?
        var sigma: Double?
        var a: Double?

        init(_ magnitudes: [String?], bin width: Decimal, fixedMc: Decimal? = nil, correction: Decimal = 0.2) {
            count = magnitudes.count
            // each distinct text parsed and binned once
            var perText: [String: Int] = [:]
            for text in magnitudes {
                guard let text else {
                    withoutMagnitude += 1
                    continue
                }
                perText[text, default: 0] += 1
            }
            var perBin: [Int: Int] = [:]
            let posix = Locale(identifier: "en_US_POSIX")
            for (text, events) in perText {
                guard let value = Decimal(string: text, locale: posix) else {
                    withoutMagnitude += events
                    continue
                }
                perBin[Reference.floor(value / width + Decimal(string: "0.5")!), default: 0] += events
            }
            guard let lowest = perBin.keys.min(), let highest = perBin.keys.max() else { return }
            var remaining = count - withoutMagnitude
            var peak = lowest
            for index in lowest...highest {
                let events = perBin[index] ?? 0
                bins.append((Decimal(index) * width, events, remaining))
                remaining -= events
                if events > perBin[peak] ?? 0 { peak = index }
            }
            let completeness = fixedMc ?? Decimal(peak) * width + correction
            mc = completeness
            let above = perBin.filter { Decimal($0.key) * width >= completeness }
            eventsAboveMc = above.values.reduce(0, +)
            guard eventsAboveMc >= 50 else { return }
            let n = Decimal(eventsAboveMc)
            var sum = Decimal(0)
            for (index, events) in above { sum += Decimal(index) * width * Decimal(events) }
            let mean = sum / n
            var squares = Decimal(0)
            for (index, events) in above {
                let deviation = Decimal(index) * width - mean
                squares += deviation * deviation * Decimal(events)
            }
            let bValue = log10(exp(1.0)) / Reference.double(mean - (completeness - width / 2))
            let count = Double(eventsAboveMc)
            b = bValue
            sigma = 2.3 * bValue * bValue * (Reference.double(squares) / (count * (count - 1))).squareRoot()
            a = log10(count) + bValue * Reference.double(completeness)
        }

        /// The greatest integer at or below `value`.
        static func floor(_ value: Decimal) -> Int {
            var input = value
            var rounded = Decimal()
            NSDecimalRound(&rounded, &input, 0, .down)
            if rounded > value { rounded -= 1 }
            return NSDecimalNumber(decimal: rounded).intValue
        }

        /// The double nearest `value` (through its exact text).
        static func double(_ value: Decimal) -> Double { Double(value.description)! }

        /// Checks `result` against this reference, every figure.
        func check(_ result: FrequencyMagnitude, _ label: String) {
            #expect(result.count == count, "\(label): count")
            #expect(result.withoutMagnitude == withoutMagnitude, "\(label): without magnitude")
            #expect(result.bins.count == bins.count, "\(label): bins")
            for (got, want) in zip(result.bins, bins) {
                #expect(got.magnitude == Reference.double(want.magnitude), "\(label): bin \(want.magnitude)")
                let counts = "\(got.count)/\(got.cumulative), not \(want.count)/\(want.cumulative)"
                #expect(got.count == want.count && got.cumulative == want.cumulative,
                        "\(label): bin \(want.magnitude): \(counts)")
            }
            #expect(result.mc == mc.map(Reference.double), "\(label): Mc \(String(describing: result.mc))")
            #expect(result.eventsAboveMc == eventsAboveMc, "\(label): events above Mc")
            #expect(Self.close(result.b, b),
                    "\(label): b \(String(describing: result.b)), not \(String(describing: b))")
            #expect(Self.close(result.bUncertainty, sigma), "\(label): sigma")
            #expect(Self.close(result.a, a), "\(label): a")
        }

        static func close(_ got: Double?, _ want: Double?) -> Bool {
            guard let got, let want else { return got == nil && want == nil }
            return abs(got - want) <= 1e-9 * max(1, abs(want))
        }
    }

    // MARK: stores

    /// The stored magnitude text of every row of `store`, with its time and id, in (time, id) order.
    static func storedRows(_ store: Store) throws -> [(time: Int64, id: String, magnitude: String?)] {
        let batch = try TestSupport.allRows(store)
        let times = batch.ints[Column.time.rawValue]
        let magnitudes = batch.ints[Column.mag.rawValue]
        return (0..<batch.count).map { row -> (time: Int64, id: String, magnitude: String?) in
            (times[row], Quake(batch: batch, row: row).id, ScaledDecimal.string(magnitudes[row]))
        }
        .sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }

    /// A store of `magnitudes` (text; empty for none), one event every `spacing` seconds from 2020-01-01.
    static func store(_ tag: String, magnitudes: [String], spacing: Int = 600,
                      partitioning: Partitioning = .month) throws -> Store {
        let directory = TestSupport.tempDir(tag)
        var csv = "time,latitude,longitude,depth,mag,magType,net,id,updated,place,type\n"
        for (index, magnitude) in magnitudes.enumerated() {
            let time = Timestamp.string(1_577_836_800_000 + Int64(index * spacing) * 1000)
            csv += "\(time),10,20,5,\(magnitude),ml,xx,ev\(index),\(time),somewhere,earthquake\n"
        }
        TestSupport.write(csv, to: directory + "/feed.csv")
        let (store, _, rejects) = try TestSupport.load([directory + "/feed.csv"], into: directory + "/store",
                                                       partitioning: partitioning)
        #expect(rejects.isEmpty, "\(rejects.prefix(2))")
        return store
    }

    /// Magnitudes on and around bin edges, negative ones, a 17-digit decimal whose double is
    /// 2.05's (the stored decimal bins it lower), nulls, and seeded two-decimal values.
    static let edgeMagnitudes: [String] = {
        let fixed = ["-1.25", "-1.15", "-0.35", "-0.05", "-0.0", "0.05", "0.049999999999999999", "2.05",
                     "2.0499999999999998", "2.15", "1.2", "1.25", "", "3.14159", "-2.5", "0.1", "0.15", "0.3"]
        var generator = SplitMix64(seed: 71)
        var values = fixed
        for _ in 0..<3000 {
            let hundredths = Int(generator.next() % 500) - 150
            let sign = hundredths < 0 ? "-" : ""
            let magnitude = abs(hundredths)
            values.append(sign + "\(magnitude / 100)." + (magnitude % 100 < 10 ? "0" : "") + "\(magnitude % 100)")
            if generator.next() % 97 == 0 { values.append("") }
        }
        return values
    }()

    static let edgeStore = Result {
        try store("fmdedge", magnitudes: edgeMagnitudes, spacing: 240, partitioning: .day)
    }

    // MARK: tests

    @Test(arguments: ["0.1", "0.05", "0.2"])
    func edgeCasesMatchTheReference(width: String) throws {
        let store = try Self.edgeStore.get()
        let rows = try Self.storedRows(store)
        let bin = Double(width)!
        let result = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: bin)
        Reference(rows.map(\.magnitude), bin: Decimal(string: width)!).check(result, "all, bin \(width)")
        let fixed = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: bin, mc: .fixed(-0.5))
        Reference(rows.map(\.magnitude), bin: Decimal(string: width)!, fixedMc: Decimal(string: "-0.5")!)
            .check(fixed, "Mc -0.5, bin \(width)")
        // a filter that cuts granules: the row path
        let cut = Date(timeIntervalSince1970: 1_577_836_800 + 240 * 1000)
        let filtered = try store.frequencyMagnitude(FetchDescriptor<Quake>(predicate: #Predicate { $0.time < cut }),
                                                    bin: bin, mc: .maximumCurvature(correction: 0.1))
        let before = rows.filter { $0.time < Int64(cut.timeIntervalSince1970 * 1000) }.map(\.magnitude)
        Reference(before, bin: Decimal(string: width)!, correction: Decimal(string: "0.1")!)
            .check(filtered, "first 1000, bin \(width)")
        #expect(before.count == 1000 && filtered.count == 1000)
    }

    @Test func seventeenDigitDecimalBinsByItsStoredValue() throws {
        // alone in its store, so the granule's histogram holds 2.05's double: it must not be trusted
        let store = try Self.store("fmd17", magnitudes: ["2.0499999999999998", "2.0499999999999998", "2.15"])
        let result = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.1)
        #expect(result.bins.map(\.magnitude) == [2.0, 2.1, 2.2])
        #expect(result.bins.map(\.count) == [2, 0, 1])
        #expect(result.mc == 2.2)
        #expect(result.eventsAboveMc == 1 && result.b == nil)
        let plain = try Self.store("fmd205", magnitudes: ["2.05", "2.05", "2.15"])
        #expect(try plain.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.1).bins.map(\.count) == [2, 1])
    }

    @Test func wholeGranulesOfUnambiguousValuesAreTalliedFromHistograms() throws {
        let magnitudes = Self.gutenbergRichter(b: 1.0, mc: 2.0, events: 20_000, seed: 5)
        let store = try Self.store("fmdpaths", magnitudes: magnitudes, spacing: 60, partitioning: .month)
        for width in [0.1, 0.05, 0.2] {
            let binning = MagnitudeBinning(width: try #require(DecimalValue(width)))
            let scan = try FrequencyMagnitudeScan(store: store, filter: .all, binning: binning)
            let tally = try #require(try scan.tallies(by: nil)[0])
            let counts = scan.pathCounts.withLock { $0 }
            // one-decimal magnitudes never sit on an edge of 0.1 or 0.05; the edges of 0.2 are odd
            // tenths, whose doubles a 17-digit decimal could share, but each block's chunk holds one
            // decimal at most: no row is read
            #expect(counts.rowsBinned == 0 && counts.granulesFromHistograms >= 20_000 / 4096,
                    "\(width): \(counts)")
            #expect(tally.withMagnitude == 20_000)
            Reference(magnitudes, bin: Decimal(string: "\(width)")!)
                .check(try FrequencyMagnitude(tally: tally, binning: binning, mc: .maximumCurvature(correction: 0.2)),
                       "histograms, bin \(width)")
        }
        // 2.05 is an edge's double for a width of 0.1: its granule bins its rows' stored decimals
        let edges = try Self.store("fmdedges", magnitudes: ["2.05", "2.0499999999999998", "1.3"])
        let scan = try FrequencyMagnitudeScan(store: edges, filter: .all,
                                          binning: MagnitudeBinning(width: DecimalValue(units: 1, scale: 1)))
        _ = try scan.tallies(by: nil)
        #expect(scan.pathCounts.withLock { $0 } == .init(granulesFromHistograms: 0, rowsBinned: 3))
        // two-decimal magnitudes on edges (USGS's), in a chunk of two decimals: from the histogram
        let usgs = try Self.store("fmdusgs", magnitudes: ["2.05", "2.05", "2.15", "1.25", "-0.35", "3.1"])
        let usgsScan = try FrequencyMagnitudeScan(store: usgs, filter: .all,
                                                  binning: MagnitudeBinning(width: DecimalValue(units: 1, scale: 1)))
        let usgsTally = try #require(try usgsScan.tallies(by: nil)[0])
        #expect(usgsScan.pathCounts.withLock { $0 } == .init(granulesFromHistograms: 1, rowsBinned: 0))
        Reference(["2.05", "2.05", "2.15", "1.25", "-0.35", "3.1"], bin: Decimal(string: "0.1")!)
            .check(try FrequencyMagnitude(tally: usgsTally, binning: MagnitudeBinning(width: DecimalValue(units: 1,
                                                                                                          scale: 1)),
                                          mc: .maximumCurvature(correction: 0.2)), "edges from the histogram")
        #expect(scan.histogramBin(2.05) == FrequencyMagnitudeScan.ambiguous)
        #expect(scan.histogramBin(2.1) == 21 && scan.histogramBin(-0.3) == -3 && scan.histogramBin(-0.25) == .max)
    }

    @Test func mcAboveEveryEventGivesNoB() throws {
        let store = try Self.edgeStore.get()
        let result = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.1, mc: .fixed(9.5))
        #expect(result.mc == 9.5)
        #expect(result.eventsAboveMc == 0)
        #expect(result.b == nil && result.bUncertainty == nil && result.a == nil)
        #expect(result.bins.last?.magnitude == 3.5)
        let rows = try Self.storedRows(store)
        Reference(rows.map(\.magnitude), bin: Decimal(string: "0.1")!, fixedMc: 9.5).check(result, "Mc 9.5")
    }

    @Test func noMatchingEventIsEmpty() throws {
        let store = try Self.edgeStore.get()
        let never = Date(timeIntervalSince1970: 0)
        let result = try store.frequencyMagnitude(FetchDescriptor<Quake>(predicate: #Predicate { $0.time < never }))
        #expect(result == FrequencyMagnitude(count: 0, withoutMagnitude: 0, bin: 0.1, mc: nil, eventsAboveMc: 0,
                                             b: nil, bUncertainty: nil, a: nil, bins: []))
    }

    @Test func generatedEventsMatchTheReference() throws {
        let loaded = Fixtures.large
        let rows = try Self.storedRows(loaded.store)
        for width in ["0.1", "0.05", "0.2"] {
            let result = try loaded.store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: Double(width)!)
            Reference(rows.map(\.magnitude), bin: Decimal(string: width)!).check(result, "generated, bin \(width)")
        }
        let deep = try loaded.store.frequencyMagnitude(
            FetchDescriptor<Quake>(predicate: #Predicate { ($0.depth ?? 0) > 20 }), bin: 0.1)
        let deepRows = try TestSupport.allRows(loaded.store)
        var deepMagnitudes: [String?] = []
        for row in 0..<deepRows.count {
            let depth = ScaledDecimal.double(deepRows.ints[Column.depth.rawValue][row])
            if (depth.isNaN ? 0 : depth) > 20 {
                deepMagnitudes.append(ScaledDecimal.string(deepRows.ints[Column.mag.rawValue][row]))
            }
        }
        #expect(deepMagnitudes.count > 100 && deepMagnitudes.count < rows.count)
        Reference(deepMagnitudes, bin: Decimal(string: "0.1")!).check(deep, "generated, depth > 20")
    }

    @Test func groupsByYearMonthAndWindowMatchTheReference() throws {
        let loaded = Fixtures.large
        let rows = try Self.storedRows(loaded.store)
        let years = try loaded.store.frequencyMagnitude(FetchDescriptor<Quake>(), by: .year)
        let byYear = Dictionary(grouping: rows) { Timestamp.civil(days: Int($0.time / 86_400_000)).year }
        #expect(years.map(\.key) == byYear.keys.sorted().map(String.init))
        for group in years {
            Reference(byYear[Int(group.key)!]!.map(\.magnitude), bin: Decimal(string: "0.1")!)
                .check(group.distribution, "year \(group.key)")
        }
        let months = try loaded.store.frequencyMagnitude(FetchDescriptor<Quake>(), mc: .fixed(1.5), by: .month)
        let byMonth = Dictionary(grouping: rows) { row -> String in
            let (year, month, _) = Timestamp.civil(days: Int(row.time / 86_400_000))
            return "\(year)-" + (month < 10 ? "0" : "") + "\(month)"
        }
        #expect(months.map(\.key) == byMonth.keys.sorted())
        for group in months {
            Reference(byMonth[group.key]!.map(\.magnitude), bin: Decimal(string: "0.1")!, fixedMc: 1.5)
                .check(group.distribution, "month \(group.key)")
        }
        try checkWindows(loaded.store, rows, size: 500)
    }

    /// Windows of `size` events with a magnitude, each with the events without one that fall in it.
    func checkWindows(_ store: Store, _ rows: [(time: Int64, id: String, magnitude: String?)], size: Int) throws {
        let windows = try store.frequencyMagnitude(FetchDescriptor<Quake>(), by: .events(size))
        var expected: [(key: String, magnitudes: [String?])] = []
        var current: [String?] = []
        var first: Int64?
        for row in rows {
            if first == nil { first = row.time }
            current.append(row.magnitude)
            if current.compactMap({ $0 }).count == size {
                expected.append((Timestamp.string(first!), current))
                current = []
                first = nil
            }
        }
        if let first { expected.append((Timestamp.string(first), current)) }
        #expect(windows.count == expected.count)
        #expect(windows.count == (rows.filter { $0.magnitude != nil }.count + size - 1) / size)
        for (got, want) in zip(windows, expected) {
            #expect(got.key == want.key)
            Reference(want.magnitudes, bin: Decimal(string: "0.1")!).check(got.distribution, "window \(want.key)")
        }
    }

    @Test(.enabled(if: TestSupport.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
    func realFeedsMatchTheReference() throws {
        let loaded = try #require(Fixtures.real)
        let rows = try Self.storedRows(loaded.store)
        for width in ["0.1", "0.05", "0.2"] {
            let result = try loaded.store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: Double(width)!)
            Reference(rows.map(\.magnitude), bin: Decimal(string: width)!).check(result, "real, bin \(width)")
        }
        // 2018: the Kilauea swarm and others; cuts partitions and granules
        let from = Date(timeIntervalSince1970: 1_525_132_800)
        let to = Date(timeIntervalSince1970: 1_528_502_400)
        let span = try loaded.store.frequencyMagnitude(
            FetchDescriptor<Quake>(predicate: #Predicate { $0.time >= from && $0.time < to }), bin: 0.1)
        let inSpan = rows.filter {
            $0.time >= Int64(from.timeIntervalSince1970 * 1000) && $0.time < Int64(to.timeIntervalSince1970 * 1000)
        }
        #expect(inSpan.count > 1000)
        Reference(inSpan.map(\.magnitude), bin: Decimal(string: "0.1")!).check(span, "real, 2018-05-01..06-09")
        #expect(span.b != nil)
        let months = try loaded.store.frequencyMagnitude(FetchDescriptor<Quake>(), by: .month)
        #expect(months.reduce(0) { $0 + $1.distribution.count } == rows.count)
    }

    /// `events` magnitudes drawn from the Gutenberg–Richter law with `b` above `mc` (continuous
    /// above `mc − Δ/2`), binned at 0.1 and written with one decimal.
    static func gutenbergRichter(b: Double, mc: Double, events: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<events).map { _ in
            // in (0, 1]: 53 random bits, plus one, over 2^53
            let uniform = (Double(generator.next() >> 11) + 1) / 9_007_199_254_740_992
            let magnitude = mc - 0.05 - log10(uniform) / b
            let tenths = Int((magnitude * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }
    }

    @Test(arguments: [1.0, 0.8])
    func knownBIsFoundWithinTwoSigma(truth: Double) throws {
        let magnitudes = Self.gutenbergRichter(b: truth, mc: 2.0, events: 100_000, seed: UInt64(truth * 10))
        let store = try Self.store("fmdgr\(Int(truth * 10))", magnitudes: magnitudes, spacing: 60,
                                   partitioning: .year)
        let fixed = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.1, mc: .fixed(2.0))
        let b = try #require(fixed.b)
        let sigma = try #require(fixed.bUncertainty)
        #expect(fixed.eventsAboveMc == 100_000)
        #expect(abs(b - truth) <= 2 * sigma, "b = \(b) ± \(sigma), truth \(truth)")
        #expect(sigma < 0.01 && sigma > 0.001)
        #expect(fixed.mc == 2.0 && fixed.bins.first?.magnitude == 2.0)
        Reference(magnitudes, bin: Decimal(string: "0.1")!, fixedMc: 2).check(fixed, "GR b = \(truth)")
        // the most populated bin is the lowest, 2.0: maximum curvature puts Mc at 2.2
        let curvature = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.1)
        #expect(curvature.mc == 2.2)
        #expect(abs(try #require(curvature.b) - truth) <= 2 * (curvature.bUncertainty ?? 0))
    }

    @Test func badArgumentsAreInvalidArgumentErrors() throws {
        let store = try Self.edgeStore.get()
        for bin in [0.0, -0.1, Double.nan, 1e-12] {
            #expect(throws: QuakeError.self) { try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: bin) }
            do {
                _ = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: bin)
            } catch let error as QuakeError {
                #expect(error.kind == .invalidArgument, "\(error)")
            }
        }
        let zeroWindow = #expect(throws: QuakeError.self) {
            try store.frequencyMagnitude(FetchDescriptor<Quake>(), by: .events(0))
        }
        #expect(zeroWindow?.kind == .invalidArgument)
        let badMc = #expect(throws: QuakeError.self) {
            try store.frequencyMagnitude(FetchDescriptor<Quake>(), mc: .fixed(.infinity))
        }
        #expect(badMc?.kind == .invalidArgument)
    }

    /// Magnitudes far from any earthquake's (stored as loaded) and widths past the widest bin are
    /// refused as errors, never an overflow, at every width the CLI takes.
    @Test func farMagnitudesAndTooWideBinsAreErrorsNotTraps() throws {
        // the most decimals a load takes (22): the binning's widest products
        let tiny = "0." + String(repeating: "0", count: 21) + "1"
        let store = try Self.store("far", magnitudes: ["100000000000000000", "-90000000000000000", tiny, "3.1"])
        for width in [0.1, 0.05, 0.000000002, 100] {
            do {
                _ = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: width)
                Issue.record("bin \(width): magnitudes of 1e17 were binned")
            } catch let error as QuakeError {
                #expect(error.kind == .invalidArgument, "bin \(width): \(error)")
            }
        }
        let small = try Self.store("tiny", magnitudes: [tiny, "3.1", "-0.4"])
        let result = try small.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 99.999999999)
        #expect(result.bins.map(\.count).reduce(0, +) == 3)
        #expect(result.bins.first?.magnitude == 0)
        for width in [100.5, 1000] {
            #expect(throws: QuakeError.self, "bin \(width) was taken") {
                _ = try small.frequencyMagnitude(FetchDescriptor<Quake>(), bin: width)
            }
        }
    }

    @Test func asyncTwinsGiveTheSameValues() async throws {
        let store = try Self.edgeStore.get()
        let descriptor = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) > -1 })
        // in a closure that is not async, the blocking form
        let blocking = try Self.blocking { try store.frequencyMagnitude(descriptor, bin: 0.05, mc: .fixed(0.5)) }
        let awaited = try await store.frequencyMagnitude(descriptor, bin: 0.05, mc: .fixed(0.5))
        #expect(awaited == blocking && blocking.eventsAboveMc > 50)
        let windows = try await store.frequencyMagnitude(descriptor, by: .events(700))
        let blockingWindows = try Self.blocking { try store.frequencyMagnitude(descriptor, by: .events(700)) }
        #expect(windows == blockingWindows && windows.count > 2)
    }

    static func blocking<T>(_ body: () throws -> T) rethrows -> T { try body() }

    @Test func codableUsesTheCLIKeysAndRoundTrips() throws {
        let store = try Self.edgeStore.get()
        let result = try store.frequencyMagnitude(FetchDescriptor<Quake>(), bin: 0.2)
        let data = try JSONEncoder().encode(result)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["count", "without_magnitude", "bin", "mc", "events_above_mc", "b",
                                     "b_uncertainty", "a", "bins"])
        #expect(try JSONDecoder().decode(FrequencyMagnitude.self, from: data) == result)
        let groups = try store.frequencyMagnitude(FetchDescriptor<Quake>(), by: .events(1000))
        let groupData = try JSONEncoder().encode(groups)
        let decoded = try JSONDecoder().decode([FrequencyMagnitudeGroup].self, from: groupData)
        #expect(decoded == groups && groups.count == 4)
        let first = try #require((try JSONSerialization.jsonObject(with: groupData) as? [[String: Any]])?.first)
        #expect(first["key"] as? String == groups[0].key && first["count"] as? Int == groups[0].distribution.count)
    }
}
