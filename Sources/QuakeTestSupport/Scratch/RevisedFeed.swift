import Foundation
import QuakeFormat

/// Revised copies of real CSV feeds, for history tests.
package enum RevisedFeed {
    /// A copy of a real CSV with some rows revised: magnitude up, `updated` later, and every
    /// fifth revised event moved by `shift` ms (across partitions with day partitioning).
    package static func write(_ path: String, into dir: String, every: Int, shift: Int64) throws -> String {
        let rows = NaiveCSV.parse(try String(contentsOfFile: path, encoding: .utf8))
        let header = rows[0]
        func col(_ name: String) -> Int { header.firstIndex(of: name) ?? 0 }
        var out = [header.joined(separator: ",")]
        for (k, row) in rows.dropFirst().enumerated() where k % every == 0 {
            var fields = row
            fields[col("mag")] = String(format: "%.2f", (Double(fields[col("mag")]) ?? 1) + 0.1)
            fields[col("updated")] = Timestamp.string((Timestamp.parse(fields[col("updated")]) ?? 0) + 86_400_000)
            if k % (every * 5) == 0, let time = Timestamp.parse(fields[col("time")]) {
                fields[col("time")] = Timestamp.string(time + shift)
            }
            out.append(fields.map(quoted).joined(separator: ","))
        }
        let revisedPath = dir + "/revised-\(every).csv"
        TestSupport.write(out.joined(separator: "\n") + "\n", to: revisedPath)
        return revisedPath
    }

    /// A CSV field, quoted when it holds a comma or a quote.
    private static func quoted(_ field: String) -> String {
        guard field.contains(",") || field.contains("\"") else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
