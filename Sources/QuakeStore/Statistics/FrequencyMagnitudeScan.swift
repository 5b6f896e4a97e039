import QuakeFormat
import Synchronization

/// Tallies the magnitude bins of the events a filter matches, per partition on all cores.
///
/// A granule the filter takes whole is tallied from its exact mag histogram (its distinct
/// magnitudes and their counts), without decoding a column: each distinct value's bin is found
/// once per partition. A value whose double could stand for decimals in two bins (it equals a bin
/// edge's double, as `2.05` does for a width of 0.1) is binned as its shortest decimal when the
/// block's `mag` chunk holds no value of more decimals than that one has, nor more than
/// ``exactScale`` (two decimals cannot then share a double); else its granules go to the row
/// path, which bins the stored decimals themselves. Other units run the filter's kernels and bin the `mag`
/// column of the matching rows, a multiplication and a division on `Int64` per row.
final class FrequencyMagnitudeScan {
    let executor: QueryExecutor
    let filter: Filter
    let binning: MagnitudeBinning

    /// The bin of a histogram value that must be read from its rows.
    static let ambiguous = Int64.max

    /// The most decimals a block's magnitudes may have for an edge value's shortest decimal to be
    /// its stored one: magnitudes under 1,000 then have at most 15 significant digits, and no
    /// two such decimals share a double.
    static let exactScale = 12

    /// What a partition's histogram values bin to: per value, its bin or ``ambiguous``; for an
    /// ambiguous value, the bin of its shortest decimal and that decimal's scale (or ``ambiguous``).
    struct ValueBins {
        var bins: [Int64]
        var shortestBins: [Int64]
        var shortestScales: [Int]
        /// Per block, the `mag` chunk's scale once read (nil inside: not frame-of-reference coded).
        var blockScales: [Int: Int?] = [:]
    }

    /// Which path tallied what, over every partition so far.
    struct PathCounts: Sendable, Equatable {
        /// Granules tallied from their mag histograms, without decoding.
        var granulesFromHistograms = 0
        /// Matching rows whose stored magnitudes were binned one by one.
        var rowsBinned = 0
    }

    let pathCounts = Mutex(PathCounts())

    /// A scan of `filter` over `snapshot`, or the store's current manifest.
    init(store: Store, filter: Filter, binning: MagnitudeBinning, snapshot: Manifest? = nil) throws(QuakeError) {
        executor = QueryExecutor(store: store, snapshot: snapshot)
        self.filter = try executor.prepared(filter)
        self.binning = binning
    }

    /// The tallies of the matching events, one per `bucket` start (one keyed 0 without a bucket).
    func tallies(by bucket: GroupBy.TimeBucket?) throws -> [Int64: BinTally] {
        var stats = QueryStats()
        let partitions = try executor.partitions(for: filter, stats: &stats)
        let partials = try parallelMap(partitions) { partition in
            try self.tally(partition, bucket: bucket)
        }
        var merged: [Int64: BinTally] = [:]
        for partial in partials {
            for (key, tally) in partial {
                try merged[key, default: BinTally()].merge(tally)
            }
        }
        if bucket == nil && merged.isEmpty { merged[0] = BinTally() }
        return merged
    }

    /// Tallies partition `partition`.
    private func tally(_ partition: Int, bucket: GroupBy.TimeBucket?) throws -> [Int64: BinTally] {
        var stats = QueryStats()
        let reader = executor.reader(partition)
        var valueBins: ValueBins?
        var groups = GroupTallies()
        var counts = PathCounts()
        defer {
            pathCounts.withLock { total in
                total.granulesFromHistograms += counts.granulesFromHistograms
                total.rowsBinned += counts.rowsBinned
            }
        }
        for unit in try executor.units(partition, filter, merge: false, stats: &stats) {
            if unit.verdict == .all,
               try foldHistogram(unit, reader, bucket: bucket, valueBins: &valueBins, into: &groups) {
                counts.granulesFromHistograms += 1
                continue
            }
            let (data, selection) = try executor.scan(unit, filter, &stats)
            if selection.isEmpty { continue }
            counts.rowsBinned += selection.count
            if let bucket {
                try foldRows(data, selection, bucket: bucket, into: &groups)
            } else {
                try foldRows(data, selection, into: &groups.current)
            }
        }
        return groups.finished()
    }

