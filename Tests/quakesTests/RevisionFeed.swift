import Foundation
import Testing
import QuakeTestSupport

/// A generated feed loaded into a store, for tests that revise some of its events: its CSV rows
/// (the header first), where `mag` and `updated` lie, and a seeded draw of rows.
struct RevisionFeed {
    let rows: [[String]]
    let magColumn: Int
    let updatedColumn: Int
    private var seed: UInt64

    /// Generates `rows` events (`quakes generate --seed generatorSeed`) under `dir/base` and loads
    /// them into `store`; draws come from `drawSeed`.
    init(rows count: Int, generatorSeed: Int, drawSeed: UInt64, dir: String, store: String) throws {
        let arguments = ["generate", "--rows", "\(count)", "--out", dir + "/base", "--seed", "\(generatorSeed)"]
        #expect(try CLI.run(arguments).status == 0)
        #expect(try CLI.run(["load", "--store", store, dir + "/base"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/base")
        let csv = try #require(names.first { $0.hasSuffix(".csv") })
        rows = NaiveCSV.parse(try String(contentsOfFile: dir + "/base/" + csv, encoding: .utf8))
        magColumn = try #require(rows[0].firstIndex(of: "mag"))
        updatedColumn = try #require(rows[0].firstIndex(of: "updated"))
        seed = drawSeed
    }

    var header: [String] { rows[0] }

    /// The next number of the seeded draw (a linear congruential step).
    mutating func next() -> UInt64 {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return seed >> 33
    }

    /// An event's row drawn at random.
    mutating func randomRow() -> [String] { rows[1 + Int(next() % UInt64(rows.count - 2))] }

    /// `fields` as a CSV line, quoted where a field holds a comma or a quote.
    static func line(_ fields: [String]) -> String {
        fields.map { field in
            guard field.contains(",") || field.contains("\"") else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",")
    }

    /// Writes the header and `lines` to `path`.
    func write(_ lines: [String], to path: String) throws {
        try (([header.joined(separator: ",")] + lines).joined(separator: "\n") + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
    }
}
