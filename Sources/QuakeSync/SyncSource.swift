import QuakeFormat

/// Where a sync reads from.
public enum SyncSource: Sendable, Equatable, CustomStringConvertible {
    /// An fdsnws-event 1.x service: its base URL, ending in `/fdsnws/event/1/`.
    case fdsn(String)
    /// A summary feed file (`.geojson` or `.csv`), such as USGS's `summary/all_hour.geojson`.
    case feed(String)

    /// The source a URL names: a feed file when its path ends in `.geojson`, `.json` or `.csv`
    /// (before any query), else an FDSN event service, whose base gets its trailing slash.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for anything but an http or https URL.
    public init(url: String) throws(QuakeError) {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.count > 8 else {
            throw QuakeError(.invalidArgument, path: url, detail: "not an http or https URL")
        }
        let path = lower.split(separator: "?", maxSplits: 1).first.map(String.init) ?? lower
        if path.hasSuffix(".geojson") || path.hasSuffix(".json") || path.hasSuffix(".csv") {
            self = .feed(url)
            return
        }
        guard !url.contains("?") else {
            throw QuakeError(.invalidArgument, path: url, detail: "an FDSN service URL takes no query: give its base "
                + "(.../fdsnws/event/1/) and the filter as flags (--from, --min-mag, ...)")
        }
        self = .fdsn(Self.serviceBase(url))
    }

    /// A service URL as its base: a trailing method name (`query`, `count`, ...) dropped, and the
    /// slash the method names are appended to added.
    static func serviceBase(_ url: String) -> String {
        var base = url
        for tail in ["query", "count", "version", "application.wadl"] where base.hasSuffix("/" + tail) {
            base.removeLast(tail.count)
        }
        if !base.hasSuffix("/") { base += "/" }
        return base
    }

    /// The same source with a service's base in the form ``init(url:)`` gives it: `.fdsn(url)`
    /// made directly, without the trailing slash, reads the same service.
    var normalized: SyncSource {
        switch self {
        case .fdsn(let url): return .fdsn(Self.serviceBase(url))
        case .feed: return self
        }
    }

    /// The URL as given (a service's base with its slash).
    public var url: String {
        switch self {
        case .fdsn(let url), .feed(let url): return url
        }
    }

    public var description: String {
        switch self {
        case .fdsn(let url): return "FDSN event service \(url)"
        case .feed(let url): return "feed \(url)"
        }
    }
}
