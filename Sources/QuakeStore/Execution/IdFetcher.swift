import QuakeFormat
/// Event ids for a set of rows, decoding the id column one granule at a time (one zstd frame
/// each), and only the granules the rows fall in.
package struct IdFetcher {
    package let executor: QueryExecutor

    package func ids(_ refs: [RowRef]) throws -> [String] {
        var out = [String](repeating: "", count: refs.count)
        let order = refs.indices.sorted { (refs[$0].partition, refs[$0].row) < (refs[$1].partition, refs[$1].row) }
        var cache: (p: Int, firstRow: Int, arena: ByteArena)?
        for i in order {
            let ref = refs[i]
            if let c = cache, c.p == ref.partition, ref.row >= c.firstRow, ref.row - c.firstRow < c.arena.count {
                out[i] = c.arena.string(ref.row - c.firstRow) ?? ""
                continue
            }
            let w = try executor.granuleWindow(ref)
            let r = executor.reader(ref.partition)
            guard case .text(let a) = try r.decode(.id, block: w.block, rows: w.rows), a.count == w.rows.count else {
                throw StoreError.corrupt(r.path, "id column block \(w.block) does not decode to its rows")
            }
            let firstRow = w.blockStart + w.rows.lowerBound
            cache = (ref.partition, firstRow, a)
            out[i] = a.string(ref.row - firstRow) ?? ""
        }
        return out
    }
}
