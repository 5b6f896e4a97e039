import Foundation
import QuakeFormat
import QuakeStore
import Synchronization

/// One run of ``Store/sync(from:filter:options:)``: the requests, the pieces and their loads.
final class SyncRun {
    let store: Store
    let source: SyncSource
    let filter: SyncFilter
    let options: SyncOptions
    let fetcher: HTTPFetcher
    let key: String
    var summary = SyncSummary()
    let started: Int64
    /// Where a piece's body waits for its load: removed after each piece. Only the writer lock's
    /// holder touches it (a dry run never does).
    let scratch: String
    /// Events the plan counted, and pieces downloaded with the events they were counted to hold,
    /// for the progress bar (which moves as pieces arrive, not only at commits).
    var eventsPlanned = 0
    var piecesFetched = 0
    var eventsFetched = 0

    /// `key` and `fetcher` let a feed's backfill commit the feed's cursor over the same client.
    init(store: Store, source: SyncSource, filter: SyncFilter, options: SyncOptions, key: String? = nil,
         fetcher: HTTPFetcher? = nil) {
        self.store = store
        self.source = source
        self.filter = filter
        self.options = options
        self.fetcher = fetcher ?? HTTPFetcher(options: options)
        self.key = key ?? SyncCursor.key(source, filter)
        started = options.now()
        scratch = store.path + "/sync.tmp"
    }

    func run() async throws(QuakeError) -> SyncSummary {
        let clock = Date()
        try refresh()
        let tombstones = store.tombstones
        switch source {
        case .fdsn(let base): try await fdsn(base)
        case .feed(let url): try await feed(url)
        }
        try refresh()
        summary.deleted = max(0, store.tombstones - tombstones)
        summary.requests = fetcher.requests
        summary.bytes = fetcher.bytes
        summary.elapsedSeconds = Date().timeIntervalSince(clock)
        return summary
    }

    func removeScratch() { FileIO.remove(scratch) }

    /// Reads the newest committed snapshot; a dry run reads what is there, which may be no store
    /// at all (a handle made by `Store(absentAt:)`), and never fails for it.
    func refresh() throws(QuakeError) {
        if options.dryRun {
            _ = store.freshManifest()
        } else {
            try store.refresh()
        }
    }

    /// The stored cursor, or a new one.
    func cursor() throws(QuakeError) -> SyncCursor {
        try refresh()
        return try SyncCursor.stored(key, in: store.manifest, storePath: store.path)
            ?? SyncCursor(source: source.url, filter: filter.key)
    }

    /// Commits the cursor alone, under the run's lock; a cancelled run commits nothing more.
    func commitCursor(_ cursor: SyncCursor) throws(QuakeError) {
        try stopIfCancelled()
        try store.commitCursor(key, cursor.encoded(), lock: options.writerLock)
    }

    /// Throws ``QuakeError/Kind/interrupted`` when the run's task is cancelled: a point between
    /// two steps where stopping leaves nothing half done.
    func stopIfCancelled() throws(QuakeError) {
        if Task.isCancelled { throw QuakeError(.interrupted, path: store.path, detail: "interrupted") }
    }

    func progress() {
        options.onProgress?(SyncProgress(pieces: max(summary.pieces, piecesFetched),
                                         piecesPlanned: summary.piecesPlanned,
                                         events: max(summary.load.rowsRead, eventsFetched),
                                         eventsPlanned: eventsPlanned,
                                         bytes: fetcher.bytes))
    }

    /// The downloads and loads of this run, for a task of their own.
    var pieces: PieceLoader {
        PieceLoader(store: store, key: key, options: options, fetcher: fetcher, scratch: scratch)
    }

    func download(_ url: String, to file: String,
                  headers: [(String, String)] = []) async throws(QuakeError) -> Download {
        try await pieces.download(url, to: file, headers: headers)
    }

    func load(_ files: [Fetched],
              next: @escaping @Sendable (LoadSummary) -> SyncCursor) async throws(QuakeError) -> LoadSummary {
        try await pieces.load(files, next: next)
    }

    typealias Download = PieceLoader.Download
    typealias Fetched = PieceLoader.Fetched

    /// A 400 or 413 that says the query matches more events than the service returns at once.
    static func saysTooMany(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["exceed", "too many", "maximum", "limit", "matching events", "max allowed"]
            .contains { lower.contains($0) }
    }

    /// An error page served as a 200, or an empty body where a feed was asked for.
    static func checkFeed(_ file: String, _ answer: HTTPFetcher.Answer) throws(HTTPFetcher.Failure) {
        let type = (answer.contentType ?? "").lowercased()
        var head: [UInt8] = []
        if let fd = try? FileIO.openForReading(file) {
            head = [UInt8](repeating: 0, count: 512)
            // SAFETY: `head` holds 512 bytes, so baseAddress is non-nil; read writes at most buffer.count bytes
            // there and returns how many (<= 512, so removeSubrange(readCount...) below is in range).
            let readCount = head.withUnsafeMutableBytes { buffer in
                (try? FileIO.read(fd, into: buffer.baseAddress!, count: buffer.count, path: file)) ?? 0
            }
            head.removeSubrange(readCount...)
            FileIO.close(fd)
        }
        let first = head.first { ![9, 10, 13, 32].contains($0) }
        if type.contains("html") || first == UInt8(ascii: "<") {
            throw HTTPFetcher.Failure(retryable: true,
                                      detail: "the answer is an HTML page, not a feed (HTTP \(answer.status))")
        }
        if first == nil {
            throw HTTPFetcher.Failure(retryable: true, detail: "the answer is empty (HTTP \(answer.status))")
        }
    }

    /// Whether a load failed on the answer's bytes (a retry may get them whole), not on the store.
    static func isDataError(_ e: QuakeError) -> Bool {
        switch e.kind {
        case .format, .decompression, .strict: return true
        default: return false
        }
    }

    /// A load error in a few words, without the scratch file's name.
    static func words(_ e: QuakeError, _ file: String) -> String {
        var text = e.detail.replacingOccurrences(of: file + ": ", with: "")
            .replacingOccurrences(of: file, with: "the answer")
        if let position = e.position { text = "\(position): " + text }
        return text
    }

    /// A rejected row in a few words, without the scratch file's name.
    static func words(_ r: Reject, _ file: String) -> String {
        (r.isFeature ? "feature \(r.line)" : "line \(r.line)") + ": " + r.reason
    }

    /// Runs blocking work (a load) off Swift concurrency's cooperative threads.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            Thread.detachNewThread { c.resume(with: Result { try work() }) }
        }
    }
}

extension Store {
    /// Tombstones in the current snapshot.
    var tombstones: Int { manifest.tombstones }
}

/// A flag a cancellation handler sets and a load polls.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
