/// Two batches in (time, id) order merged into one, run by run.
extension RowBatch {
    /// A stretch of consecutive rows of one of the two batches merged.
    private struct MergeRun {
        var fromSecond: Bool
        var rows: Range<Int>
    }

    /// The rows of `first` and `second`, each in (time, id) order, in that order: copied a run
    /// of consecutive rows at a time, not gathered row by row. Batches out of order are sorted.
    /// On equal (time, id) the first batch's row comes first.
    /// - Complexity: O(rows) comparisons, and a copy per run and column.
    package static func merging(_ first: RowBatch, _ second: RowBatch) -> RowBatch {
        guard first.isTimeIdOrdered(), second.isTimeIdOrdered() else {
            var all = first
            all.append(contentsOf: second)
            return all.gather(all.timeIdOrder())
        }
        let runs = mergeRuns(first, second)
        var out = RowBatch()
        out.count = first.count + second.count
        for column in Column.allCases {
            let index = column.rawValue
            if RowBatch.isInt(column) {
                var values: [Int64] = []
                values.reserveCapacity(out.count)
                for run in runs { values.append(contentsOf: (run.fromSecond ? second : first).ints[index][run.rows]) }
                out.ints[index] = values
            } else {
                let firstText = first.text[index]
                let secondText = second.text[index]
                var arena = ByteArena()
                arena.bytes.reserveCapacity(firstText.bytes.count + secondText.bytes.count)
                arena.ends.reserveCapacity(out.count)
                for run in runs { arena.append(contentsOf: run.fromSecond ? secondText : firstText, rows: run.rows) }
                out.text[index] = arena
            }
        }
        out.present.reserveCapacity(out.count)
        out.seq.reserveCapacity(out.count)
        var position = 0
        for run in runs {
            let source = run.fromSecond ? second : first
            out.present.append(contentsOf: source.present[run.rows])
            out.seq.append(contentsOf: source.seq[run.rows])
            if !source.origins.isEmpty {
                for row in run.rows {
                    if let origins = source.origins[row] { out.origins[position + row - run.rows.lowerBound] = origins }
                }
            }
            position += run.rows.count
        }
        return out
    }

    /// The runs of `first` and `second` (each in (time, id) order) in merged order.
    private static func mergeRuns(_ first: RowBatch, _ second: RowBatch) -> [MergeRun] {
        let firstTimes = first.ints[Column.time.rawValue]
        let secondTimes = second.ints[Column.time.rawValue]
        let firstIds = first.text[Column.id.rawValue]
        let secondIds = second.text[Column.id.rawValue]
        var runs: [MergeRun] = []
        var firstRow = 0
        var secondRow = 0
        while firstRow < first.count || secondRow < second.count {
            let takesSecond: Bool
            if firstRow == first.count {
                takesSecond = true
            } else if secondRow == second.count {
                takesSecond = false
            } else if secondTimes[secondRow] != firstTimes[firstRow] {
                takesSecond = secondTimes[secondRow] < firstTimes[firstRow]
            } else {
                takesSecond = secondIds.compare(secondRow, firstIds, firstRow) < 0
            }
            let row = takesSecond ? secondRow : firstRow
            if let last = runs.last, last.fromSecond == takesSecond {
                runs[runs.count - 1].rows = last.rows.lowerBound..<(row + 1)
            } else {
                runs.append(MergeRun(fromSecond: takesSecond, rows: row..<(row + 1)))
            }
            if takesSecond { secondRow += 1 } else { firstRow += 1 }
        }
        return runs
    }
}
