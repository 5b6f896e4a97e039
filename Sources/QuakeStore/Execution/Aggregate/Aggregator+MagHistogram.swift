import QuakeFormat

extension Aggregator {
    /// How an aggregate keyed by magnitude bins reads the granules' exact mag histograms (each
    /// granule's distinct magnitudes and their counts): the position of the bin key, and its width.
    struct MagHistogramPlan {
        var slot: Int
        var width: Double
    }

    /// The plan when one group key is a mag bin, the others time buckets, and every
    /// metric is `count`, `count(mag)`, `min(mag)` or `max(mag)`: then a granule the filter takes
    /// whole is folded from its histogram, exactly as from its rows, without decoding a column.
    func magHistogramPlan() -> MagHistogramPlan? {
        var plan: MagHistogramPlan?
        for (position, group) in groups.enumerated() {
            switch group {
            case .time, .interval:
                continue
            case .bin(.mag, let width):
                guard plan == nil else { return nil }
                plan = MagHistogramPlan(slot: position, width: width)
            default:
                return nil
            }
        }
        for metric in metrics {
            switch metric {
            case .count, .countValues(.mag), .min(.mag), .max(.mag): continue
            default: return nil
            }
        }
        return plan
    }

    /// Folds granule unit `unit` (every row of which matches) from its mag histogram; false when
    /// there is none, or its rows span more than one bucket of a time key, and the rows must be read.
    /// With the bin as the only key, a granule's entries are tallied per stored magnitude in
    /// `tally` (one count per value of the partition's histogram, then the empty ones), and
    /// ``foldTally(_:_:_:into:)`` folds each value once for the partition: no group lookup per entry.
    func foldHistogram(_ unit: ScanUnit, _ reader: PartitionReader, _ plan: MagHistogramPlan,
                       tally: inout [Int], into local: inout GroupTable) throws -> Bool {
        guard let granule = unit.granule else { return false }
        let index = try reader.directory().granules
        guard index.hasMagHistogram, granule < index.granules else { return false }
        var key = GroupKey()
        if groups.count > 1 {
            guard let timeKey = try bucketKey(unit, reader, skipping: plan.slot) else { return false }
            key = timeKey
        }
        let values = index.magValues
        if groups.count == 1 {
            if tally.count != values.count + 1 { tally = [Int](repeating: 0, count: values.count + 1) }
            var counted = 0
            for entry in index.magCounts(granule) {
                let code = Int(entry & 0xFFFF)
                guard code < values.count else {
                    throw QuakeError.corrupt(reader.path, "mag histogram code \(code) of \(values.count) values")
                }
                tally[code] += Int(entry >> 16)
                counted += Int(entry >> 16)
            }
            let rows = index.range(granule).count
            guard counted <= rows else {
                throw QuakeError.corrupt(reader.path,
                                         "mag histogram of granule \(granule) counts \(counted) of \(rows) rows")
            }
            tally[values.count] += rows - counted
            return true
        }
        var counted = 0
        for entry in index.magCounts(granule) {
            let code = Int(entry & 0xFFFF)
            guard code < values.count else {
                throw QuakeError.corrupt(reader.path, "mag histogram code \(code) of \(values.count) values")
            }
            let value = values[code]
            let rows = Int(entry >> 16)
            key[plan.slot] = Aggregator.binIndex(value, plan.width)
            local.fold(local.slot(key), value: value, rows: rows)
            counted += rows
        }
        let rows = index.range(granule).count
        guard counted <= rows else {
            throw QuakeError.corrupt(reader.path,
                                     "mag histogram of granule \(granule) counts \(counted) of \(rows) rows")
        }
        if counted < rows {
            key[plan.slot] = Aggregator.nullKey
            local.fold(local.slot(key), value: .nan, rows: rows - counted)
        }
        return true
    }
}

extension Aggregator {
    /// Folds a partition's `tally` (see ``foldHistogram(_:_:_:tally:into:)``) into `local`, one
    /// group lookup per stored magnitude, and empties it.
    func foldTally(_ tally: inout [Int], _ reader: PartitionReader, _ plan: MagHistogramPlan,
                   into local: inout GroupTable) throws {
        guard !tally.isEmpty else { return }
        let values = try reader.directory().granules.magValues
        guard tally.count == values.count + 1 else {
            throw QuakeError.corrupt(reader.path,
                                     "mag histogram of \(values.count) values, tallied as \(tally.count - 1)")
        }
        var key = GroupKey()
        for (code, rows) in tally.enumerated() where rows > 0 {
            let value = code < values.count ? values[code] : Double.nan
            key[plan.slot] = value.isNaN ? Aggregator.nullKey : Aggregator.binIndex(value, plan.width)
            local.fold(local.slot(key), value: value, rows: rows)
        }
        tally = []
    }
}

extension GroupTable {
    /// Adds `rows` rows whose one value column holds `value` (NaN: empty) to slot `slot`, for
    /// the metrics a ``Aggregator/MagHistogramPlan`` allows (counts, least and greatest).
    mutating func fold(_ slot: Int, value: Double, rows: Int) {
        counts[slot] += rows
        guard !value.isNaN else { return }
        for (metric, need) in needs.enumerated() where need == .values {
            valueCounts[metric][slot] += rows
            least[metric][slot] = Swift.min(least[metric][slot], value)
            greatest[metric][slot] = Swift.max(greatest[metric][slot], value)
            sums[metric][slot] += value * Double(rows)
        }
    }
}
