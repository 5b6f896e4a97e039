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
        let overlap = options.overlapMillis, started = self.started
        if cursor.since == nil {
            summary.firstSync = true
            let start = filter.start ?? started - Int64(min(max(options.defaultDays, 0), 3_650_000)) * 86_400_000
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
            try await fetchPieces(base, counting, from: plan.doneThrough, to: plan.end, since: nil, cursor: cursor) {
                c, piece, last in
                c.plan?.doneThrough = piece.end ?? plan.end
                if last {
                    c.plan = nil
                    c.since = min(c.maxUpdated ?? plan.madeAt, plan.madeAt) - overlap
                }
            }
        } else {
            let since = cursor.since ?? 0
            try await fetchPieces(base, counting, from: cursor.windowStart, to: filter.end, since: since,
                                  cursor: cursor) {
                c, _, last in
                if last, let m = c.maxUpdated { c.since = max(since, min(m, started) - overlap) }
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
        var queue = try await plan(counting, from, to, since)
        summary.piecesPlanned = queue.count
        eventsPlanned = queue.reduce(0) { $0 + ($1.events ?? 0) }
        summary.plan = queue.map { PlannedPiece(url: url(base, $0, since, counting.common), events: $0.events) }
        summary.serviceLimit = counting.limit
        if options.dryRun { return }
        var cursor = cursor
        let started = self.started
        if queue.isEmpty {
            // nothing matches: a first sync still completes, so the next one asks only for changes;
            // a later one records that the store was current when it began
            if summary.firstSync { advance(&cursor, Piece(start: from, end: to), true) }
            cursor.lastSync = started
            try commitCursor(cursor)
            return
        }
        // pieces are fetched one at a time and committed in groups (by bytes or seconds): a commit
        // rewrites what it touches, so one per 20,000 events would cost more than the fetching
        var group: [(piece: Piece, fetched: Fetched?)] = [], groupBytes = 0, lastCommit = Date(), n = 0
        var inflight: Task<(LoadSummary, SyncCursor), any Error>?
        // the group in flight, awaited: the sync's cancellation cancels it, so it stops before its
        // commit or, past that point, commits whole with its cursor
        func finish(_ load: Task<(LoadSummary, SyncCursor), any Error>) async throws(QuakeError) -> SyncCursor {
            inflight = nil
            do {
                let (s, c) = try await withTaskCancellationHandler {
                    try await load.value
                } onCancel: {
                    load.cancel()
                }
                summary.add(s)
                progress()
                return c
            } catch let e as QuakeError {
                throw e
            } catch {
                throw QuakeError(.io, path: store.path, detail: "\(error)")
            }
        }
        do throws(QuakeError) {
            while !queue.isEmpty {
                let piece = queue.removeFirst()
                let pieceURL = url(base, piece, since, counting.common)
                let file = scratch + "/piece-\(n).\(options.format.rawValue)"
                n += 1
                switch try await download(pieceURL, to: file) {
                case .fetched(let a):
                    group.append((piece, Fetched(url: pieceURL, file: file)))
                    groupBytes += a.size
                    piecesFetched += 1
                    eventsFetched += piece.events ?? 0
                    progress()
                case .noData, .notModified:
                    group.append((piece, nil))
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
                // a group's cursor follows the one before it: the load before this one finishes first
                if let t = inflight { cursor = try await finish(t) }
                try stopIfCancelled()
                let before = cursor, through = group[group.count - 1].piece
                let next: @Sendable (LoadSummary) -> SyncCursor = { s in
                    var c = before
                    if let m = s.maxUpdated { c.maxUpdated = max(c.maxUpdated ?? m, m) }
                    c.events += s.new
                    advance(&c, through, last)
                    // the store was current when this sync began, whether or not it changed anything
                    if last { c.lastSync = started }
                    return c
                }
                let files = group.compactMap(\.fetched)
                if files.isEmpty {
                    cursor = next(LoadSummary())
                    if summary.firstSync || cursor != before { try commitCursor(cursor) }
                } else {
                    // the load runs while the next piece downloads
                    let loader = pieces
                    inflight = Task { () async throws -> (LoadSummary, SyncCursor) in
                        let s = try await loader.load(files, next: next)
                        return (s, next(s))
                    }
                }
                summary.pieces += group.count
                group = []
                groupBytes = 0
                lastCommit = Date()
            }
            if let t = inflight { cursor = try await finish(t) }
        } catch {
            // a failure or cancellation waits for the load in flight (cancelled with the sync, else
            // left to finish): it commits whole or not at all, never after the sync has returned
            if let t = inflight { _ = try? await finish(t) }
            throw error
        }
    }

    /// The pieces of `[from, to)`: counted and split until each is under the limit, in time
    /// order; a service without `count` gets month-long pieces, split further when it refuses one.
    private func plan(_ counting: Counting, _ from: Int64?, _ to: Int64?,
                      _ since: Int64?) async throws(QuakeError) -> [Piece] {
        guard let n = try await counting.count(self, from, to, since) else {
            options.onMessage?("the service does not count: fetching month-long slices")
            guard let from else { return [Piece(start: nil, end: to)] }
            let end = to ?? started + 86_400_000
            return try split(Piece(start: from, end: end), into: Int(max(1, (end - from) / (31 * 86_400_000))),
                             from: from, to: to)
        }
        let limit = counting.limit ?? options.pieceLimit
        if n == 0 { return [] }
        if n <= limit { return [Piece(start: from, end: to, events: n)] }
        let parts = Int(min(64, (Double(n) / (Double(limit) * 0.8)).rounded(.up)))
        var out: [Piece] = []
        for p in try split(Piece(start: from, end: to), into: max(2, parts), from: from, to: to) {
            for q in try await plan(counting, p.start, p.end, since) {
                // neighbours that fit under the limit together are one request
                if let last = out.last, let a = last.events, let b = q.events, a + b <= limit, last.end == q.start {
                    out[out.count - 1] = Piece(start: last.start, end: q.end, events: a + b)
                } else {
                    out.append(q)
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
        let k = Int64(min(k, Int(hi - lo)))
        let step = (hi - lo) / k
        return (0..<k).map { i in
            Piece(start: i == 0 ? piece.start : lo + i * step, end: i == k - 1 ? piece.end : lo + (i + 1) * step)
        }
    }

    /// An FDSN time: ISO 8601 to the millisecond, without the zone (UTC), as the spec writes it.
    static func fdsnTime(_ t: Int64) -> String { String(Timestamp.string(t).dropLast()) }

    /// The query URL of a piece.
    func url(_ base: String, _ piece: Piece, _ since: Int64?, _ common: [(String, String)]) -> String {
        var q: [(String, String)] = [("format", options.format.rawValue), ("orderby", "time-asc")]
        if let s = piece.start { q.append(("starttime", Self.fdsnTime(s))) }
        // endtime is inclusive: the piece's last millisecond
        if let e = piece.end { q.append(("endtime", Self.fdsnTime(e - 1))) }
        if let since { q.append(("updatedafter", Self.fdsnTime(since))) }
        return base + "query?" + Self.encode(q + common)
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
        let a = try await fetcher.retrying(url, retryUnreachable: false) {
            () async throws(HTTPFetcher.Failure) -> HTTPFetcher.Answer in
            let a = try await fetcher.get(url)
            if HTTPFetcher.isRetryable(a.status) { throw HTTPFetcher.failure(a) }
            return a
        }
        guard a.status == 200, a.text.contains("<application") || a.text.contains("<resources") else {
            let html = (a.contentType ?? "").contains("html") || a.text.lowercased().contains("<html")
            let answer = html ? "an HTML page (HTTP \(a.status))" : "HTTP \(a.status)"
            throw QuakeError(.network, path: url, detail: "not an FDSN event service (\(answer) for its "
                + "application.wadl); give the service's base URL, such as https://earthquake.usgs.gov/fdsnws/event/1/")
        }
        return a.text.contains("\"includedeleted\"")
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
        var q: [(String, String)] = [("format", "geojson")]
        if let from { q.append(("starttime", SyncRun.fdsnTime(from))) }
        if let to { q.append(("endtime", SyncRun.fdsnTime(to - 1))) }
        if let since { q.append(("updatedafter", SyncRun.fdsnTime(since))) }
        let url = base + "count?" + SyncRun.encode(q + common)
        let a = try await run.fetcher.retrying(url) { () async throws(HTTPFetcher.Failure) -> HTTPFetcher.Answer in
            let a = try await run.fetcher.get(url)
            if HTTPFetcher.isRetryable(a.status) { throw HTTPFetcher.failure(a) }
            // an error page served as 200 (a proxy's, a service's under load) is retried, as on a query piece
            if a.status == 200 && Self.parse(a) == nil {
                throw HTTPFetcher.Failure(retryable: true, detail: Self.junkDetail(a))
            }
            return a
        }
        if a.status == 204 { return 0 }
        if a.status == 400, let k = common.firstIndex(where: { $0.0 == "includedeleted" }) {
            // a service that lists includedeleted for query but refuses it for count
            common.remove(at: k)
            return try await count(run, from, to, since)
        }
        guard a.status == 200 else {
            if [404, 405, 501].contains(a.status) { available = false; return nil }
            throw QuakeError(.network, path: url, detail: HTTPFetcher.failure(a).detail)
        }
        guard let answer = Self.parse(a) else {
            throw QuakeError(.network, path: url, detail: Self.junkDetail(a))
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
