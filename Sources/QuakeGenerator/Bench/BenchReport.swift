import Foundation

/// A benchmark's whole output: where and how it ran, then each case.
package struct BenchReport: Sendable, Codable {
    /// Where and how it ran.
    package var meta: BenchMeta
    /// Each case, in the order they ran.
    package var cases: [BenchResult]

    /// The report of `cases` run as `meta` says.
    package init(meta: BenchMeta, cases: [BenchResult]) {
        self.meta = meta
        self.cases = cases
    }
}
