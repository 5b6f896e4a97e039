import Foundation
import QuakeFormat
import QuakeStore

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

    /// A case that runs, prints, translates and sizes itself with the closures given.
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
