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
        guard GenerateCommand.count(rows) != nil else {
            throw ValidationError("--rows: expected a count like 100000, 500k or 10M")
        }
        guard yearRange != nil else { throw ValidationError("--years: expected FIRST-LAST, e.g. 2000-2025") }
        guard let perFile = GenerateCommand.count(fileRows), perFile > 0 else {
            throw ValidationError("--file-rows: expected a positive count like 50000, 500k or 1M")
        }
        guard (0..<1).contains(overlap) else { throw ValidationError("--overlap must be in [0, 1)") }
    }

    var yearRange: (Int, Int)? {
        let bounds = years.split(separator: "-").compactMap { Int($0) }
        return bounds.count == 2 && bounds[0] <= bounds[1] ? (bounds[0], bounds[1]) : nil
    }

    static func count(_ s: String) -> Int? {
        let lower = s.lowercased()
        if let whole = Int(lower) { return whole >= 0 ? whole : nil }
        let mult: Double = lower.hasSuffix("k") ? 1e3 : lower.hasSuffix("m") ? 1e6 : 0
        // a count past 10^12 is no feed this machine can write, and Int(1e306) would trap
        guard mult > 0, let scaled = Double(lower.dropLast()), scaled >= 0, scaled * mult <= 1e12 else { return nil }
        return Int(scaled * mult)
    }

    func run() throws {
        var options = GeneratorOptions(rows: GenerateCommand.count(rows) ?? 0)
        options.format = format
        options.seed = seed
        options.compression = compress ?? .none
        options.rowsPerFile = GenerateCommand.count(fileRows) ?? 1_000_000
        options.overlap = overlap
        options.independent = independent
        (options.firstYear, options.lastYear) = yearRange!
        let files = try FeedGenerator.generate(options, into: out)
        for file in files { print(file) }
    }
}

extension OutputSink.Compression: ExpressibleByArgument {}
