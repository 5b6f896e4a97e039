import QuakeFormat

extension Aggregator {
    /// Selected rows by position: a list, or every row of the window.
    package struct RowList {
        package let picked: [Int]?
        package let count: Int
        @inline(__always) package subscript(position: Int) -> Int { picked?[position] ?? position }
        /// Whether every row lies in `0..<rowCount` (for the asserts before unchecked reads).
        package func fits(_ rowCount: Int) -> Bool {
            picked.map { $0.allSatisfy { $0 >= 0 && $0 < rowCount } } ?? (count <= rowCount)
        }
    }

    /// Folds the selected rows of a window into `table`: each row's slot, then each metric.
    func fold(_ data: BlockData, _ selection: Selection, into table: inout GroupTable) throws {
        let picked: [Int]? = {
            if case .rows(let list) = selection { return list.map { Int($0) } }
            return nil
        }()
        let rows = RowList(picked: picked, count: selection.count)
        let slots = try self.slots(data, rows, &table)
        for slot in slots { table.counts[slot] += 1 }
        for (metricIndex, metric) in metrics.enumerated() {
            guard let column = metric.column else { continue }
            switch metric {
            case .countDistinct where column.kind == .category:
                if try foldDistinctCodes(column, data, rows, slots, metricIndex, into: &table) { continue }
                fallthrough
            case .countValues where column.kind != .decimal && column.kind != .timestamp,
                 .countDistinct:
                let codes = try valueCodes(column, data, rows)
                let distinct: Bool
                if case .countDistinct = metric { distinct = true } else { distinct = false }
                for (position, code) in codes.enumerated() where code != Aggregator.nullKey {
                    table.valueCounts[metricIndex][slots[position]] += 1
                    if distinct { table.distinct[metricIndex][slots[position]].insert(code) }
                }
            default:
                // a second median or percentile of one column reads the first one's tally
                guard table.tallySource[metricIndex] == metricIndex else { continue }
                try foldNumbers(try data.doubles(column), rows, slots, metricIndex, into: &table)
            }
        }
    }

    /// `count(distinct …)` of a category column over the block's dictionary codes: each (group,
    /// code) pair is marked in a flat table the first time a row shows it, and only then is the
    /// value's global id added to the group's set; false (nothing folded) when groups × codes
    /// pass 2^20, and the rows take the general path.
    private func foldDistinctCodes(_ column: Column, _ data: BlockData, _ rows: RowList, _ slots: [Int],
                                   _ metricIndex: Int, into table: inout GroupTable) throws -> Bool {
        let block = try data.category(column)
        let keyOfCode = keyTable(block.dictionary)
        let width = keyOfCode.count
        guard table.slotCount * width <= 1 << 20 else { return false }
        guard rows.fits(block.codes.count) else {
            throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
        }
        var seen = [Bool](repeating: false, count: table.slotCount * width)
        var values = table.valueCounts[metricIndex]
        table.valueCounts[metricIndex] = []
        defer { table.valueCounts[metricIndex] = values }
        for position in 0..<rows.count {
            let code = Int(block.codes[rows[position]])
            guard code < width else {
                throw QuakeError.corrupt(data.reader.path, "code \(code) of a \(width - 1)-entry dictionary")
            }
            if code == 0 { continue }
            let slot = slots[position]
            values[slot] += 1
            let mark = slot * width + code
            if !seen[mark] {
                seen[mark] = true
                table.distinct[metricIndex][slot].insert(keyOfCode[code])
            }
        }
        return true
    }

