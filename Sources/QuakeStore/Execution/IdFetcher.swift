import QuakeFormat
/// Event ids for a set of rows: the rows of each granule are decoded from the first of them to
/// the last, so only the zstd frames holding them are decompressed, and only the granules the
/// rows fall in.
package struct IdFetcher {
    package let executor: QueryExecutor

    package func ids(_ refs: [RowRef]) throws -> [String] {
        var out = [String](repeating: "", count: refs.count)
        let order = refs.indices.sorted { (refs[$0].partition, refs[$0].row) < (refs[$1].partition, refs[$1].row) }
        var at = 0
        while at < order.count {
            let first = refs[order[at]]
            let w = try executor.granuleWindow(first)
            var end = at + 1
            while end < order.count, refs[order[end]].partition == first.partition,
                  refs[order[end]].row < w.blockStart + w.rows.upperBound { end += 1 }
            let rows = (first.row - w.blockStart)..<(refs[order[end - 1]].row - w.blockStart + 1)
            let r = executor.reader(first.partition)
            guard case .text(let a) = try r.decode(.id, block: w.block, rows: rows), a.count == rows.count else {
                throw StoreError.corrupt(r.path, "id column block \(w.block) does not decode to its rows")
            }
            for i in order[at..<end] { out[i] = a.string(refs[i].row - first.row) ?? "" }
            at = end
        }
        return out
    }
}
