import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange

/// Size and decode speed of each column's chunks, for `quakes bench --codecs`.
package struct CodecReport: Sendable, Codable {
    package var column: String
    package var codecs: [String]
    package var bytes: Int
    package var rows: Int
    /// Decoding every chunk of the column once, in its stored form.
    package var decodeMs: Double
    /// Encoding the decoded rows again with the column's codec choice.
    package var encodeMs: Double
}

extension Store {
    /// Decodes and re-encodes every chunk of up to `partitions` partitions, column by column.
    /// - Complexity: reads the sampled partitions whole.
    package func codecReport(partitions: Int = 24) throws -> [CodecReport] {
        let sample = Array(manifest.partitions.suffix(partitions))
        var out: [CodecReport] = []
        for column in Column.allCases {
            var report = CodecReport(
                column: column.name, codecs: [], bytes: 0, rows: 0, decodeMs: 0, encodeMs: 0
            )
            var used = Set<String>()
            for entry in sample {
                let reader = self.reader(entry)
                let dir = try reader.directory()
                for (k, info) in dir.chunks[column.rawValue].enumerated() {
                    used.insert(info.codec.name)
                    report.bytes += info.length
                    report.rows += info.rows
                    _ = try reader.decode(column, block: k)   // checksum checked once, outside the timing
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    _ = try reader.decode(column, block: k, as: column.kind == .decimal ? .doubles : .stored)
                    report.decodeMs += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                }
                let batch = try reader.readAll()
                var scratch: [UInt8] = []
                let t0 = DispatchTime.now().uptimeNanoseconds
                var start = 0
                while start < batch.count {
                    let rows = start..<min(batch.count, start + dir.blockRows)
                    _ = PartitionFile.encodeChunk(column, batch, rows: rows, into: &scratch)
                    scratch.removeAll(keepingCapacity: true)
                    start = rows.upperBound
                }
                report.encodeMs += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            }
            report.codecs = used.sorted()
            out.append(report)
        }
        return out
    }
}
