import Foundation

/// A benchmark's whole output: where and how it ran, then each case.
package struct BenchReport: Sendable, Codable {
    package var meta: BenchMeta
    package var cases: [BenchResult]

    package init(meta: BenchMeta, cases: [BenchResult]) {
        self.meta = meta
        self.cases = cases
    }
}
