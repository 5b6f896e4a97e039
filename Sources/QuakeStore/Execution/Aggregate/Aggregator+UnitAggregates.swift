import QuakeFormat

extension Aggregator {
    /// How a grouped aggregate reads a partition's ``UnitAggregates``: the group key that is a
    /// dictionary column, if any, and for each metric its metric column (nil for `count`).
    package struct UnitPlan {
        /// (position in the group keys, index into ``UnitAggregates/groupColumns``).
        var value: (slot: Int, column: Int)?
        var metricColumns: [Int?]
    }

    /// The plan when every group key is a time bucket or one of the aggregated dictionary
    /// columns (at most one of those), and every metric is a count, or the min, max, sum or
    /// average of an aggregated numeric column; nil otherwise (percentiles, bins, other
    /// columns), and the rows are read.
    package func unitPlan() -> UnitPlan? {
        var value: (Int, Int)?
        for (g, by) in groups.enumerated() {
            switch by {
            case .time, .interval: continue
            case .bin, .part, .region: return nil
            case .value(let column):
                guard value == nil, let index = UnitAggregates.groupColumns.firstIndex(of: column) else { return nil }
                value = (g, index)
            }
        }
        var columns: [Int?] = []
        for m in metrics {
            switch m {
            case .count: columns.append(nil)
            case .percentile, .median, .stddev, .countValues, .countDistinct: return nil
            case .min(let column), .max(let column), .avg(let column), .sum(let column):
                guard let index = UnitAggregates.metricColumns.firstIndex(of: column) else { return nil }
                columns.append(index)
            }
        }
        return UnitPlan(value: value, metricColumns: columns)
    }

    /// Folds unit `u` (every row of which matches) from the aggregates into `local`, exactly as
    /// folding its rows would; false when its rows span more than one time bucket and must be
    /// read. `names` caches, per block, the global name id of each dictionary code.
    func foldUnit(_ u: ScanUnit, _ r: PartitionReader, _ aggregates: UnitAggregates, _ plan: UnitPlan,
                  names: inout [Int: [Int64]], into local: inout GroupTable) throws -> Bool {
        guard let unit = aggregates.unit(block: u.block, row: u.rows.lowerBound) else {
            throw QuakeError.corrupt(r.path,
                                     "unit aggregates have no unit at block \(u.block) row \(u.rows.lowerBound)")
        }
        var key = GroupKey()
        var span: (min: Int64, max: Int64)?
        for (g, by) in groups.enumerated() {
            guard Aggregator.timeKey(0, by) != nil else { continue }
            if span == nil {
                let zone = try u.granule.map { try r.zoneMap(granule: $0, block: u.block) }
                    ?? r.zoneMap(block: u.block)
                let times = try zone.stats(.time)
                span = (times.min, times.max)
            }
            guard let span else { continue }
            key[g] = Aggregator.timeKey(span.min, of: by)
            guard key[g] == Aggregator.timeKey(span.max, of: by) else { return false }
        }
        guard let (slot, column) = plan.value else {
            // no dictionary key: the unit's one entry of all its rows
            let entries = aggregates.entries(unit: unit)
            local.fold(local.slot(key), aggregates, entries, plan.metricColumns)
            return true
        }
        let table = try nameTable(r, block: u.block, column: column, names: &names)
        for entry in aggregates.entries(unit: unit) {
            let code = Int(aggregates.code(entry))
            guard code < table.count else {
                throw QuakeError.corrupt(r.path,
                                         "unit aggregates name code \(code) of a \(table.count - 1)-entry dictionary")
            }
            key[slot] = table[code]
            local.fold(local.slot(key), aggregates, entry..<(entry + 1), plan.metricColumns)
        }
        return true
    }

    /// Global name ids of the codes of block `k`'s dictionary of group column `column` (0 for
    /// null), built once per block.
    private func nameTable(_ reader: PartitionReader, block: Int, column: Int,
                           names: inout [Int: [Int64]]) throws -> [Int64] {
        if let cached = names[block] { return cached }
        let groupColumn = UnitAggregates.groupColumns[column]
        guard case .category(let decoded) = try reader.decode(groupColumn, block: block, rows: 0..<0) else {
            throw QuakeError.corrupt(reader.path, "column \(groupColumn) is not a category")
        }
        var table = [Int64](repeating: Aggregator.nullKey, count: decoded.dictionary.count + 1)
        for entry in 0..<decoded.dictionary.count {
            table[entry + 1] = self.names.id(decoded.dictionary.string(entry) ?? "")
        }
        names[block] = table
        return table
    }

}
