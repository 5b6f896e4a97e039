import QuakeFormat
/// Reads one feed file of either format, detected from its content. Used by one thread at a
/// time: not Sendable; the loader hands it to its parsing thread inside an ``Exclusive``.
package final class FeedReader {
    package enum Format: String { case csv, geojson }

    package let format: Format
    package let input: FeedInput
    /// The unit of integer GeoJSON times given, the strictness, and the text rules, as opened.
    package let timeUnit: TimeUnit?
    package let strict: Bool
    package let rulesGiven: FieldRules
    private let csv: CSVFeedReader?
    private let geojson: GeoJSONFeedReader?

    /// Opens `path` (`-` for stdin). `seqBase` orders this file's rows after earlier files'.
    package init(path: String, seqBase: Int64, timeUnit: TimeUnit? = nil, strict: Bool = false,
                 rules: FieldRules = FieldRules(), onWarning: @escaping (String) -> Void = { _ in },
                 onReject: @escaping (Reject) -> Void) throws(QuakeError) {
        input = try FeedInput(path: path)
        self.timeUnit = timeUnit
        self.strict = strict
        rulesGiven = rules
        var first: [UInt8] = []
        while first.count < 64, let chunk = try input.next() { first.append(contentsOf: chunk) }
        guard let lead = first.first(where: {
            $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF
        }) else {
            throw .format("\(path): empty file")
        }
        if lead == UInt8(ascii: "{") {
            format = .geojson
            geojson = GeoJSONFeedReader(input: input, initial: first, seqBase: seqBase, timeUnit: timeUnit,
                                        strict: strict, onWarning: onWarning, onReject: onReject)
            geojson?.rules = rules
            csv = nil
        } else if Self.namedJSON(path) {
            // a file named as JSON that is none is reported as what it was meant to be
            if lead == UInt8(ascii: "[") {
                throw .format("\(path): not a GeoJSON feed: a JSON array, where a feed is an object beginning with '{'")
            }
            let shown = lead >= 0x20 && lead < 0x7F ? "'\(Character(Unicode.Scalar(lead)))'" : "byte \(lead)"
            throw .format("\(path): not JSON: it begins with \(shown), where a GeoJSON feed begins with '{'")
        } else {
            format = .csv
            csv = try CSVFeedReader(input: input, initial: first, seqBase: seqBase, onReject: onReject)
            csv?.rules = rules
            geojson = nil
        }
    }

    /// True for a name that says JSON (`.geojson`, `.json`, compressed or not).
    static func namedJSON(_ path: String) -> Bool {
        var name = path.lowercased()
        for suffix in [".gz", ".zst"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        return name.hasSuffix(".geojson") || name.hasSuffix(".json")
    }

    /// The CSV reader, for planning a split parse.
    package var csvReader: CSVFeedReader? { csv }

    /// True for a CSV file whose last row had no newline (see ``CSVFeedReader/endedWithoutNewline``).
    package var endedWithoutNewline: Bool { csv?.endedWithoutNewline ?? false }

    /// Warnings about the file as a whole.
    package var warnings: [String] { csv?.warnings ?? [] }

    /// What the text rules met in this reader's rows so far.
    package var rulesMet: FieldRules { csv?.rules ?? geojson?.rules ?? FieldRules() }

    /// The next batch of up to `maxRows` rows, or nil at the end.
    package func next(maxRows: Int) throws(QuakeError) -> RowBatch? {
        if let csv { return try csv.next(maxRows: maxRows) }
        if let geojson { return try geojson.next(maxRows: maxRows) }
        return nil
    }
}
