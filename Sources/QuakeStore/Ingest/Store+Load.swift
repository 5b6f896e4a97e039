import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization
extension Store {
    /// Loads feed files named by file URLs (see ``load(_:options:)``).
    @discardableResult
    public func load(_ urls: [URL], options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        try load(urls.map(\.path), options: options)
    }

    /// The feed files `load` would read for `paths`: files as given, directories walked
    /// (names containing `.csv`, `.geojson` or `.json`), `-` for stdin. Throws when there are none.
    package static func feedFiles(_ paths: [String]) throws(QuakeError) -> [String] { try InputFiles.expand(paths) }

    /// Commits a sync cursor alone (a piece of a sync that held no event), under the writer lock:
    /// `held` when the caller holds it (a sync), else one taken now.
    package func commitCursor(_ key: String, _ value: String, lock held: StoreLock? = nil) throws(QuakeError) {
        let lock = try writerLock(reusing: held, wait: .never)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        var next = manifest
        next.setCursor(key, value)
        if next.cursors != manifest.cursors { _ = try Store.commit(next, storePath: path) }
        try refresh()
    }

    /// Loads feed files as an upsert keyed by event id, and commits the result as one new
    /// snapshot.
    ///
    /// Each path is a USGS summary feed, CSV or GeoJSON (plain, `.gz` or `.zst`), a directory
    /// (walked recursively for names containing `.csv`, `.geojson` or `.json`), or `-` for
    /// standard input. Of the versions of an event, in the store and in the input, the one
    /// updated last wins (``Quake/updated``); an event whose winning version is the stored one
    /// is counted unchanged. Rows that cannot be stored are rejected
    /// (``Reject``) and the rest load, unless ``LoadOptions/strict`` is set.
    ///
    /// ```swift
    /// let store = try Store.openOrCreate(path: "quakes.store")
    /// let summary = try store.load(["feeds/2024/", "all_day.geojson.gz"])
    /// print(summary.new, summary.updated, summary.unchanged, summary.rejected)
    /// ```
    ///
    /// Takes the writer lock for the duration. On any thrown error nothing is committed and
    /// the previous snapshot stays as it was. A load that changes nothing commits nothing
    /// (``LoadSummary/committed`` is false). Readers are never blocked: they keep the snapshot
    /// they started on, and later fetches see the new one.
    ///
    /// Loads through handles of one process queue behind each other; a writer in another process
    /// makes it throw ``QuakeError/Kind/locked``, at once or after the wait
    /// ``LoadOptions/lockWait`` allows. Called from a cancelled task, it throws `CancellationError`:
    /// cancelled before its commit it commits nothing; cancelled during its commit it commits
    /// whole. ``LoadOptions/isCancelled`` stops it with ``QuakeError/Kind/interrupted`` instead.
    ///
    /// - Parameters:
    ///   - paths: Feed files, directories, or `-` for standard input.
    ///   - options: Strictness, time units, text repair, progress and reject callbacks.
    /// - Returns: What the load did: rows read, events new, updated and unchanged, rejects, per
    ///   file.
    /// - Throws: ``QuakeError``: ``QuakeError/Kind/io`` for a missing input or a directory
    ///   without feeds, ``QuakeError/Kind/strict`` when a strict load met a reject,
    ///   ``QuakeError/Kind/locked`` when another process holds the writer lock,
    ///   ``QuakeError/Kind/interrupted`` when ``LoadOptions/isCancelled`` stopped it; and
    ///   `CancellationError` when its task was cancelled. A file that is not a feed is no error:
    ///   it is reported in ``LoadSummary/perFile`` and counted in ``LoadSummary/filesRejected``.
    /// - Complexity: reads the input once and rewrites only the partitions holding new or
    ///   updated events, with the id index buckets they touch: O(input rows + rows of those
    ///   partitions). Memory is bounded by the parse batches and the spill, not the input size.
    @discardableResult
    public func load(_ paths: [String], options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        if Store.taskCancelled { throw CancellationError() }
        do {
            let summary = try loadFiles(paths, options: options)
            // a cancellation that came during the commit: committed whole, and still reported
            if Store.taskCancelled { throw CancellationError() }
            return summary
        } catch let failure as QuakeError where failure.kind == .interrupted && Store.taskCancelled {
            throw CancellationError()
        }
    }

