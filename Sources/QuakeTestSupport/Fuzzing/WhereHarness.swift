
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
        var o = GeneratorOptions(rows: 3000)
        o.rowsPerFile = 3000
        o.firstYear = 2023
        o.lastYear = 2024
        guard let files = try? FeedGenerator.generate(o, into: fuzzScratch + "/where-feed"),
              let s = try? Store.openOrCreate(path: dir, partitioning: .month, blockRows: 512),
              (try? s.load(files)) != nil else { return nil }
        try? s.refresh()
        return s
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
        guard let f = try? WhereParser.parse(text), let store else { return }
        _ = try? store.count(f)
        _ = try? store.query(QuerySpec(filter: f, sort: [SortKey(.mag, ascending: false)], limit: 5))
        _ = try? store.query(QuerySpec(filter: f, limit: 3, offset: 2))
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
