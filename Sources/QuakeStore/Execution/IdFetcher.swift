import QuakeFormat
/// Event ids for a set of rows: the rows of each granule are decoded from the first of them to
/// the last, so only the zstd frames holding them are decompressed, and only the granules the
/// rows fall in.
package struct IdFetcher {
    package let executor: QueryExecutor

    package func ids(_ refs: [RowRef]) throws -> [String] {
        var out = [String](repeating: "", count: refs.count)
        let order = refs.indices.sorted { (refs[$0].partition, refs[$0].row) < (refs[$1].partition, refs[$1].row) }
        for run in try executor.granuleRuns(refs, order) {
            let first = refs[order[run.at.lowerBound]]
            let r = executor.reader(first.partition)
            guard case .text(let a) = try r.decode(.id, block: run.block, rows: run.rows),
                  a.count == run.rows.count else {
                throw StoreError.corrupt(r.path, "id column block \(run.block) does not decode to its rows")
            }
            for i in order[run.at] { out[i] = a.string(refs[i].row - first.row) ?? "" }
        }
        return out
    }
}
