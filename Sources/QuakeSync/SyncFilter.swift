import QuakeFormat

/// What a sync keeps a copy of: a time window and FDSN event parameters (`minmagnitude`,
/// `minlatitude`, `catalog`...), sent as the service's own query parameters.
public struct SyncFilter: Sendable, Equatable {
    /// The first event time, inclusive (epoch ms); nil is the default window's start.
    public var start: Int64?
    /// The last event time, exclusive (epoch ms); nil is open (now, for a first sync).
    public var end: Int64?
    /// FDSN parameters other than the time window, as name and value.
    public var parameters: [Parameter]

    /// One FDSN query parameter.
    public struct Parameter: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(start: Int64? = nil, end: Int64? = nil, parameters: [Parameter] = []) {
        self.start = start
        self.end = end
        self.parameters = parameters.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
    }

    /// The parameters that are the service's to read, never the filter's: they would change
    /// what a piece holds or how it is written.
    static let reserved: Set<String> = [
        "starttime", "start", "endtime", "end", "updatedafter", "limit", "offset", "orderby", "format",
        "nodata", "includedeleted", "callback", "jsonerror",
    ]

    /// The filter as one canonical text (times in ISO 8601, parameters sorted): part of the
    /// cursor's key, so another filter on the same source keeps its own cursor.
    public var key: String {
        var parts: [String] = []
        if let start { parts.append("starttime=" + Timestamp.string(start)) }
        if let end { parts.append("endtime<" + Timestamp.string(end)) }
        for p in parameters { parts.append(p.name + "=" + p.value) }
        return parts.joined(separator: "&")
    }
}
