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
            let answer = try await fetcher.get(url, headers: headers, to: file)
            switch answer.status {
            case 304: return .notModified
            case 204: return .noData
            case 200..<300: break
            case 413: return .tooMany
            case 400 where SyncRun.saysTooMany(answer.text): return .tooMany
            default: throw HTTPFetcher.failure(answer)
            }
            try SyncRun.checkFeed(file, answer)
            return .fetched(answer)
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
        let store = self.store
        let stop = StopFlag()
        let firstReject = Mutex<Reject?>(nil)
        let loadOptions = pieceOptions(files, next: next, stop: stop) { reject in
            firstReject.locked { if $0 == nil { $0 = reject } }
        }
        let paths = files.map(\.file)
        var refetched = 0
        while true {
            if Task.isCancelled { throw QuakeError(.interrupted, path: store.path, detail: "interrupted") }
            do {
                let summary = try await withTaskCancellationHandler {
                    try await SyncRun.offPool { try store.load(paths, options: loadOptions) }
                } onCancel: { stop.set() }
                for path in paths { FileIO.remove(path) }
                return summary
            } catch let error as QuakeError {
                let reject = firstReject.locked { first in
                    defer { first = nil }
                    return first
                }
                let named = files.first {
                    error.path == $0.file || error.detail.contains($0.file) || reject?.file == $0.file
                }
                guard let bad = named else { throw error }
                guard SyncRun.isDataError(error) else {
                    // an answer no fetch again cures (times in an undecidable unit): named by its URL,
                    // not by the scratch file it waited in
                    throw QuakeError(error.kind, path: bad.url, detail: SyncRun.words(error, bad.file))
                }
                refetched += 1
                let why = "the answer does not load: "
                    + (reject.map { SyncRun.words($0, bad.file) } ?? SyncRun.words(error, bad.file))
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

    /// The options of a piece's load: strict, under the run's lock, with the cursor `next` makes,
    /// cancelled by `stop`, rejects to `onReject`.
    private func pieceOptions(_ files: [Fetched], next: @escaping @Sendable (LoadSummary) -> SyncCursor,
                              stop: StopFlag, onReject: @escaping @Sendable (Reject) -> Void) -> LoadOptions {
        var pieceOptions = options.load
        pieceOptions.strict = true
        pieceOptions.timeUnit = options.timeUnit
        pieceOptions.optionNames = options.optionNames
        pieceOptions.onMessage = options.onMessage
        pieceOptions.cursor = (key, { summary in next(summary).encoded() })
        // the run holds the store's lock from its start: the load runs under it
        pieceOptions.writerLock = options.writerLock
        pieceOptions.isCancelled = { stop.isSet }
        pieceOptions.onReject = onReject
        // history names each piece by its URL and window, not by the scratch file it waited in
        pieceOptions.sourceNames = Dictionary(files.map { ($0.file, $0.url) }, uniquingKeysWith: { first, _ in first })
        return pieceOptions
    }

}
