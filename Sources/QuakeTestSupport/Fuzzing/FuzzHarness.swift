import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// One libFuzzer target (see `Fuzz/README.md`): what it feeds and the seeds it can generate.
/// The bodies live in the library so that the regression tests replay every kept crasher
/// through exactly the code the fuzzer ran.
package protocol FuzzHarness {
    static var name: String { get }
    /// Runs one input. Errors are expected; a trap, overflow or memory fault is a finding.
    // SAFETY: `data` is valid only for the call: a harness copies what it keeps (Array, Data, String).
    static func run(_ data: UnsafeRawBufferPointer)
    /// Seeds built from generated data (real-feed seeds come from `Fuzz/run.sh`).
    static func seeds() -> [[UInt8]]
}

/// Every harness, by name.
package let fuzzHarnesses: [any FuzzHarness.Type] = [
    CSVHarness.self, GeoJSONHarness.self, GzipHarness.self, WhereHarness.self, ChunkHarness.self,
    ManifestHarness.self, HistoryHarness.self,
]

/// A scratch directory of this process, for harnesses that must go through a file.
package let fuzzScratch: String = {
    TestScratch.folder("quakes-fuzz")
}()
