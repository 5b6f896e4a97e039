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
    func foldHistogram(_ unit: ScanUnit, _ reader: PartitionReader, _ plan: MagHistogramPlan,
                       into local: inout GroupTable) throws -> Bool {
        guard let granule = unit.granule else { return false }
        let index = try reader.directory().granules
        guard index.hasMagHistogram, granule < index.granules else { return false }
        var key = GroupKey()
        if groups.count > 1 {
            guard let timeKey = try bucketKey(unit, reader, skipping: plan.slot) else { return false }
            key = timeKey
        }
        let values = index.magValues
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
            throw QuakeError.corrupt(reader.path, "mag histogram of granule \(granule) counts \(counted) of \(rows) rows")
        }
        if counted < rows {
            key[plan.slot] = Aggregator.nullKey
            local.fold(local.slot(key), value: .nan, rows: rows - counted)
        }
        return true
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
