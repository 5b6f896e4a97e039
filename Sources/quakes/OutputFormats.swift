import ArgumentParser
import QuakeInterchange

/// What `agg` prints: its help lists exactly these.
enum AggFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, json, ndjson
    var format: ResultWriter.Format { ResultWriter.Format(rawValue: rawValue) ?? .table }
}

/// What `sections` prints: its help lists exactly these.
enum SectionsFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, ndjson
    var format: ResultWriter.Format { ResultWriter.Format(rawValue: rawValue) ?? .table }
}
