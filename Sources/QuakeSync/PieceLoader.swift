import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import Synchronization

/// A sync's downloads and loads: what a piece needs, in values a task of its own may hold, so
/// the next piece downloads while the last group loads.
struct PieceLoader: Sendable {
    let store: Store
    let key: String
    let options: SyncOptions
    let fetcher: HTTPFetcher
    let scratch: String

    /// Fetches `url` into `file`, retrying what a retry may cure: a transport error, a 5xx or
    /// 429, a body cut short, an HTML page or an empty body where a feed was asked for.
    func download(_ url: String, to file: String,
                  headers: [(String, String)] = []) async throws(QuakeError) -> Download {
        try FileIO.makeDirectory(scratch)
        return try await fetcher.retrying(url, retryUnreachable: fetcher.requests > 0) {
            () async throws(HTTPFetcher.Failure) -> Download in
            let a = try await fetcher.get(url, headers: headers, to: file)
            switch a.status {
            case 304: return .notModified
            case 204: return .noData
            case 200..<300: break
            case 413, 400 where SyncRun.saysTooMany(a.text): return .tooMany
            default: throw HTTPFetcher.failure(a)
            }
            try SyncRun.checkFeed(file, a)
            return .fetched(a)
        }
    }

    enum Download: Sendable {
        case fetched(HTTPFetcher.Answer)
        case noData
        case notModified
        case tooMany
    }

    /// A downloaded answer waiting for its load: the URL it came from, for a fetch again.
    struct Fetched: Sendable {
        var url: String
        var file: String
        var headers: [(String, String)] = []
    }

    /// Loads `files` as one commit, with the cursor `next` makes of the load's summary. A file
    /// that does not load (JSON that stops, a malformed row) is fetched again and the load
    /// retried, up to the attempts; the store's own errors pass as they are. The load runs on a
    /// thread of its own; the task's cancellation sets the flag it asks between batches, id
    /// buckets and partitions, so it stops before its commit or commits whole.
    func load(_ files: [Fetched],
              next: @escaping @Sendable (LoadSummary) -> SyncCursor) async throws(QuakeError) -> LoadSummary {
        let store = self.store, key = self.key
        var o = options.load
        o.strict = true
        o.timeUnit = options.timeUnit
        o.optionNames = options.optionNames
        o.onMessage = options.onMessage
        o.cursor = (key, { s in next(s).encoded() })
        // the run holds the store's lock from its start: the load runs under it
        o.writerLock = options.writerLock
        let stop = StopFlag()
        o.isCancelled = { stop.isSet }
        let firstReject = Mutex<Reject?>(nil)
        o.onReject = { r in firstReject.locked { if $0 == nil { $0 = r } } }
        // history names each piece by its URL and window, not by the scratch file it waited in
        o.sourceNames = Dictionary(files.map { ($0.file, $0.url) }, uniquingKeysWith: { first, _ in first })
        let loadOptions = o
        let paths = files.map(\.file)
        var refetched = 0
        while true {
            if Task.isCancelled { throw QuakeError(.interrupted, path: store.path, detail: "interrupted") }
            do {
                let s = try await withTaskCancellationHandler {
                    try await SyncRun.offPool { try store.load(paths, options: loadOptions) }
                } onCancel: { stop.set() }
                for p in paths { FileIO.remove(p) }
                return s
            } catch let e as QuakeError {
                let reject = firstReject.locked { r in defer { r = nil }; return r }
                let named = files.first { e.path == $0.file || e.detail.contains($0.file) || reject?.file == $0.file }
                guard let bad = named else { throw e }
                guard SyncRun.isDataError(e) else {
                    // an answer no fetch again cures (times in an undecidable unit): named by its URL,
                    // not by the scratch file it waited in
                    throw QuakeError(e.kind, path: bad.url, detail: SyncRun.words(e, bad.file))
                }
                refetched += 1
                let why = "the answer does not load: "
                    + (reject.map { SyncRun.words($0, bad.file) } ?? SyncRun.words(e, bad.file))
                guard refetched < max(1, options.attempts) else {
                    throw QuakeError(.network, path: bad.url, detail: why + " (after \(options.attempts) attempts)")
                }
                options.onMessage?("fetching again (\(refetched + 1) of \(options.attempts)): " + why)
                switch try await download(bad.url, to: bad.file, headers: bad.headers) {
                case .fetched: continue
                default: throw QuakeError(.network, path: bad.url, detail: why)
                }
            } catch is CancellationError {
                throw QuakeError(.interrupted, path: store.path, detail: "interrupted")
            } catch {
                throw QuakeError(.io, path: store.path, detail: "\(error)")
            }
        }
    }

}
