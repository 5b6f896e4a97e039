import Foundation
import QuakeFormat
import QuakeStore

extension SyncRun {
    /// Syncs from a summary feed: a conditional GET, then one load of the file. A feed covers a
    /// window (the past hour, day, week or month): when the last sync is older than the window's
    /// start, updates in between may be missed, which the run says, and `backfill` fills.
    func feed(_ url: String) async throws(QuakeError) {
        let cursor = try cursor()
        var gapSince = cursor.gapSince
        if gapSince == nil, let last = cursor.lastSync, let window = Self.window(url), last < started - window.millis {
            gapSince = last
        }
        if let gap = gapSince {
            let window = Self.window(url)?.name ?? "window"
            let words = "the last sync before this feed's window (the past \(window)) was at \(Timestamp.string(gap)): "
                + "events updated in between may be missing"
            summary.windowGap = words
            if let backfill = options.backfill {
                options.onMessage?(words + "; filling the gap from \(backfill)")
                try await self.backfill(try SyncSource(url: backfill), since: gap - options.overlapMillis)
                gapSince = nil
            } else {
                options.onMessage?("warning: " + words + "; --backfill FDSN-URL fills the gap")
            }
        }
        let unfilled = gapSince
        var headers: [(String, String)] = []
        if let etag = cursor.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = cursor.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        summary.plan = [PlannedPiece(url: url, events: nil)]
        summary.piecesPlanned = 1
        if options.dryRun { return }
        let started = self.started
        let isCSV = url.lowercased().split(separator: "?").first.map { $0.hasSuffix(".csv") } == true
        let format = isCSV ? "csv" : "geojson"
        let file = scratch + "/feed." + format
        switch try await download(url, to: file, headers: headers) {
        case .notModified:
            summary.notModified = true
            // the feed is as it was: the store was current when this sync began
            var current = try self.cursor()
            current.lastSync = started
            current.gapSince = unfilled
            try commitCursor(current)
        case .noData, .tooMany:
            throw QuakeError(.network, path: url, detail: "the feed answered with no feed (HTTP 204 or 413)")
        case .fetched(let answer):
            // the validators are committed with the rows they describe
            let before = try self.cursor()
            let next: @Sendable (LoadSummary) -> SyncCursor = { loaded in
                var advanced = before
                if let most = loaded.maxUpdated { advanced.maxUpdated = max(advanced.maxUpdated ?? most, most) }
                advanced.events += loaded.new
                advanced.lastSync = started
                advanced.gapSince = unfilled
                advanced.etag = answer.etag
                advanced.lastModified = answer.lastModified
                return advanced
            }
            summary.add(try await load([Fetched(url: url, file: file, headers: [])], next: next))
            summary.pieces += 1
        }
        progress()
    }

    /// Events updated since `since` from an FDSN service, committed piece by piece.
    private func backfill(_ source: SyncSource, since: Int64) async throws(QuakeError) {
        guard case .fdsn = source else {
            throw QuakeError(.invalidArgument, path: source.url, detail: "--backfill takes an FDSN event service URL")
        }
        var innerOptions = options
        innerOptions.backfill = nil
        let inner = SyncRun(store: store, source: source, filter: filter, options: innerOptions, key: key,
                            fetcher: fetcher)
        try await inner.incremental(since: since)
        // filled: the gap is forgotten even when the feed itself is not modified (a dry run commits nothing)
        var filled = try cursor()
        if filled.gapSince != nil && !options.dryRun {
            filled.gapSince = nil
            try commitCursor(filled)
        }
        summary.add(inner.summary.load)
        summary.pieces += inner.summary.pieces
    }

    /// A feed's window, from its name (USGS: `..._hour`, `_day`, `_week`, `_month`).
    static func window(_ url: String) -> (name: String, millis: Int64)? {
        let name = url.lowercased().split(separator: "?").first.map(String.init) ?? url
        let stem = name.split(separator: "/").last.map(String.init) ?? name
        for (w, ms) in [("hour", Int64(3_600_000)), ("day", 86_400_000), ("week", 7 * 86_400_000),
                        ("month", 30 * 86_400_000)] where stem.contains("_" + w + ".") {
            return (w, ms)
        }
        return nil
    }
}
