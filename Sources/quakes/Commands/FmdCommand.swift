import ArgumentParser
import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

/// `quakes fmd`: the frequency–magnitude distribution of the matching events, Mc and the b-value.
struct FmdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmd", _superCommandName: "quakes",
        abstract: "The frequency-magnitude distribution of matching events: bins, Mc, b-value and a-value.",
        discussion: """
        Takes the same filters as count. Events without a magnitude are left out and counted.
        Bins: a magnitude M falls in the bin floor(M/D + 1/2)*D, D = --bin, computed on the stored \
        decimal, never on a binary float. Every bin from the lowest to the highest is listed, empty \
        ones too, with its count and its cumulative count (events at or above it).
        Mc: maxc is the maximum-curvature method, the bin with the most events (the lowest such bin on \
        a tie) plus --mc-correction (default 0.2, after Woessner & Wiemer 2005, BSSA 95(2)). A number \
        fixes Mc.
        b: Aki's (1965) maximum-likelihood estimate with Utsu's (1966) correction for binning, over \
        the events at or above Mc: b = log10(e) / (mean(M) - (Mc - D/2)), M the binned magnitudes. \
        Its uncertainty after Shi & Bolt (1982): sigma = 2.3 * b^2 * sqrt(sum((M - mean)^2) / (n(n - 1))). \
        Then a = log10(n) + b*Mc.
        --by year|month|N gives one row per year, per month (UTC), or per window of N consecutive \
        events with a magnitude in time order (keyed by the time of its first event; the last window \
        may be short). Each row has its own Mc unless --mc VALUE is given. A group with fewer than 50 \
        events at or above its Mc reports its count and no b.
        --format svg draws a figure: per-bin counts (open squares) and cumulative counts (filled \
        circles) on a log axis, the fitted line log10 N = a - b*M from Mc up, Mc as a dashed line, and a \
        legend with b ± sigma, a, the events at or above Mc, Mc and the filter. With --by it draws b \
        against each group's time with a ±sigma band (a group without b leaves a gap).
        Example: quakes fmd --from 2024-01-01 --min-depth 0 --bin 0.1 --by month --format csv
        Example: quakes fmd --min-mag 1 --format svg --out fmd.svg
        """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var filters: FilterOptions
    // numbers may start with '-' (a negative Mc is common in micro-seismicity): taken as values, as the filters do
    @Option(parsing: .unconditional, help: "The bin width D (a decimal above 0, at most 100, at most 9 decimals).")
    var bin: Double = 0.1
    @Option(parsing: .unconditional, help: "Mc: maxc (maximum curvature) or a magnitude (at most 9 decimals).")
    var mc: String = "maxc"
    @Option(parsing: .unconditional, help: "Added to the maximum-curvature bin (default 0.2).")
    var mcCorrection: Double?
    @Option(parsing: .unconditional, help: "One row per year, month, or window of N events (year|month|N).")
    var by: String?
    @Option(name: .customLong("format"), help: "table, json, csv or svg (a figure).") var output: FmdFormat = .table
    @Option(help: "Write to this file instead of standard output.") var out: String?

    func validate() throws {
        guard bin > 0, bin <= MagnitudeBinning.widestBin, let width = DecimalValue(bin), width.units > 0 else {
            throw ValidationError("--bin: a number above 0 and at most \(Int(MagnitudeBinning.widestBin)) "
                + "with at most \(DecimalValue.maxScale) decimals, not \(bin)")
        }
        _ = try completeness()
        _ = try grouping()
        if let out, out.isEmpty { throw ValidationError("--out: name a file") }
    }

    /// `--mc` and `--mc-correction` as the store takes them.
    func completeness() throws -> MagnitudeOfCompleteness {
        if mc == "maxc" {
            let correction = mcCorrection ?? 0.2
            guard DecimalValue(correction) != nil else {
                throw ValidationError("--mc-correction: a number with at most \(DecimalValue.maxScale) decimals, "
                    + "not \(correction)")
            }
            return .maximumCurvature(correction: correction)
        }
        guard let value = Double(mc), value.isFinite, DecimalValue(value) != nil else {
            throw ValidationError("--mc: maxc or a magnitude such as 2.5 (at most \(DecimalValue.maxScale) "
                + "decimals), not '\(mc)'")
        }
        if mcCorrection != nil { throw ValidationError("--mc-correction goes with --mc maxc, not a fixed Mc") }
        return .fixed(value)
    }

    /// `--by` as the store takes it; nil for one distribution.
    func grouping() throws -> FrequencyMagnitudeGrouping? {
        guard let by else { return nil }
        switch by {
        case "year": return .year
        case "month": return .month
        default:
            guard let size = Int(by), size >= 1 else {
                throw ValidationError("--by: year, month or a number of events such as 500, not '\(by)'")
            }
            return .events(size)
        }
    }

    func run() throws {
        let opened = try store.open()
        let filter = try filters.filter(in: opened)
        let text: String
        if let grouping = try grouping() {
            let groups = try opened.frequencyMagnitude(filter, bin: bin, mc: try completeness(), by: grouping)
            text = output == .svg ? figure(groups, mc: try completeness()) : FmdWriter.text(groups, format: output)
        } else {
            let distribution = try opened.frequencyMagnitude(filter, bin: bin, mc: try completeness())
            text = output == .svg ? figure(distribution, mc: try completeness())
                : FmdWriter.text(distribution, format: output, mc: try completeness())
        }
        guard let out else {
            Console.out.write(text)
            return
        }
        let file = try OutputSink(path: out)
        file.write(text)
        try file.finish()
    }
}

/// `quakes fmd --format`.
enum FmdFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv, svg
}
