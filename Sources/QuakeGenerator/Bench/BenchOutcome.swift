import QuakeStore

/// What one run of a benchmark case produced.
package struct BenchOutcome: Sendable {
    /// Rows in the answer: a query's rows, an aggregate's groups, the sections' rows; for a
    /// count, the count itself (the one number DuckDB's `count(*)` gives too).
    package var rowsReturned: Int
    /// What the engine reports it did; nil for an operation that does not report (opening).
    package var stats: QueryStats?

    /// An outcome of `rowsReturned` rows and the engine's `stats`.
    package init(rowsReturned: Int, stats: QueryStats?) {
        self.rowsReturned = rowsReturned
        self.stats = stats
    }
}
