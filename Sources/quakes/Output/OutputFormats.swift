import ArgumentParser
import QuakeInterchange

/// What `agg` prints: its help lists exactly these. `arrow` and `parquet` write typed columns
/// (``AggregateTable``).
enum AggFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, json, ndjson, arrow, parquet, svg
    var format: ResultWriter.Format { ResultWriter.Format(rawValue: rawValue) ?? .table }
    /// Whether the answer is typed columns (Arrow or Parquet) rather than text.
    var isColumnar: Bool { self == .arrow || self == .parquet }
}

/// What `sections` prints: its help lists exactly these.
enum SectionsFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, ndjson
    var format: ResultWriter.Format { ResultWriter.Format(rawValue: rawValue) ?? .table }
}
