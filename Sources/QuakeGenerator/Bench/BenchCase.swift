import Foundation
import QuakeFormat
import QuakeStore

/// What one run of a benchmark case produced.
package struct BenchOutcome: Sendable {
    /// Rows in the answer: a query's rows, an aggregate's groups, the sections' rows; for a
    /// count, the count itself (the one number DuckDB's `count(*)` gives too).
    package var rowsReturned: Int
    /// What the engine reports it did; nil for an operation that does not report (opening).
    package var stats: QueryStats?

    package init(rowsReturned: Int, stats: QueryStats?) {
        self.rowsReturned = rowsReturned
        self.stats = stats
    }
}

/// One timed operation of a benchmark suite, with what is needed to describe, print and
/// translate it.
package struct BenchCase: Sendable {
    /// The case's name: the command line it runs.
    package let name: String
    /// `query`, `count`, `agg`, `sections` or `open`.
    package let kind: String
    /// The same question in DuckDB's SQL over a view named `quakes`, or why there is none.
    package let sql: Result<String, QuakeError>
    /// Runs the operation once.
    package let run: @Sendable () throws -> BenchOutcome
    /// The answer as the CLI prints it with `--format csv`.
    package let printed: @Sendable () throws -> String
    /// The rows and column bytes a run faced (see ``Store/readScope(_:stats:needed:)``).
    package let scope: @Sendable (QueryStats?) -> BenchScope
    /// The file and 1-based line the case was read from, if any.
    package var origin: (path: String, line: Int)?

    package init(name: String, kind: String, sql: Result<String, QuakeError>,
                 run: @escaping @Sendable () throws -> BenchOutcome,
                 printed: @escaping @Sendable () throws -> String,
                 scope: @escaping @Sendable (QueryStats?) -> BenchScope) {
        self.name = name
        self.kind = kind
        self.sql = sql
        self.run = run
        self.printed = printed
        self.scope = scope
    }
}

/// The rows of the partitions left after time pruning, and the on-disk bytes of the columns a
/// run read in them.
package struct BenchScope: Sendable, Equatable {
    package var rows: Int
    package var bytes: Int

    package init(rows: Int, bytes: Int) {
        self.rows = rows
        self.bytes = bytes
    }
}
