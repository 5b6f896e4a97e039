import Foundation

/// Order statistics, mean and sample standard deviation of a case's timings.
package struct BenchSummary: Sendable, Codable, Equatable {
    /// The fastest sample.
    package var minMs: Double
    /// The middle sample, or the mean of the two middle samples of an even count.
    package var medianMs: Double
    /// The 95th percentile, nearest rank: always one of the samples.
    package var p95Ms: Double
    /// The slowest sample.
    package var maxMs: Double
    /// The arithmetic mean of the samples.
    package var meanMs: Double
    /// Sample standard deviation (n − 1); 0 for one sample.
    package var stddevMs: Double

    /// The statistics of `samples`; all zero when there are none.
    package init(samples: [Double]) {
        let sorted = samples.sorted()
        guard let first = sorted.first, let last = sorted.last else {
            self.init(minMs: 0, medianMs: 0, p95Ms: 0, maxMs: 0, meanMs: 0, stddevMs: 0)
            return
        }
        let count = sorted.count
        let middle = count / 2
        let median = count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        let rank = Int((0.95 * Double(count)).rounded(.up))
        let p95 = sorted[min(count, max(1, rank)) - 1]
        let mean = sorted.reduce(0, +) / Double(count)
        let squares = sorted.reduce(0) { total, sample in total + (sample - mean) * (sample - mean) }
        let stddev = count > 1 ? (squares / Double(count - 1)).squareRoot() : 0
        self.init(minMs: first, medianMs: median, p95Ms: p95, maxMs: last, meanMs: mean, stddevMs: stddev)
    }

    /// The statistics as given.
    package init(minMs: Double, medianMs: Double, p95Ms: Double, maxMs: Double, meanMs: Double, stddevMs: Double) {
        self.minMs = minMs
        self.medianMs = medianMs
        self.p95Ms = p95Ms
        self.maxMs = maxMs
        self.meanMs = meanMs
        self.stddevMs = stddevMs
    }
}
