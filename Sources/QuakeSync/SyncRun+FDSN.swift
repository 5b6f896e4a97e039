import Foundation
import QuakeFormat
import QuakeStore

extension SyncRun {
    /// A piece of the time window: `start` inclusive, `end` exclusive, nil unbounded.
    struct Piece {
        var start: Int64?
        var end: Int64?
        var events: Int?
    }

    /// Syncs from an FDSN event service: a first sync (or the rest of one) piece by piece, then
    /// what changed since the cursor.
    func fdsn(_ base: String) async throws(QuakeError) {
        var cursor = try cursor()
        var common = filter.parameters.map { ($0.name, $0.value) }
        if try await offersIncludeDeleted(base) { common.append(("includedeleted", "true")) }
        let counting = Counting(base: base, common: common)
        let overlap = options.overlapMillis
        let started = self.started
        if cursor.since == nil {
            summary.firstSync = true
            let defaultDays = Int64(min(max(options.defaultDays, 0), 3_650_000))
            let start = filter.start ?? started - defaultDays * 86_400_000
            let plan = cursor.plan ?? SyncCursor.Plan(start: start, end: filter.end ?? started, madeAt: started,
                                                      doneThrough: start)
            guard plan.start < plan.end else {
                throw QuakeError(.invalidArgument, path: source.url, detail: "the window is empty: "
                    + "\(Timestamp.string(plan.start)) to \(Timestamp.string(plan.end))")
            }
            if cursor.plan != nil {
                // a dry run resumes nothing: it says what a sync would do
                let verb = options.dryRun ? "a sync would resume" : "resuming"
                options.onMessage?("\(verb) the first sync at \(Timestamp.string(plan.doneThrough))")
            } else if filter.start == nil {
                options.onMessage?("note: a first sync with no --from covers the last \(options.defaultDays) days "
                    + "(from \(Timestamp.string(start).prefix(10))), as libcomcat does; --from reaches further")
            }
            cursor.plan = plan
            cursor.windowStart = cursor.windowStart ?? plan.start
            try await fetchPieces(base, counting, from: plan.doneThrough, to: plan.end, since: nil,
                                  cursor: cursor) {
                advanced, piece, last in
                advanced.plan?.doneThrough = piece.end ?? plan.end
                if last {
                    advanced.plan = nil
                    advanced.since = min(advanced.maxUpdated ?? plan.madeAt, plan.madeAt) - overlap
                }
            }
        } else {
            let since = cursor.since ?? 0
            try await fetchPieces(base, counting, from: cursor.windowStart, to: filter.end, since: since,
                                  cursor: cursor) {
                advanced, _, last in
                if last, let maxUpdated = advanced.maxUpdated {
                    advanced.since = max(since, min(maxUpdated, started) - overlap)
                }
            }
        }
    }

    /// Events updated since `since`, whatever their time, committed piece by piece under this
    /// run's key (a feed's backfill).
    func incremental(since: Int64) async throws(QuakeError) {
        guard case .fdsn(let base) = source else {
            throw QuakeError(.invalidArgument, path: source.url, detail: "--backfill takes an FDSN event service URL")
        }
        var common = filter.parameters.map { ($0.name, $0.value) }
        if try await offersIncludeDeleted(base) { common.append(("includedeleted", "true")) }
        try await fetchPieces(base, Counting(base: base, common: common), from: nil, to: nil, since: since,
                              cursor: try cursor()) { _, _, _ in }
    }

