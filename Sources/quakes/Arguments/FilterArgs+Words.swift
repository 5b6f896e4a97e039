import Foundation

extension FilterArgs {
    /// The longest filter text a figure's legend shows, in characters.
    static let longestWords = 64

    /// The filter in a few words, for a figure's legend: `M ≥ 2.5, depth 0–40 km, from 2024-01-01
    /// to 2025-01-01, net us`; `all events` when nothing is filtered. Filters without a short
    /// wording are summed up as `other filters`; the text is cut at ``longestWords``.
    var words: String {
        var parts = timeWords + rangeWords
        if let bbox { parts.append("box " + bbox) }
        if let near { parts.append(radiusKm.map { "within \(Self.number($0)) km of \(near)" } ?? "near " + near) }
        for (name, value) in [("place", place), ("place like", placeLike), ("net", net), ("magType", magType),
                              ("type", type), ("status", status)] {
            if let value { parts.append(name + " " + value) }
        }
        if let whereText { parts.append("where " + whereText) }
        if hasOtherFilters { parts.append("other filters") }
        guard !parts.isEmpty else { return "all events" }
        let text = parts.joined(separator: ", ")
        return text.count <= Self.longestWords ? text : String(text.prefix(Self.longestWords - 1)) + "…"
    }

    /// The time filters in words.
    private var timeWords: [String] {
        var parts: [String] = []
        if let day { parts.append(day) }
        if let last { parts.append("last " + last) }
        if let from, let upper = to ?? endtime {
            parts.append(from + " to " + upper)
        } else if let from {
            parts.append("from " + from)
        } else if let to {
            parts.append("before " + to)
        } else if let endtime {
            parts.append("to " + endtime)
        }
        return parts
    }

    /// The magnitude and depth ranges in words.
    private var rangeWords: [String] {
        var parts: [String] = []
        switch (minMag, maxMag) {
        case (let low?, let high?): parts.append("M \(Self.number(low))–\(Self.number(high))")
        case (let low?, nil): parts.append("M ≥ \(Self.number(low))")
        case (nil, let high?): parts.append("M ≤ \(Self.number(high))")
        case (nil, nil): break
        }
        switch (minDepth, maxDepth) {
        case (let low?, let high?): parts.append("depth \(Self.number(low))–\(Self.number(high)) km")
        case (let low?, nil): parts.append("depth ≥ \(Self.number(low)) km")
        case (nil, let high?): parts.append("depth ≤ \(Self.number(high)) km")
        case (nil, nil): break
        }
        return parts
    }

    /// Whether a filter without a short wording is set (ids, FDSN boxes and radii, null tests, ...).
    private var hasOtherFilters: Bool {
        let texts: [String?] = [eventid, contributor, reviewstatus, id, updatedafter, changedSince]
        let numbers: [Double?] = [minradius, minradiuskm, minlatitude, maxlatitude, minlongitude, maxlongitude,
                                  latitude, longitude, maxradius]
        return texts.contains { $0 != nil } || numbers.contains { $0 != nil } || !isNull.isEmpty
            || !notNull.isEmpty
    }

    /// A number as typed: `2.5`, `3` (no `.0`).
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
