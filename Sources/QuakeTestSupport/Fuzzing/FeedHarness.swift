
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

/// Reads one input as a feed file, through the same reader `quakes load` uses (format and
/// compression detected from the bytes), and drains it.
package enum FeedHarness {
    package static func read(_ data: UnsafeRawBufferPointer) {
        let path = fuzzScratch + "/feed"
        // SAFETY: Data(data) copies the input into the file's contents; `data` is not kept.
        _ = FileManager.default.createFile(atPath: path, contents: Data(data))
        guard let reader = try? FeedReader(path: path, seqBase: 0, onReject: { _ in }) else { return }
        var rows = 0
        while rows < 1 << 20, let batch = try? reader.next(maxRows: 1000) {
            rows += batch.count
            // every accepted time prints and parses back to itself
            for i in 0..<batch.count where batch.int(.time, i) != RowBatch.null {
                let time = batch.int(.time, i)
                let printed = Timestamp.string(time)
                if Timestamp.parse(printed) != time {
                    fatalError("time \(time) printed as \(printed) does not parse back")
                }
            }
        }
    }

    /// The first `n` lines of generated feeds, as seeds.
    package static func generated(_ format: FeedWriter.Format) -> [[UInt8]] {
        var options = GeneratorOptions(rows: 300)
        options.format = format
        options.rowsPerFile = 100
        options.firstYear = 2023
        options.lastYear = 2024
        let dir = fuzzScratch + "/gen-\(format)"
        guard let files = try? FeedGenerator.generate(options, into: dir) else { return [] }
        return files.compactMap { FileManager.default.contents(atPath: $0).map { Array($0) } }
    }
}

package enum CSVHarness: FuzzHarness {
    package static let name = "csv"
    package static func run(_ data: UnsafeRawBufferPointer) { FeedHarness.read(data) }
    package static func seeds() -> [[UInt8]] { FeedHarness.generated(.csv) }
}

package enum GeoJSONHarness: FuzzHarness {
    package static let name = "geojson"
    package static func run(_ data: UnsafeRawBufferPointer) { FeedHarness.read(data) }
    package static func seeds() -> [[UInt8]] { FeedHarness.generated(.geojson) }
}