    /// Plans `[from, to)` into pieces under the service's limit, then fetches and commits them
    /// oldest first, each with the cursor `advance` makes of the one before.
    private func fetchPieces(_ base: String, _ counting: Counting, from: Int64?, to: Int64?, since: Int64?,
                             cursor: SyncCursor,
                             advance: @escaping @Sendable (inout SyncCursor, Piece, Bool) -> Void)
        async throws(QuakeError) {
        var queue = try await planSummary(base, counting, from: from, to: to, since: since)
        if options.dryRun { return }
        var cursor = cursor
        if queue.isEmpty {
            try commitNothingMatched(cursor, from: from, to: to, advance: advance)
            return
        }
        // pieces are fetched one at a time and committed in groups (by bytes or seconds): a commit
        // rewrites what it touches, so one per 20,000 events would cost more than the fetching
        var group: [(piece: Piece, fetched: Fetched?)] = []
        var groupBytes = 0
        var lastCommit = Date()
        var pieceNumber = 0
        var inflight: Task<(LoadSummary, SyncCursor), any Error>?
        do throws(QuakeError) {
            while !queue.isEmpty {
                let piece = queue.removeFirst()
                let pieceURL = url(base, piece, since, counting.common)
                let file = scratch + "/piece-\(pieceNumber).\(options.format.rawValue)"
                pieceNumber += 1
                switch try await download(pieceURL, to: file) {
                case .fetched(let answer):
                    group.append((piece, Fetched(url: pieceURL, file: file)))
                    groupBytes += answer.size
                    piecesFetched += 1
                    eventsFetched += piece.events ?? 0
                    progress()
                case .noData, .notModified: group.append((piece, nil))
                case .tooMany:
                    // the service holds more than it counted: halve the piece and go on
                    options.onMessage?("the service refused a piece as too large; splitting it in two")
                    queue.insert(contentsOf: try split(piece, into: 2, from: from, to: to), at: 0)
                    summary.piecesPlanned += 1
                    continue
                }
                let last = queue.isEmpty
                guard last || groupBytes >= options.commitBytes
                    || Date().timeIntervalSince(lastCommit) >= options.commitSeconds else { continue }
                try await commitGroup(group, last: last, cursor: &cursor, inflight: &inflight, advance: advance)
                summary.pieces += group.count
                group = []
                groupBytes = 0
                lastCommit = Date()
            }
            if let load = inflight {
                inflight = nil
                cursor = try await finish(load)
            }
        } catch {
            // a failure or cancellation waits for the load in flight (cancelled with the sync, else
            // left to finish): it commits whole or not at all, never after the sync has returned
            if let load = inflight { _ = try? await finish(load) }
            throw error
        }
    }

    /// Nothing matches: a first sync still completes, so the next one asks only for changes;
    /// a later one records that the store was current when it began.
    private func commitNothingMatched(_ cursor: SyncCursor, from: Int64?, to: Int64?,
                                      advance: (inout SyncCursor, Piece, Bool) -> Void) throws(QuakeError) {
        var cursor = cursor
        if summary.firstSync { advance(&cursor, Piece(start: from, end: to), true) }
        cursor.lastSync = started
        try commitCursor(cursor)
    }

    /// The pieces of `[from, to)`, with the plan written into the summary.
    private func planSummary(_ base: String, _ counting: Counting, from: Int64?, to: Int64?,
                             since: Int64?) async throws(QuakeError) -> [Piece] {
        let queue = try await plan(counting, from, to, since)
        summary.piecesPlanned = queue.count
        eventsPlanned = queue.reduce(0) { $0 + ($1.events ?? 0) }
        summary.plan = queue.map { PlannedPiece(url: url(base, $0, since, counting.common), events: $0.events) }
        summary.serviceLimit = counting.limit
        return queue
    }

    /// Commits a group of pieces: with nothing fetched, the cursor alone; else a load that runs
    /// while the next piece downloads, left in `inflight`.
    private func commitGroup(_ group: [(piece: Piece, fetched: Fetched?)], last: Bool,
                             cursor: inout SyncCursor,
                             inflight: inout Task<(LoadSummary, SyncCursor), any Error>?,
                             advance: @escaping @Sendable (inout SyncCursor, Piece, Bool) -> Void)
        async throws(QuakeError) {
        // a group's cursor follows the one before it: the load before this one finishes first
        if let load = inflight {
            inflight = nil
            cursor = try await finish(load)
        }
        try stopIfCancelled()
        let started = self.started
        let before = cursor
        let through = group[group.count - 1].piece
        let next: @Sendable (LoadSummary) -> SyncCursor = { loaded in
            var advanced = before
            if let most = loaded.maxUpdated { advanced.maxUpdated = max(advanced.maxUpdated ?? most, most) }
            advanced.events += loaded.new
            advance(&advanced, through, last)
            // the store was current when this sync began, whether or not it changed anything
            if last { advanced.lastSync = started }
            return advanced
        }
        let files = group.compactMap(\.fetched)
        if files.isEmpty {
            cursor = next(LoadSummary())
            if summary.firstSync || cursor != before { try commitCursor(cursor) }
        } else {
            // the load runs while the next piece downloads
            let loader = pieces
            inflight = Task { () async throws -> (LoadSummary, SyncCursor) in
                let loaded = try await loader.load(files, next: next)
                return (loaded, next(loaded))
            }
        }
    }

