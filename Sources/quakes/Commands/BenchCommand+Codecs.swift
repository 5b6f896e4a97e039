import Foundation
import QuakeFormat
import QuakeStore
import QuakeGenerator

extension BenchCommand {
    /// `--codecs`: each column's codecs, bytes per row and decode/encode speed.
    func printCodecs() throws {
        let report = try Store(path: Store.defaultPath(explicit: store)).codecReport()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print(padded("column", 16) + padded("codecs", 26) + "bytes/row".leftPad(10) + "decode Mrows/s".leftPad(16)
              + "encode Mrows/s".leftPad(16))
        for column in report {
            let rows = Double(max(1, column.rows))
            let rates = String(format: "%10.2f%16.1f%16.1f", Double(column.bytes) / rows,
                               rows / 1e3 / max(column.decodeMs, 1e-6), rows / 1e3 / max(column.encodeMs, 1e-6))
            print(padded(column.column, 16) + padded(column.codecs.joined(separator: ","), 26) + rates)
        }
    }

    /// `text` padded with spaces to `width`.
    func padded(_ text: String, _ width: Int) -> String {
        text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
    }
}