    /// Tallies whole granule `unit` from its mag histogram; false when it must be read from its
    /// rows (no histogram, a value of two possible bins, or rows in more than one bucket).
    private func foldHistogram(_ unit: ScanUnit, _ reader: PartitionReader, bucket: GroupBy.TimeBucket?,
                               valueBins: inout ValueBins?, into groups: inout GroupTallies) throws -> Bool {
        guard let granule = unit.granule else { return false }
        let index = try reader.directory().granules
        guard index.hasMagHistogram, granule < index.granules else { return false }
        var values = valueBins ?? partitionBins(index.magValues)
        defer { valueBins = values }
        let entries = index.magCounts(granule)
        var bins: [Int64] = []
        bins.reserveCapacity(entries.count)
        for entry in entries {
            let code = Int(entry & 0xFFFF)
            guard code < values.bins.count else {
                throw QuakeError.corrupt(reader.path, "mag histogram code \(code) of \(values.bins.count) values")
            }
            var bin = values.bins[code]
            if bin == Self.ambiguous {
                guard let scale = try blockScale(unit.block, reader, &values),
                      values.shortestScales[code] <= scale, scale <= Self.exactScale else { return false }
                bin = values.shortestBins[code]
                if bin == Self.ambiguous { return false }
            }
            bins.append(bin)
        }
        if let bucket {
            let times = index.stats[GranuleIndex.slot(.time) ?? 0][granule]
            let start = Aggregator.bucket(times.min, bucket)
            guard start == Aggregator.bucket(times.max, bucket) else { return false }
            groups.select(start)
        }
        var counted = 0
        for (entry, bin) in zip(entries, bins) {
            let events = Int(entry >> 16)
            try groups.current.add(bin, events)
            counted += events
        }
        let rows = index.range(granule).count
        guard counted <= rows else {
            throw QuakeError.corrupt(reader.path,
                                     "mag histogram of granule \(granule) counts \(counted) of \(rows) rows")
        }
        groups.current.withoutMagnitude += rows - counted
        return true
    }

    /// The bins of a partition's histogram values, with their shortest decimals' bins and scales
    /// (each value's shortest decimal found once).
    private func partitionBins(_ magValues: [Double]) -> ValueBins {
        var values = ValueBins(bins: [], shortestBins: [], shortestScales: [])
        values.bins.reserveCapacity(magValues.count)
        values.shortestBins.reserveCapacity(magValues.count)
        values.shortestScales.reserveCapacity(magValues.count)
        for value in magValues {
            guard let decimal = Self.shortestDecimal(value) else {
                values.bins.append(Self.ambiguous)
                values.shortestBins.append(Self.ambiguous)
                values.shortestScales.append(Int.max)
                continue
            }
            let bin = histogramBin(value, shortest: decimal)
            values.bins.append(bin)
            // an edge value's own decimal, trusted for magnitudes under 1,000 (see exactScale)
            let edgeBin = value.magnitude < 1000 ? binning.index(units: decimal.units, scale: decimal.scale)
                : Self.ambiguous
            values.shortestBins.append(bin == Self.ambiguous ? edgeBin : bin)
            values.shortestScales.append(decimal.scale)
        }
        return values
    }

    /// The scale of block `block`'s `mag` chunk, read once per partition.
    private func blockScale(_ block: Int, _ reader: PartitionReader, _ values: inout ValueBins) throws -> Int? {
        if let known = values.blockScales[block] { return known }
        let scale = try reader.decimalScale(.mag, block: block)
        values.blockScales[block] = .some(scale)
        return scale
    }

    /// The bin of a histogram's magnitude `value`, or ``ambiguous``. The shortest decimal that
    /// reads back as `value` is the stored one, unless the stored one has 16 digits or more and
    /// differs from it by less than the double's precision; only a bin edge between the two
    /// could then move it, and that edge's double would be `value`, which is checked.
    func histogramBin(_ value: Double) -> Int64 {
        guard let decimal = Self.shortestDecimal(value) else { return Self.ambiguous }
        return histogramBin(value, shortest: decimal)
    }