    private func loadFiles(_ paths: [String], options: LoadOptions) throws -> LoadSummary {
        // the calling thread's task is asked here; the load's own threads ask the options
        let cancelled: @Sendable () -> Bool = { options.isCancelled?() == true || Store.taskCancelled }
        let mark = Store.commitTrace()
        let lock = try writerLock(reusing: options.writerLock, wait: options.lockWait, cancelled: cancelled)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        let before = manifest
        Store.collectGarbage(before, storePath: path)
        mark("locked and collected")
        do {
            var loading = options
            loading.scratchPath = path + "/tmp"
            let loader = Loader(storePath: path, manifest: before, options: loading)
            var (summary, next, unflushed) = try loader.run(paths)
            mark("loaded")
            if let cursor = options.cursor {
                // a load that changed no row commits the cursor on the snapshot it read: same generation
                let changed = next.map { $0.partitions != before.partitions || $0.idBuckets != before.idBuckets }
                    ?? false
                var withCursor = changed ? next ?? before : before
                withCursor.setCursor(cursor.key, cursor.value(summary))
                next = withCursor
            }
            // the calling thread is the task's: its cancellation is seen here, before anything is committed
            if Store.taskCancelled {
                throw QuakeError(.interrupted, path: path, detail: "cancelled; nothing committed")
            }
            try options.checkCancelled()
            if var next, next.partitions != before.partitions || next.idBuckets != before.idBuckets
                || next.cursors != before.cursors {
                options.onPhase?("committing")
                options.onProgress?(LoadProgress(phase: .commit, done: 0, total: nil, bytesRead: summary.bytesRead,
                                                 rows: summary.rowsRead, elapsedSeconds: summary.elapsedSeconds))
                // the scratch files are spent: removed first, their dirty pages are never written
                FileIO.remove(path + "/tmp")
                let written = next.liveFiles.subtracting(before.liveFiles).union(unflushed)
                // the catalog is patched while the files written so far are flushed
                try Store.flush(path, files: written, cancelled: cancelled) { () throws(QuakeError) in
                    try Store.attachCatalog(&next, storePath: path, durably: false)
                    return next.catalog.map { ["partitions/" + $0] } ?? []
                }
                mark("flushed, catalog written")
                next = try Store.commit(next, storePath: path)
                mark("committed")
                summary.committed = true
                summary.deleted = Swift.max(0, next.tombstones - before.tombstones)
                options.onPhase?("committed")
                Store.collectGarbage(next, storePath: path)
                mark("collected")
            } else {
                Store.collectGarbage(before, storePath: path)
            }
            try refresh()
            return summary
        } catch {
            Store.collectGarbage(Store.currentManifest(path, or: before), storePath: path)
            throw error
        }
    }

    /// With `QUAKES_TRACE` set, a function that prints each step of a commit with the
    /// milliseconds since it was made; else one that does nothing.
    static func commitTrace() -> (String) -> Void {
        guard ProcessInfo.processInfo.environment["QUAKES_TRACE"] != nil else { return { _ in } }
        let start = Date()
        return { step in
            let at = String(format: "%.1f", Date().timeIntervalSince(start) * 1000)
            FileHandle.standardError.write(Data("trace: commit: \(step) at \(at) ms\n".utf8))
        }
    }

    /// Most new files a commit flushes one by one; past this, one `syncfs` flushes them.
    static let flushedOneByOne = 64

    /// Makes the new snapshot's new files (`files`, store-relative) durable, with the folders
    /// that name them: each `fsync`ed when there are at most ``flushedOneByOne``, so a small
    /// commit waits for its own bytes only, not for every dirty page of the file system (other
    /// programs' included); otherwise one `syncfs` of the file system holding the store (which a
    /// busy machine can make take seconds). It runs on a thread of its own while `meanwhile`
    /// writes more files on the calling thread (their names returned), which are `fsync`ed there
    /// meanwhile; then the folders. The caller asks `cancelled` meanwhile: a load cancelled during the
    /// flush stops at once with ``QuakeError/Kind/interrupted``, having committed nothing (the
    /// manifest is not renamed), and leaves the flush to end by itself.
    private static func flush(_ path: String, files: Set<String>, cancelled: @escaping @Sendable () -> Bool,
                              meanwhile: () throws(QuakeError) -> [String]) throws(QuakeError) {
        let flushed = FlushOutcome()
        let names = files.sorted()
        Thread.detachNewThread {
            do throws(QuakeError) {
                if names.count <= Store.flushedOneByOne {
                    for name in names { try FileIO.fsyncFile(path + "/" + name) }
                } else {
                    try FileIO.syncFilesystem(path)
                }
                flushed.finish(.success(()))
            } catch {
                flushed.finish(.failure(error))
            }
        }
        let more = try meanwhile()
        // the files written meanwhile are flushed while the thread still flushes the others
        for name in more { try FileIO.fsyncFile(path + "/" + name) }
        while true {
            if let outcome = flushed.wait(milliseconds: 5) {
                try outcome.get()
                break
            }
            if cancelled() {
                throw QuakeError(.interrupted, path: path + "/tmp", detail: "cancelled; nothing committed")
            }
        }
        // then the folders naming them all
        let folders = Set((names + more).compactMap { $0.split(separator: "/").first.map(String.init) })
        for folder in folders.sorted() { try FileIO.fsyncDirectory(path + "/" + folder) }
        try FileIO.fsyncDirectory(path)
    }
}

/// The outcome of a flush on another thread, handed to the load that waits for it.
private final class FlushOutcome: Sendable {
    private let outcome = Mutex<Result<Void, QuakeError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: Result<Void, QuakeError>) {
        outcome.locked { $0 = result }
        done.signal()
    }

    /// The outcome, once there is one; nil after `milliseconds` without.
    func wait(milliseconds: Int) -> Result<Void, QuakeError>? {
        _ = done.wait(timeout: .now() + .milliseconds(milliseconds))
        return outcome.locked { $0 }
    }
}
