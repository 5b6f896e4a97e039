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
        for run in runs(rows, blockRows: directory.blockRows, blocks: directory.blockSizes.count) {
            guard run.block < directory.blockSizes.count, run.upper <= directory.blockSizes[run.block] else {
                throw .corrupt(path, "no row \(run.block * directory.blockRows + run.upper - 1)")
            }
            for column in Column.allCases {
                let vector = try decode(column, block: run.block, rows: run.lower..<run.upper)
                let picked = run.picks.map { $0 - run.lower }
                let index = column.rawValue
                switch vector {
                case .ints(let values):
                    batch.ints[index].append(contentsOf: picked.map { values[$0] })
                case .category(let category):
                    batch.text[index].append(contentsOf: category.arena().gather(picked))
                case .text(let arena):
                    batch.text[index].append(contentsOf: arena.gather(picked))
                case .place(let place):
                    batch.text[index].append(contentsOf: place.arena().gather(picked))
                default:
                    throw .corrupt(path, "column \(column) block \(run.block): not a stored column")
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

    /// `rows` cut into runs that one decode serves: rows of one block within a text frame's
    /// reach of the run's first row; past ``rowsRunsLimit`` runs a block, one run per block.
    private func runs(_ rows: [Int], blockRows: Int, blocks: Int) -> [RowsRun] {
        var out: [RowsRun] = []
        var perBlock = [Int](repeating: 0, count: blocks + 1)
        for row in rows {
            let block = row / blockRows
            let inBlock = row - block * blockRows
            if let last = out.last, last.block == block,
               inBlock - last.lower < FramedCodec.textFrameRows || perBlock[min(block, blocks)] >= Self.rowsRunsLimit {
                out[out.count - 1].upper = inBlock + 1
                out[out.count - 1].picks.append(inBlock)
            } else {
                out.append(RowsRun(block: block, lower: inBlock, upper: inBlock + 1, picks: [inBlock]))
                perBlock[min(block, blocks)] += 1
            }
        }
        return out
    }

    /// Runs a block's rows are read in, one decode of every column each, before the rest of the
    /// block's rows join the last run.
    static let rowsRunsLimit = 16

    /// Rows `lower..<upper` of a block, decoded at once, of which `picks` are kept.
    private struct RowsRun {
        var block: Int
        var lower: Int
        var upper: Int
        var picks: [Int]
    }
}
