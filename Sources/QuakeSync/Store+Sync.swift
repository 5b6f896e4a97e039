import Foundation
import QuakeFormat
import QuakeStore

extension Store {
    /// Brings the store up to date with `source` for `filter`, committing as it goes, and says
    /// what it did.
    ///
    /// - An FDSN event service: the first sync counts, splits the time window into pieces under
    ///   the service's limit and commits each piece, oldest first; later syncs ask only for what
    ///   changed (`updatedafter`), with tombstones where the service offers them.
    /// - A summary feed: a conditional GET; `304 Not Modified` commits nothing.
    ///
    /// The sync takes the store's writer lock before it touches any file, waiting for it as
    /// ``SyncOptions/lockWait`` allows, and holds it to its end: its loads and cursor commits run
    /// under it. A sync refused by another writer has changed nothing. A dry run
    /// (``SyncOptions/dryRun``) takes no lock and writes nothing.
    ///
    /// The source's cursor is committed with each piece, so a run killed at any instant resumes
    /// where it stopped, with no gap and no duplicate. Cancelling the task stops the sync at
    /// once, whatever it is doing (a request, a wait for the lock, a load), and it throws
    /// `CancellationError`: the batch of pieces it was committing is committed whole with its
    /// cursor, or not at all, and what it committed before stays.
    /// - Throws: `CancellationError` when its task is cancelled; else a `QuakeError` of kind
    ///   `network` (after the retries, naming the URL), `locked` (another writer holds the lock),
    ///   or the load's own kinds.
    public func sync(from source: SyncSource, filter: SyncFilter = SyncFilter(),
                     options: SyncOptions = SyncOptions()) async throws -> SyncSummary {
        do {
            let summary = try await syncRun(source, filter, options)
            // cancelled during the last commit: committed whole, and still reported
            try Task.checkCancellation()
            return summary
        } catch let failure as QuakeError where failure.kind == .interrupted && Task.isCancelled {
            throw CancellationError()
        }
    }

    /// One run, under the writer lock unless it is a dry run.
    private func syncRun(_ source: SyncSource, _ filter: SyncFilter,
                         _ options: SyncOptions) async throws -> SyncSummary {
        var locked = options
        if !options.dryRun {
            if let held = options.writerLock {
                locked.writerLock = try writerLock(reusing: held, wait: .never)
            } else {
                locked.writerLock = try await StoreLock.acquire(storePath: path, wait: options.lockWait)
            }
        }
        let lock = locked.writerLock
        let run = SyncRun(store: self, source: source.normalized, filter: filter, options: locked)
        // the pieces a killed sync left behind are the lock holder's to clear
        if lock != nil { run.removeScratch() }
        do {
            let summary = try await run.run()
            await run.fetcher.shutdown()
            if lock != nil { run.removeScratch() }
            withExtendedLifetime(lock) {}
            return summary
        } catch {
            await run.fetcher.shutdown()
            if lock != nil { run.removeScratch() }
            withExtendedLifetime(lock) {}
            throw error
        }
    }

    /// Each sync source's cursor in the store: what `quakes info` shows.
    public func syncCursors() throws(QuakeError) -> [SyncCursorInfo] {
        try manifest.cursors.map { (record) throws(QuakeError) in
            guard let cursor = try SyncCursor.stored(record.key, in: manifest, storePath: path) else {
                throw QuakeError(.corrupt, path: path, detail: "sync cursor \(record.key)")
            }
            return SyncCursorInfo(kind: record.key.hasPrefix("feed ") ? "feed" : "fdsn", source: cursor.source,
                                  filter: cursor.filter,
                                  since: cursor.since, maxUpdated: cursor.maxUpdated, lastSync: cursor.lastSync,
                                  firstSyncThrough: cursor.plan.map { ($0.doneThrough, $0.end) },
                                  etag: cursor.etag, lastModified: cursor.lastModified, events: cursor.events)
        }
    }
}

/// One source's cursor, as `quakes info` shows it.
public struct SyncCursorInfo: Sendable {
    /// `fdsn` or `feed`.
    public var kind: String
    public var source: String
    /// The filter's canonical text (empty for none).
    public var filter: String
    /// The next sync's `updatedafter` (epoch ms), nil while the first sync is unfinished.
    public var since: Int64?
    /// The latest `updated` synced.
    public var maxUpdated: Int64?
    /// When the last successful sync began.
    public var lastSync: Int64?
    /// An unfinished first sync: the time its committed pieces reach, and its window's end.
    public var firstSyncThrough: (Int64, Int64)?
    public var etag: String?
    public var lastModified: String?
    /// Events committed through this source, in all.
    public var events: Int
}
