import Foundation
import QuakeFormat
import QuakeStore

/// Times benchmark cases.
package enum BenchRunner {
    /// A monotonic clock in nanoseconds.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Runs `benchCase` once to warm up, then `runs` timed times, calling `beforeEachRun`
    /// (outside the timing) before each timed run.
    package static func measure(_ benchCase: BenchCase, runs: Int,
                                beforeEachRun: () throws -> Void = {}) throws -> BenchResult {
        var outcome = try benchCase.run()
        var samples: [Double] = []
        for _ in 0..<max(1, runs) {
            try beforeEachRun()
            let start = now()
            outcome = try benchCase.run()
            samples.append(Double(now() - start) / 1e6)
        }
        let stats = outcome.stats
        let scope = benchCase.scope(stats)
        let scanned = stats?.rowsEstimated ?? 0
        // whole granules; a partition's last one may be shorter, so no more than the rows not scanned
        let granuleRows = (stats?.granulesFromStatistics ?? 0) * GranuleIndex.granuleRows
        let fromStatistics = min(granuleRows, max(0, scope.rows - scanned))
        let share = scope.rows > 0 ? min(1, Double(scanned) / Double(scope.rows)) : 0
        var result = BenchResult(name: benchCase.name, kind: benchCase.kind, samplesMs: samples,
                                 rowsScanned: scanned, rowsFromStatistics: fromStatistics,
                                 rowsReturned: outcome.rowsReturned, bytesRead: Int(Double(scope.bytes) * share))
        result.strategy = stats?.strategy
        switch benchCase.sql {
        case .success(let text): result.sql = text
        case .failure(let error): result.sqlError = error.detail.isEmpty ? "\(error)" : error.detail
        }
        return result
    }
}
