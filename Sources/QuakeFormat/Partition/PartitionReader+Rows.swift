import Foundation
import Synchronization

extension PartitionReader {
    /// Every row of number column `c` (a timestamp or decimal), all blocks in order.
    package func ints(_ c: Column) throws(QuakeError) -> [Int64] {
        var values: [Int64] = []
        values.reserveCapacity(entry.rows)
        for block in 0..<(try directory().blockSizes.count) {
            values.append(contentsOf: try ints(c, block: block))
        }
        return values
    }

    /// Every row of string column `c`, all blocks in order.
    package func arena(_ c: Column) throws(QuakeError) -> ByteArena {
        var values = ByteArena()
        for block in 0..<(try directory().blockSizes.count) {
            values.append(contentsOf: try arena(c, block: block))
        }
        return values
    }

    /// The rows at partition row numbers `rows` (ascending, distinct), every column, with their
    /// provenance, as ``readAll()`` holds them: only the frames and granules they fall in are
    /// decoded, so a few rows of a large partition cost a few frames each.
    package func rows(at rows: [Int]) throws(QuakeError) -> RowBatch {
        let directory = try directory()
        var batch = RowBatch()
        for run in runs(rows, blockRows: directory.blockRows) {
            guard run.block >= 0, run.block < directory.blockSizes.count,
                  run.upper <= directory.blockSizes[run.block] else {
                throw .corrupt(path, "no row \(run.block * directory.blockRows + run.upper - 1)")
            }
            let picked = run.picks.map { $0 - run.lower }
            let values = try picks(run, picked: picked)
            for (index, column) in values.enumerated() {
                switch column {
                case .ints(let picks): batch.ints[index].append(contentsOf: picks)
                case .text(let picks): batch.text[index].append(contentsOf: picks)
                }
            }
        }
        batch.count = rows.count
        batch.seq = Array(repeating: Int64.min, count: rows.count)
        guard let stored = try provenance() else {
            batch.present = Array(repeating: Column.allMask, count: rows.count)
            return batch
        }
        batch.present = rows.map { stored.present[$0] }
        for (position, row) in rows.enumerated() {
            if let origins = stored.origins[row] { batch.origins[position] = origins }
        }
        return batch
    }

    /// One column's values of the rows a run picks.
    private enum PickedColumn: Sendable {
        case ints([Int64])
        case text(ByteArena)
    }

    /// Runs of at least this many rows decode their columns side by side.
    static let parallelRunRows = 4_096

    /// Every column's values of the rows `picked` (run-relative) of `run`, by column number:
    /// decoded side by side once the run spans a granule (a whole block, when it grew past its
    /// frames), one after another below.
    private func picks(_ run: RowsRun, picked: [Int]) throws(QuakeError) -> [PickedColumn] {
        if run.upper - run.lower < Self.parallelRunRows {
            var out: [PickedColumn] = []
            out.reserveCapacity(Column.count)
            for column in Column.allCases { out.append(try pick(column, run: run, picked: picked)) }
            return out
        }
        let values = Mutex([Result<PickedColumn, QuakeError>?](repeating: nil, count: Column.count))
        DispatchQueue.concurrentPerform(iterations: Column.count) { index in
            let outcome = Result { () throws(QuakeError) -> PickedColumn in
                try pick(Column.allCases[index], run: run, picked: picked)
            }
            values.withLock { $0[index] = outcome }
        }
        var out: [PickedColumn] = []
        out.reserveCapacity(Column.count)
        for (index, outcome) in values.withLock({ $0 }).enumerated() {
            guard let outcome else { throw .corrupt(path, "column \(Column.allCases[index]) was not read") }
            out.append(try outcome.get())
        }
        return out
    }

    /// The values of column `column` at `picked` (run-relative rows) of `run`, decoded at once.
    private func pick(_ column: Column, run: RowsRun, picked: [Int]) throws(QuakeError) -> PickedColumn {
        switch try decode(column, block: run.block, rows: run.lower..<run.upper) {
        case .ints(let values): return .ints(picked.map { values[$0] })
        case .category(let category): return .text(category.arena(of: picked))
        case .text(let arena): return .text(arena.gather(picked))
        case .place(let place): return .text(place.arena(of: picked))
        default: throw .corrupt(path, "column \(column) block \(run.block): not a stored column")
        }
    }

    /// `rows` cut into runs that one decode serves: rows of one block within a text frame's
    /// reach of the run's first row (``blockRuns(_:block:blockRows:)``).
    private func runs(_ rows: [Int], blockRows: Int) -> [RowsRun] {
        var out: [RowsRun] = []
        var start = 0
        while start < rows.count {
            let block = rows[start] / blockRows
            var end = start + 1
            while end < rows.count && rows[end] / blockRows == block { end += 1 }
            out.append(contentsOf: blockRuns(rows[start..<end], block: block, blockRows: blockRows))
            start = end
        }
        return out
    }

    /// One block's rows cut into runs within a text frame's reach of each run's first row, or
    /// one run from the first to the last when there would be more than ``rowsRunsLimit`` or
    /// they would cover half of that span anyway: a dense pick decodes its block once, side by
    /// side, not frame after frame on one thread.
    private func blockRuns(_ rows: ArraySlice<Int>, block: Int, blockRows: Int) -> [RowsRun] {
        let base = block * blockRows
        var out: [RowsRun] = []
        for row in rows {
            let inBlock = row - base
            if let last = out.last, inBlock - last.lower < FramedCodec.textFrameRows {
                out[out.count - 1].upper = inBlock + 1
                out[out.count - 1].picks.append(inBlock)
            } else {
                out.append(RowsRun(block: block, lower: inBlock, upper: inBlock + 1, picks: [inBlock]))
            }
        }
        let covered = out.reduce(0) { $0 + $1.upper - $1.lower }
        guard let first = out.first, let last = out.last, out.count > 1,
              out.count > Self.rowsRunsLimit || covered * 2 >= last.upper - first.lower else { return out }
        return [RowsRun(block: block, lower: first.lower, upper: last.upper, picks: rows.map { $0 - base })]
    }

    /// Most runs a block's rows are read in, one decode of every column each; more make one run.
    static let rowsRunsLimit = 16

    /// Rows `lower..<upper` of a block, decoded at once, of which `picks` are kept.
    private struct RowsRun: Sendable {
        var block: Int
        var lower: Int
        var upper: Int
        var picks: [Int]
    }
}
