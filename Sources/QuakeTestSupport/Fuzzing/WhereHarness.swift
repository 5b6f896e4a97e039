
import Foundation
import QuakeFormat
import QuakeStore
import QuakeInterchange
import QuakeGenerator

/// Parses the input as `--where` text and runs what parses against a small store: a count and
/// a top-5 by magnitude, so bounds that parse but cannot be planned are found too. Inputs that
/// start with `#` go to the duration and date parsers of `--last`, `--from` and `--to`.
package enum WhereHarness: FuzzHarness {
    package static let name = "where"

    package static let store: Store? = {
        let dir = fuzzScratch + "/store"
        var options = GeneratorOptions(rows: 3000)
        options.rowsPerFile = 3000
        options.firstYear = 2023
        options.lastYear = 2024
        guard let files = try? FeedGenerator.generate(options, into: fuzzScratch + "/where-feed"),
              let opened = try? Store.openOrCreate(path: dir, partitioning: .month, blockRows: 512),
              (try? opened.load(files)) != nil else { return nil }
        try? opened.refresh()
        return opened
    }()

    package static func run(_ data: UnsafeRawBufferPointer) {
        // SAFETY: String(decoding:) copies the input; `data` is not kept.
        let text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("#") {
            let rest = String(text.dropFirst())
            _ = DateParsing.duration(rest)
            _ = DateParsing.parse(rest)
            return
        }
        guard let filter = try? WhereParser.parse(text), let store else { return }
        _ = try? store.count(filter)
        _ = try? store.query(QuerySpec(filter: filter, sort: [SortKey(.mag, ascending: false)], limit: 5))
        _ = try? store.query(QuerySpec(filter: filter, limit: 3, offset: 2))
    }

    package static func seeds() -> [[UInt8]] {
        [
            "mag >= 4.5 && (place.contains(\"Alaska\") || net == \"ak\") && time >= \"2011-03-11\"",
            "depth < 10 || !(mag > 2)", "time == 1700000000000", "mag == nil", "place != nil",
            "latitude > -33.5 && longitude <= 170.25", "title.localizedStandardContains(\"CA\")",
            "updated >= \"2024-01-01T00:00:00Z\"", "((mag > 1))", "true", "false || mag < 0",
            "#7d", "#2024-02-29", "#2024-06-15T09:00:00Z", "#12h",
        ].map { Array($0.utf8) }
    }
}
