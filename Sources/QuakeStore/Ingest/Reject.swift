import QuakeFormat
/// A feed row the loader could not store: where it is and why.
public struct Reject: Sendable, Equatable, CustomStringConvertible {
    /// The input file (`-` for stdin).
    public let file: String
    /// 1-based line (CSV) or 0-based feature index (GeoJSON).
    public let line: Int
    /// True when `line` is a GeoJSON feature index.
    public let isFeature: Bool
    public let reason: String

    public var description: String {
        isFeature ? "\(file): feature \(line): \(reason)" : "\(file):\(line): \(reason)"
    }
}

/// Why a single field could not be parsed.
package struct FieldError: Error {
    public let reason: String
}