    /// The group in flight, awaited: the sync's cancellation cancels it, so it stops before its
    /// commit or, past that point, commits whole with its cursor.
    private func finish(_ load: Task<(LoadSummary, SyncCursor), any Error>) async throws(QuakeError) -> SyncCursor {
        do {
            let (loaded, loadedCursor) = try await withTaskCancellationHandler {
                try await load.value
            } onCancel: {
                load.cancel()
            }
            summary.add(loaded)
            progress()
            return loadedCursor
        } catch let error as QuakeError {
            throw error
        } catch {
            throw QuakeError(.io, path: store.path, detail: "\(error)")
        }
    }

    /// The pieces of `[from, to)`: counted and split until each is under the limit, in time
    /// order; a service without `count` gets month-long pieces, split further when it refuses one.
    private func plan(_ counting: Counting, _ from: Int64?, _ to: Int64?,
                      _ since: Int64?) async throws(QuakeError) -> [Piece] {
        guard let counted = try await counting.count(self, from, to, since) else {
            options.onMessage?("the service does not count: fetching month-long slices")
            guard let from else { return [Piece(start: nil, end: to)] }
            let end = to ?? started + 86_400_000
            let months = Int(max(1, (end - from) / (31 * 86_400_000)))
            return try split(Piece(start: from, end: end), into: months, from: from, to: to)
        }
        let limit = counting.limit ?? options.pieceLimit
        if counted == 0 { return [] }
        if counted <= limit { return [Piece(start: from, end: to, events: counted)] }
        let parts = Int(min(64, (Double(counted) / (Double(limit) * 0.8)).rounded(.up)))
        var out: [Piece] = []
        for part in try split(Piece(start: from, end: to), into: max(2, parts), from: from, to: to) {
            for piece in try await plan(counting, part.start, part.end, since) {
                // neighbours that fit under the limit together are one request
                if let last = out.last, let lastEvents = last.events, let events = piece.events,
                   lastEvents + events <= limit, last.end == piece.start {
                    out[out.count - 1] = Piece(start: last.start, end: piece.end, events: lastEvents + events)
                } else {
                    out.append(piece)
                }
            }
        }
        return out
    }

    /// `piece` cut into `k` equal spans. An unbounded start takes the storable years' first; an
    /// unbounded end before a day past now is cut there, with the rest (events dated in the
    /// future, which a later sync's open window holds) one more piece, itself cut up to the
    /// storable years' end when it holds too many.
    private func split(_ piece: Piece, into k: Int, from: Int64?, to: Int64?) throws(QuakeError) -> [Piece] {
        let lo = piece.start ?? Timestamp.storable.lowerBound
        let tomorrow = started + 86_400_000
        if piece.end == nil && lo < tomorrow - 1 {
            let spans = try split(Piece(start: piece.start, end: tomorrow), into: max(1, k - 1), from: from, to: to)
            return spans + [Piece(start: tomorrow, end: nil)]
        }
        let hi = piece.end ?? Timestamp.storable.upperBound
        guard hi - lo >= 2 else {
            throw QuakeError(.network, path: source.url,
                             detail: "more events in one millisecond than the service returns "
                + "at once (at \(Timestamp.string(lo)))")
        }
        let count = Int64(min(k, Int(hi - lo)))
        let step = (hi - lo) / count
        return (0..<count).map { i in
            Piece(start: i == 0 ? piece.start : lo + i * step, end: i == count - 1 ? piece.end : lo + (i + 1) * step)
        }
    }

    /// An FDSN time: ISO 8601 to the millisecond, without the zone (UTC), as the spec writes it.
    static func fdsnTime(_ millis: Int64) -> String { String(Timestamp.string(millis).dropLast()) }

    /// The query URL of a piece.
    func url(_ base: String, _ piece: Piece, _ since: Int64?, _ common: [(String, String)]) -> String {
        var query: [(String, String)] = [("format", options.format.rawValue), ("orderby", "time-asc")]
        if let start = piece.start { query.append(("starttime", Self.fdsnTime(start))) }
        // endtime is inclusive: the piece's last millisecond
        if let end = piece.end { query.append(("endtime", Self.fdsnTime(end - 1))) }
        if let since { query.append(("updatedafter", Self.fdsnTime(since))) }
        return base + "query?" + Self.encode(query + common)
    }

    static func encode(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:,")
        return items.map { k, v in
            k + "=" + (v.addingPercentEncoding(withAllowedCharacters: allowed) ?? v)
        }.joined(separator: "&")
    }

