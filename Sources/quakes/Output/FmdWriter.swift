import Foundation
import QuakeInterchange
import QuakeStore

/// The text of `quakes fmd`: a summary and the bins as a table, JSON, or CSV.
enum FmdWriter {
    static func text(_ distribution: FrequencyMagnitude, format: FmdFormat, mc: MagnitudeOfCompleteness) -> String {
        switch format {
        case .json: return json(distribution) + "\n"
        case .csv: return binsCSV(distribution)
        case .table, .svg: return table(distribution, mc: mc)
        }
    }

    static func text(_ groups: [FrequencyMagnitudeGroup], format: FmdFormat) -> String {
        switch format {
        case .json:
            let items = groups.map { json($0.distribution, key: $0.key) }
            return "{\"groups\":[" + items.joined(separator: ",") + "]}\n"
        case .csv: return groupsCSV(groups, separator: ",")
        case .table, .svg: return groupsTable(groups)
        }
    }

    /// The JSON object of one distribution, keys in the order, `null` for what is absent
    /// (the server's `/api/fmd` writes the same, ``FrequencyMagnitudeJSON``).
    static func json(_ distribution: FrequencyMagnitude, key: String? = nil) -> String {
        FrequencyMagnitudeJSON.object(distribution, key: key)
    }

    /// A number as JSON and CSV write it: the shortest text that reads back (`0.1`), or `null`.
    static func number(_ value: Double?) -> String {
        FrequencyMagnitudeJSON.number(value)
    }

    static func binsCSV(_ distribution: FrequencyMagnitude) -> String {
        var lines = ["magnitude,count,cumulative"]
        for bin in distribution.bins { lines.append(number(bin.magnitude) + ",\(bin.count),\(bin.cumulative)") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func groupsCSV(_ groups: [FrequencyMagnitudeGroup], separator: String) -> String {
        var lines = ["key,count,without_magnitude,bin,mc,events_above_mc,b,b_uncertainty,a"]
        for group in groups {
            let distribution = group.distribution
            let cells = [group.key, String(distribution.count), String(distribution.withoutMagnitude),
                         number(distribution.bin), number(distribution.mc), String(distribution.eventsAboveMc),
                         number(distribution.b), number(distribution.bUncertainty), number(distribution.a)]
            lines.append(cells.map { $0 == "null" ? "" : $0 }.joined(separator: separator))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A short summary, then the bins.
    static func table(_ distribution: FrequencyMagnitude, mc: MagnitudeOfCompleteness) -> String {
        var lines: [String] = []
        lines.append("events:         \(distribution.count) (\(distribution.withoutMagnitude) without magnitude)")
        lines.append("bin width:      " + number(distribution.bin))
        let method: String
        switch mc {
        case .maximumCurvature(let correction): method = "maximum curvature + " + number(correction)
        case .fixed: method = "fixed"
        }
        lines.append("Mc:             " + (distribution.mc.map { number($0) } ?? "-") + " (\(method))")
        lines.append("events >= Mc:   \(distribution.eventsAboveMc)")
        if let b = distribution.b, let sigma = distribution.bUncertainty, let a = distribution.a {
            lines.append("b:              " + rounded(b, 3) + " ± " + rounded(sigma, 3) + " (Aki-Utsu; Shi & Bolt)")
            lines.append("a:              " + rounded(a, 3))
        } else {
            lines.append("b:              - (fewer than \(FrequencyMagnitude.minimumEvents) events at or above Mc)")
        }
        lines.append("")
        lines.append(pad("magnitude", 10) + pad("count", 12) + pad("cumulative", 12))
        for bin in distribution.bins {
            lines.append(pad(number(bin.magnitude), 10) + pad(String(bin.count), 12) + pad(String(bin.cumulative), 12))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per group: key, counts, Mc, b ± σ and a.
    static func groupsTable(_ groups: [FrequencyMagnitudeGroup]) -> String {
        let width = max(8, groups.map(\.key.count).max() ?? 0) + 2
        var lines = [padLeft("key", width) + pad("count", 10) + pad("no mag", 8) + pad("Mc", 8) + pad(">= Mc", 10)
            + pad("b", 8) + pad("± b", 8) + pad("a", 8)]
        for group in groups {
            let distribution = group.distribution
            var line = padLeft(group.key, width) + pad(String(distribution.count), 10)
            line += pad(String(distribution.withoutMagnitude), 8)
            line += pad(distribution.mc.map { number($0) } ?? "-", 8)
            line += pad(String(distribution.eventsAboveMc), 10)
            line += pad(distribution.b.map { rounded($0, 3) } ?? "-", 8)
            line += pad(distribution.bUncertainty.map { rounded($0, 3) } ?? "-", 8)
            line += pad(distribution.a.map { rounded($0, 3) } ?? "-", 8)
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func rounded(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    /// `text` right-aligned in `width` columns.
    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(1, width - text.count)) + text
    }

    /// `text` left-aligned in `width` columns.
    private static func padLeft(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}
