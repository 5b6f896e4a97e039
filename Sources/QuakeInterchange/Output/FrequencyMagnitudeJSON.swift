import QuakeStore

/// The JSON of a ``FrequencyMagnitude``, as `quakes fmd --format json` writes it and the server's
/// `/api/fmd` answers it: the snake_case keys in a fixed order (`count`,
/// `without_magnitude`, `bin`, `mc`, `events_above_mc`, `b`, `b_uncertainty`, `a`, `bins`), every
/// key present, `null` for an absent Mc, b, σ or a, numbers as their shortest text that reads back.
package enum FrequencyMagnitudeJSON {
    /// The distribution as one JSON object; `key` first when given (a group of `--by`), then
    /// `extra` members (already JSON: `"name":value`) after `bins`.
    package static func object(_ distribution: FrequencyMagnitude, key: String? = nil,
                               extra: [String] = []) -> String {
        var fields: [String] = []
        if let key { fields.append("\"key\":" + quoted(key)) }
        fields.append(contentsOf: members(distribution))
        fields.append(contentsOf: extra)
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The distribution's members in order, each `"name":value`.
    package static func members(_ distribution: FrequencyMagnitude) -> [String] {
        let bins = distribution.bins.map { bin in
            "{\"magnitude\":" + number(bin.magnitude) + ",\"count\":\(bin.count),\"cumulative\":\(bin.cumulative)}"
        }
        return [
            "\"count\":\(distribution.count)",
            "\"without_magnitude\":\(distribution.withoutMagnitude)",
            "\"bin\":" + number(distribution.bin),
            "\"mc\":" + number(distribution.mc),
            "\"events_above_mc\":\(distribution.eventsAboveMc)",
            "\"b\":" + number(distribution.b),
            "\"b_uncertainty\":" + number(distribution.bUncertainty),
            "\"a\":" + number(distribution.a),
            "\"bins\":[" + bins.joined(separator: ",") + "]",
        ]
    }

    /// A number as JSON (and the CLI's CSV) writes it: the shortest text that reads back (`0.1`),
    /// or `null` for nil, NaN and infinities.
    package static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return "\(value)"
    }

    /// `text` as a JSON string.
    package static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        FeedWriter.jsonString(text.utf8, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