    /// ``histogramBin(_:)`` of `value` whose shortest decimal is `decimal`.
    private func histogramBin(_ value: Double, shortest decimal: DecimalValue) -> Int64 {
        let index = binning.index(units: decimal.units, scale: decimal.scale)
        let width = binning.width
        for edge in [2 * index - 1, 2 * index + 1] {
            // the edge (2k ± 1)·Δ/2 = (2k ± 1)·5·d / 10^(t + 1)
            let (units, overflow) = edge.multipliedReportingOverflow(by: 5 * width.units)
            guard !overflow, units.magnitude < 1 << 53, width.scale + 1 < ScaledDecimal.pow10.count else {
                return Self.ambiguous
            }
            if Double(units) / ScaledDecimal.pow10[width.scale + 1] == value { return Self.ambiguous }
        }
        return index
    }

    /// The decimal with the fewest decimals whose double is `value` (nil past 17 decimals).
    static func shortestDecimal(_ value: Double) -> DecimalValue? {
        guard value.isFinite else { return nil }
        for scale in 0...17 {
            let scaled = (value * ScaledDecimal.pow10[scale]).rounded()
            guard scaled.magnitude < 9_007_199_254_740_992 else { return nil }
            let units = Int64(scaled)
            if Double(units) / ScaledDecimal.pow10[scale] == value { return DecimalValue(units: units, scale: scale) }
        }
        return nil
    }

    /// Bins the stored magnitudes of the `selection` rows of `data` into `tally`.
    private func foldRows(_ data: BlockData, _ selection: Selection, into tally: inout BinTally) throws {
        let magnitudes = try data.ints(.mag)
        var withoutMagnitude = 0
        try selection.forEach { row in
            let encoded = magnitudes[row]
            if encoded == RowBatch.null {
                withoutMagnitude += 1
            } else {
                try tally.add(binning.index(encoded))
            }
        }
        tally.withoutMagnitude += withoutMagnitude
    }

    /// Bins the stored magnitudes of the `selection` rows of `data` into the tally of their time bucket.
    private func foldRows(_ data: BlockData, _ selection: Selection, bucket: GroupBy.TimeBucket,
                          into groups: inout GroupTallies) throws {
        let magnitudes = try data.ints(.mag)
        let times = try data.ints(.time)
        var span: Range<Int64> = 0..<0
        try selection.forEach { row in
            let time = times[row]
            if !span.contains(time) {
                span = Self.bucketSpan(time, bucket)
                groups.select(span.lowerBound)
            }
            let encoded = magnitudes[row]
            if encoded == RowBatch.null {
                groups.current.withoutMagnitude += 1
            } else {
                try groups.current.add(binning.index(encoded))
            }
        }
    }

    /// The times of the `bucket` (a year or a month) holding `time`.
    static func bucketSpan(_ time: Int64, _ bucket: GroupBy.TimeBucket) -> Range<Int64> {
        let start = Aggregator.bucket(time, bucket)
        let (year, month, _) = Timestamp.civil(days: Int(start / 86_400_000))
        let next: Int
        switch bucket {
        case .year: next = Timestamp.days(year: year + 1, month: 1, day: 1)
        case .month: next = month == 12 ? Timestamp.days(year: year + 1, month: 1, day: 1)
            : Timestamp.days(year: year, month: month + 1, day: 1)
        default: return start..<(start + 1)
        }
        return start..<(Int64(next) * 86_400_000)
    }
}

/// The tallies of one partition by bucket start: the bucket being filled, and those before it.
/// Rows come in time order, so the current bucket changes rarely.
struct GroupTallies {
    var currentKey: Int64 = 0
    var current = BinTally()
    var others: [Int64: BinTally] = [:]

    /// Makes `key`'s tally the current one.
    mutating func select(_ key: Int64) {
        guard key != currentKey else { return }
        others[currentKey] = current
        currentKey = key
        current = others.removeValue(forKey: key) ?? BinTally()
    }

    /// Every non-empty tally by key.
    func finished() -> [Int64: BinTally] {
        var all = others
        all[currentKey] = current
        return all.filter { !$0.value.counts.isEmpty || $0.value.withoutMagnitude > 0 }
    }
}