    /// Each selected row's slot in `table`.
    private func slots(_ data: BlockData, _ rows: RowList, _ table: inout GroupTable) throws -> [Int] {
        if groups.isEmpty {
            var slots = [Int](repeating: 0, count: rows.count)
            let slot = table.slot(GroupKey())
            for position in 0..<rows.count { slots[position] = slot }
            return slots
        }
        if groups.count == 1, let (codes, keyOfCode) = try dictionaryCodes(groups[0], data) {
            // slots straight from dictionary codes: one lookup per code, none per row
            var slots = [Int](repeating: 0, count: rows.count)
            var slotOfCode = [Int](repeating: -1, count: keyOfCode.count)
            guard rows.fits(codes.count) else {
                throw QuakeError.corrupt(data.reader.path, "rows past a column's end")
            }
            for position in 0..<rows.count {
                let code = Int(codes[rows[position]])
                guard code < keyOfCode.count else {
                    throw QuakeError.corrupt(data.reader.path,
                                             "code \(code) of a \(keyOfCode.count - 1)-entry dictionary")
                }
                if slotOfCode[code] < 0 { slotOfCode[code] = table.slot(keyOfCode[code]) }
                slots[position] = slotOfCode[code]
            }
            return slots
        }
        let columns = try groups.map { try keyColumn($0, data, rows) }
        if columns.count == 1 { return table.slots(columns[0]) }
        // the keys row by row, one part per group key
        var batch = [Int64](repeating: 0, count: rows.count * columns.count)
        for (group, column) in columns.enumerated() {
            for position in 0..<rows.count { batch[position * columns.count + group] = column[position] }
        }
        return table.slots(batch)
    }

    /// Folds a numeric column's non-null values into metric `metricIndex`'s accumulators.
    private func foldNumbers(_ column: [Double], _ rows: RowList, _ slots: [Int], _ metricIndex: Int,
                             into table: inout GroupTable) throws {
        // Long by design: the hot loop of the numeric metrics' fold; see Benchmarks/RESULTS.md
        // (6 by net: count, avg(mag), max(depth)).
        guard rows.fits(column.count) else { throw QuakeError.corrupt("rows past a column's end") }
        let need = table.needs[metricIndex]
        // the metric's arrays, taken out of the table while the loop writes them
        var counts = table.valueCounts[metricIndex]
        var least = table.least[metricIndex]
        var greatest = table.greatest[metricIndex]
        var sums = table.sums[metricIndex]
        var means = table.means[metricIndex]
        var squares = table.squares[metricIndex]
        table.valueCounts[metricIndex] = []
        table.least[metricIndex] = []
        table.greatest[metricIndex] = []
        table.sums[metricIndex] = []
        table.means[metricIndex] = []
        table.squares[metricIndex] = []
        // a unit's own sums, added to the groups' after its last row (sumsPerUnit)
        var unitSums = table.sumsPerUnit ? [Double](repeating: 0, count: sums.count) : []
        var touched = table.sumsPerUnit ? [Bool](repeating: false, count: sums.count) : []
        // one group for every row (no keys, or a window in one group): the values' tally in one batch
        let oneSlot = need == .samples && slots.first.map { first in slots.allSatisfy { $0 == first } } == true
        var patterns: [Int64] = []
        if oneSlot { patterns.reserveCapacity(rows.count) }
        // SAFETY: every selected row is below column.count (checked above) and every slot below
        // the table's slot count, which each array has; the pointers do not leave the closure.
        column.withUnsafeBufferPointer { values in
            for position in 0..<rows.count {
                let value = values[rows[position]]
                if value.isNaN { continue }
                let slot = slots[position]
                counts[slot] += 1
                if value < least[slot] { least[slot] = value }
                if value > greatest[slot] { greatest[slot] = value }
                if unitSums.isEmpty {
                    sums[slot] += value
                } else {
                    unitSums[slot] += value
                    touched[slot] = true
                }
                if need == .moments {
                    // Welford's update of the running mean and squared deviations
                    let delta = value - means[slot]
                    means[slot] += delta / Double(counts[slot])
                    squares[slot] += delta * (value - means[slot])
                } else if oneSlot {
                    patterns.append(Int64(bitPattern: value.bitPattern))
                } else if need == .samples {
                    table.samples[metricIndex][slot].add(value)
                }
            }
        }
        for slot in touched.indices where touched[slot] { sums[slot] += unitSums[slot] }
        if oneSlot, let slot = slots.first { table.samples[metricIndex][slot].add(patterns: patterns) }
        table.valueCounts[metricIndex] = counts
        table.least[metricIndex] = least
        table.greatest[metricIndex] = greatest
        table.sums[metricIndex] = sums
        table.means[metricIndex] = means
        table.squares[metricIndex] = squares
    }
}
