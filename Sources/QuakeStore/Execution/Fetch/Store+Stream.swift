import QuakeFormat
extension Store {
    /// Rows materialized at once by ``query(_:columns:chunkRows:begin:chunk:)``.
    package static let streamChunkRows = 1 << 19

    /// Runs a query and hands its rows over in chunks, in result order, so that only one chunk
    /// of materialized rows is in memory at once: a full sort of millions of rows with every
    /// field holds 16 bytes of row reference per row, plus one chunk.
    ///
    /// `begin` gets the row count and the cursor after the last row before any chunk.
    /// - Complexity: the query's own cost, plus decoding the granules each chunk touches.
    /// `snapshot` fixes the manifest the query reads (default: the current one).
    package func query(_ q: QuerySpec, columns: [Column]? = nil, chunkRows: Int = Store.streamChunkRows,
                      snapshot: Manifest? = nil,
                      begin: (_ count: Int, _ cursor: Cursor?) throws -> Void,
                      chunk: (QueryResult) throws -> Void) throws -> QueryStats {
        let ex = QueryExecutor(store: self, snapshot: snapshot)
        let (refs, stats) = try ex.run(q)
        let shown = columns ?? Column.allCases
        var need = ColumnSet(shown).union([.id, .time]).union(q.sort.map(\.column))
        if columns == nil { need = .all }
        // a title the store does not keep is made from the magnitude, type and place
        if need.contains(.title) { need.formUnion(RowBatch.titleSources) }
        let materializer = Materializer(executor: ex)
        var cursor: Cursor?
        if let last = refs.last {
            cursor = Store.cursor(try materializer.rows([last], columns: need), row: 0, sort: q.sort)
        }
        try begin(refs.count, cursor)
        var at = 0
        let step = Swift.max(1, chunkRows)
        while at < refs.count {
            let end = Swift.min(refs.count, at.saturatingAdd(step))
            var batch = try materializer.rows(Array(refs[at..<end]), columns: need)
            if need.contains(.title) { batch.makeTitles() }
            try chunk(QueryResult(batch: batch, columns: shown, cursor: cursor, stats: stats))
            at = end
        }
        return stats
    }
}
