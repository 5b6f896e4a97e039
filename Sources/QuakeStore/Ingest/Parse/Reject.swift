import QuakeFormat
/// A feed row the loader could not store: where it is and why.
///
/// A load reports each one to ``LoadOptions/onReject`` as it is found and counts them in
/// ``LoadSummary/rejected``; the other rows still load, unless ``LoadOptions/strict`` is set.
public struct Reject: Sendable, Equatable, CustomStringConvertible {
    /// The input file (`-` for stdin).
    public let file: String
    /// 1-based line (CSV) or 0-based feature index (GeoJSON).
    public let line: Int
    /// True when `line` is a GeoJSON feature index.
    public let isFeature: Bool
    /// Why the row was rejected, naming the field: `mag: not a number: '4,5'`.
    public let reason: String

    /// `file:line: reason`, or `file: feature N: reason` for a GeoJSON feature.
    public var description: String {
        isFeature ? "\(file): feature \(line): \(reason)" : "\(file):\(line): \(reason)"
    }
}

/// Why a single field could not be parsed.
package struct FieldError: Error {
    public let reason: String
}