    /// Whether the service's `application.wadl` lists `includedeleted`. Every fdsnws-event service
    /// serves one: a base URL that answers without it is no event service, and the sync stops
    /// there rather than reading every 404 as "no events".
    private func offersIncludeDeleted(_ base: String) async throws(QuakeError) -> Bool {
        let url = base + "application.wadl"
        let wadl = try await fetcher.retrying(url, retryUnreachable: false) {
            () async throws(HTTPFetcher.Failure) -> HTTPFetcher.Answer in
            let answer = try await fetcher.get(url)
            if HTTPFetcher.isRetryable(answer.status) { throw HTTPFetcher.failure(answer) }
            return answer
        }
        guard wadl.status == 200, wadl.text.contains("<application") || wadl.text.contains("<resources") else {
            let html = (wadl.contentType ?? "").contains("html") || wadl.text.lowercased().contains("<html")
            let answer = html ? "an HTML page (HTTP \(wadl.status))" : "HTTP \(wadl.status)"
            throw QuakeError(.network, path: url, detail: "not an FDSN event service (\(answer) for its "
                + "application.wadl); give the service's base URL, such as "
                + "https://earthquake.usgs.gov/fdsnws/event/1/")
        }
        return wadl.text.contains("\"includedeleted\"")
    }
}

/// The service's `count` (a USGS addition most fdsnws-event services share): events per window,
/// and the most one query returns (`maxAllowed`).
final class Counting {
    let base: String
    /// The filter's parameters; `includedeleted` is dropped if `count` refuses it.
    private(set) var common: [(String, String)]
    var limit: Int?
    var available = true

    init(base: String, common: [(String, String)]) {
        self.base = base
        self.common = common
    }

    /// The events in `[from, to)` updated after `since`; nil when the service does not count.
    func count(_ run: SyncRun, _ from: Int64?, _ to: Int64?, _ since: Int64?) async throws(QuakeError) -> Int? {
        guard available else { return nil }
        var query: [(String, String)] = [("format", "geojson")]
        if let from { query.append(("starttime", SyncRun.fdsnTime(from))) }
        if let to { query.append(("endtime", SyncRun.fdsnTime(to - 1))) }
        if let since { query.append(("updatedafter", SyncRun.fdsnTime(since))) }
        let url = base + "count?" + SyncRun.encode(query + common)
        let reply = try await run.fetcher.retrying(url) {
            () async throws(HTTPFetcher.Failure) -> HTTPFetcher.Answer in
            let reply = try await run.fetcher.get(url)
            if HTTPFetcher.isRetryable(reply.status) { throw HTTPFetcher.failure(reply) }
            // an error page served as 200 (a proxy's, a service's under load) is retried, as on a query piece
            if reply.status == 200 && Self.parse(reply) == nil {
                throw HTTPFetcher.Failure(retryable: true, detail: Self.junkDetail(reply))
            }
            return reply
        }
        if reply.status == 204 { return 0 }
        if reply.status == 400, let index = common.firstIndex(where: { $0.0 == "includedeleted" }) {
            // a service that lists includedeleted for query but refuses it for count
            common.remove(at: index)
            return try await count(run, from, to, since)
        }
        guard reply.status == 200 else {
            if [404, 405, 501].contains(reply.status) {
                available = false
                return nil
            }
            throw QuakeError(.network, path: url, detail: HTTPFetcher.failure(reply).detail)
        }
        guard let answer = Self.parse(reply) else {
            throw QuakeError(.network, path: url, detail: Self.junkDetail(reply))
        }
        if let most = answer.maxAllowed, most > 0 { limit = min(limit ?? most, most) }
        return answer.count
    }

    /// A count answer: a bare number, or `{"count": N, "maxAllowed": M}`.
    struct CountAnswer: Decodable {
        var count: Int
        var maxAllowed: Int?
    }

    /// The answer's count, or nil when its body is neither form.
    static func parse(_ answer: HTTPFetcher.Answer) -> CountAnswer? {
        let text = answer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let count = Int(text), count >= 0 { return CountAnswer(count: count) }
        guard let decoded = try? JSONDecoder().decode(CountAnswer.self, from: Data(answer.body)),
              decoded.count >= 0 else { return nil }
        return decoded
    }

    /// Why a 200 answer is no count.
    static func junkDetail(_ answer: HTTPFetcher.Answer) -> String {
        let html = (answer.contentType ?? "").contains("html") || answer.text.hasPrefix("<")
        return html ? "the count answer is an HTML page, not a number (HTTP 200)"
            : "the count answer is neither a number nor {\"count\": N}"
    }
}
