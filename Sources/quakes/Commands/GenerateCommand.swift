import ArgumentParser
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate", _superCommandName: "quakes",
        abstract: "Write realistic synthetic USGS feed archives.")

    @Option(help: "Distinct events, e.g. 100000, 10M or 500k.") var rows: String
    @Option(help: "Output directory.") var out: String
    @Option(help: "csv or geojson.") var format: FeedWriter.Format = .csv
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Compress files: gz or zst.") var compress: OutputSink.Compression?
    @Option(help: "Events per snapshot file, e.g. 1000000 or 1M.") var fileRows: String = "1M"
    @Option(help: "Fraction of each snapshot repeated, revised, in the next one.") var overlap: Double = 0.02
    @Option(help: "Years to cover, e.g. 2000-2025.") var years: String = "2000-2025"
    @Flag(help: "Shuffle every column but time on its own within each month, and spread updated over years.")
    var independent = false

    func validate() throws {
        guard GenerateCommand.count(rows) != nil else { throw ValidationError("--rows: expected a count like 100000, 500k or 10M") }
        guard yearRange != nil else { throw ValidationError("--years: expected FIRST-LAST, e.g. 2000-2025") }
        guard let n = GenerateCommand.count(fileRows), n > 0 else { throw ValidationError("--file-rows: expected a positive count like 50000, 500k or 1M") }
        guard (0..<1).contains(overlap) else { throw ValidationError("--overlap must be in [0, 1)") }
    }

    var yearRange: (Int, Int)? {
        let p = years.split(separator: "-").compactMap { Int($0) }
        return p.count == 2 && p[0] <= p[1] ? (p[0], p[1]) : nil
    }

    static func count(_ s: String) -> Int? {
        let l = s.lowercased()
        if let v = Int(l) { return v >= 0 ? v : nil }
        let mult: Double = l.hasSuffix("k") ? 1e3 : l.hasSuffix("m") ? 1e6 : 0
        // a count past 10^12 is no feed this machine can write, and Int(1e306) would trap
        guard mult > 0, let v = Double(l.dropLast()), v >= 0, v * mult <= 1e12 else { return nil }
        return Int(v * mult)
    }

    func run() throws {
        var o = GeneratorOptions(rows: GenerateCommand.count(rows) ?? 0)
        o.format = format
        o.seed = seed
        o.compression = compress ?? .none
        o.rowsPerFile = GenerateCommand.count(fileRows) ?? 1_000_000
        o.overlap = overlap
        o.independent = independent
        (o.firstYear, o.lastYear) = yearRange!
        let files = try FeedGenerator.generate(o, into: out)
        for f in files { print(f) }
    }
}

extension OutputSink.Compression: ExpressibleByArgument {}
