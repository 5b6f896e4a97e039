import QuakeFormat
/// Event ids for a set of rows: the rows of each granule are decoded from the first of them to
/// the last, so only the zstd frames holding them are decompressed, and only the granules the
/// rows fall in.
package struct IdFetcher {
    package let executor: QueryExecutor

    /// The ids of `refs`, row `i` of the arena being `refs[i]`'s. With `spanning` (rows that
    /// include `refs`, within ``IdWindows/budget``), each granule is decoded over the stretch of
    /// those rows instead and kept in the executor's ``QueryExecutor/idWindows``, for the page
    /// built from them.
    package func ids(_ refs: [RowRef], spanning all: [RowRef] = []) throws -> ByteArena {
        let order = IdFetcher.storageOrder(refs)
        // granules by key hash, in a table of fixed types (see ``IntTable``); their keys and rows
        // in arrays of Int: a one-shot query pays for each array type it instantiates
        var stretchTable = IntTable()
        var keyParts: [Int] = []
        var keyBlocks: [Int] = []
        var stretchLow: [Int] = []
        var stretchHigh: [Int] = []
        func stretchKey(_ i: Int) -> IdWindows.Key {
            IdWindows.Key(partition: keyParts[i], block: keyBlocks[i], rows: stretchLow[i]..<stretchHigh[i])
        }
        if all.count <= IdWindows.budget {
            let allOrder = IdFetcher.storageOrder(all)
            for run in try executor.granuleRuns(all, allOrder) {
                let partition = all[allOrder[run.at.lowerBound]].partition
                let key = IdWindows.Key(partition: partition, block: run.block, rows: run.rows)
                stretchTable.set(key.hash, keyParts.count) { stretchKey($0).same(key) }
                keyParts.append(partition)
                keyBlocks.append(run.block)
                stretchLow.append(run.rows.lowerBound)
                stretchHigh.append(run.rows.upperBound)
            }
        }
        var decoded: [ByteArena] = []
        // per ref: its decoded arena and row there
        var at = [(arena: Int, row: Int)](repeating: (0, 0), count: refs.count)
        for run in try executor.granuleRuns(refs, order) {
            let first = refs[order[run.at.lowerBound]]
            let partitionReader = executor.reader(first.partition)
            let key = IdWindows.Key(partition: first.partition, block: run.block, rows: run.rows)
            var rows = run.rows
            // kept for the page even when the stretch is the run itself (one row in the granule)
            var keep = false
            if let stretchIndex = stretchTable.first(key.hash, where: { stretchKey($0).same(key) }) {
                let stretch = stretchLow[stretchIndex]..<stretchHigh[stretchIndex]
                if stretch.lowerBound <= rows.lowerBound, rows.upperBound <= stretch.upperBound {
                    rows = stretch
                    keep = true
                }
            }
            guard case .text(let ids) = try partitionReader.decode(.id, block: run.block, rows: rows),
                  ids.count == rows.count else {
                throw QuakeError.corrupt(partitionReader.path,
                                         "id column block \(run.block) does not decode to its rows")
            }
            if keep { executor.idWindows.put(key, rows: rows, ids: ids) }
            let shift = run.rows.lowerBound - rows.lowerBound
            for i in order[run.at] { at[i] = (decoded.count, refs[i].row - first.row + shift) }
            decoded.append(ids)
        }
        var out = ByteArena()
        out.ends.reserveCapacity(refs.count)
        for (k, row) in at { out.append(from: decoded[k], row: row) }
        return out
    }

    /// Indices of `refs` by partition, then row (both below 2^24 and 2^40: a partition holds
    /// at most the rows one merge holds in memory).
    static func storageOrder(_ refs: [RowRef]) -> [Int] {
        // (key, index) pairs in index order, sorted stably by key: the order of the pairs as tuples
        var pairs = refs.enumerated().map { index, ref in
            (UInt64(truncatingIfNeeded: ref.partition) << 40 | UInt64(truncatingIfNeeded: ref.row), index)
        }
        StableSort.byKey(&pairs) { $0.0 }
        return pairs.map(\.1)
    }
}
