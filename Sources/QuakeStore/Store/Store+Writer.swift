import Foundation
import QuakeFormat

/// One writer at a time, decided first: every write takes the store's writer lock
/// (``StoreLock``) before it creates, changes or deletes a file of the store, and a refused
/// writer has touched nothing. A write that runs inside another (a sync's loads and cursor
/// commits) reuses the lock its caller holds.
extension Store {
    /// Takes the writer lock of the store at `path`, waiting as `wait` allows.
    ///
    /// - Parameters:
    ///   - creating: Creates the store's directory (and its parents) when it is missing, for a
    ///     write that may create the store; otherwise a missing directory is
    ///     ``QuakeError/Kind/notFound``.
    ///   - cancelled: Asked while waiting; when it says so the wait throws
    ///     ``QuakeError/Kind/interrupted``.
    /// - Throws: ``QuakeError/Kind/locked`` naming the holder's pid when the wait ends first.
    package static func writerLock(path: String, creating: Bool = false, wait: LockWait,
                                   cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> StoreLock {
        if FileIO.exists(path) && !FileIO.isDirectory(path) {
            throw QuakeError(.io, path: path, errno: ENOTDIR, detail: "a file, not a store directory")
        }
        var attempts = 0
        while true {
            if !FileIO.exists(path) {
                guard creating else { throw QuakeError(.notFound, path: path, detail: "no store (no directory)") }
                try FileIO.makeDirectory(path)
            }
            do throws(QuakeError) {
                return try StoreLock(storePath: path, wait: wait, cancelled: cancelled)
            } catch where creating && !FileIO.exists(path) && attempts < 5 {
                // the writer waited for discarded the new store it made, directory and all: make it again
                attempts += 1
            }
        }
    }

    /// The lock a write of this store runs under: `held` when the caller holds this store's lock
    /// (a sync hands it to its loads), else the lock taken now.
    package func writerLock(reusing held: StoreLock?, wait: LockWait,
                            cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError) -> StoreLock {
        guard let held else { return try Store.writerLock(path: path, wait: wait, cancelled: cancelled) }
        guard held.guards(path) else {
            throw QuakeError(.invalidArgument, path: path,
                             detail: "the writer lock held is the one of \(held.storePath)")
        }
        return held
    }

    /// Opens the store at `path` for writing: takes its writer lock first (making the directory
    /// when it is missing), then opens it, or creates an empty store with `partitioning` when none
    /// exists. The caller keeps the lock for its writes.
    ///
    /// A directory that holds partition or id-index files but no manifest is refused
    /// (``QuakeError/Kind/noManifest``) before anything is written.
    /// - Returns: the store, the lock, and whether the store was created now.
    package static func openForWriting(path: String, partitioning: Partitioning, blockRows: Int, wait: LockWait,
                                       cancelled: (@Sendable () -> Bool)? = nil) throws(QuakeError)
        -> (store: Store, lock: StoreLock, created: Bool) {
        let v1 = path + "/" + ManifestV1.fileName
        if !FileIO.exists(manifestPath(path)) && !FileIO.exists(v1) { try refuseOrphans(path, changed: "") }
        let lock = try writerLock(path: path, creating: true, wait: wait, cancelled: cancelled)
        if FileIO.exists(manifestPath(path)) || FileIO.exists(v1) {
            return (try Store(path: path), lock, false)
        }
        try refuseOrphans(path, changed: "; nothing was changed")
        try FileIO.makeDirectory(path + "/partitions")
        try FileIO.makeDirectory(path + "/ids")
        try commit(Manifest(partitioning: partitioning, blockRows: blockRows), storePath: path)
        return (try Store(path: path), lock, true)
    }

    /// Throws ``QuakeError/Kind/noManifest`` for a directory that holds store files but no manifest.
    private static func refuseOrphans(_ path: String, changed: String) throws(QuakeError) {
        let orphans = FileIO.list(path + "/partitions").count + FileIO.list(path + "/ids").count
        if orphans > 0 {
            throw QuakeError(.noManifest, path: path, detail: "holds \(orphans) partition or id-index files but no "
                + "\(Manifest.fileName)" + changed)
        }
    }

    /// Removes a store this process just created and never committed to (generation 0, no
    /// partitions, no sync cursor): a first load or sync that kept nothing leaves no store behind.
    /// Runs under `lock` (this process's lock of the store), else under one taken without waiting;
    /// a store holding anything, or one another writer has locked, is left alone. `LOCK` goes
    /// last, while still held: a writer that opened it meanwhile finds it unlinked and opens anew.
    package func discardNew(removingDirectory: Bool, lock: StoreLock? = nil) {
        guard let lock = (try? writerLock(reusing: lock, wait: .upTo(.zero))),
              let manifest = try? Manifest.read(path: Store.manifestPath(path)), manifest.generation == 0,
              manifest.partitions.isEmpty, manifest.cursors.isEmpty else { return }
        for sub in ["partitions", "ids", "history", "tmp", "sync.tmp"] where FileIO.list(path + "/" + sub).isEmpty {
            FileIO.remove(path + "/" + sub)
        }
        FileIO.remove(Store.manifestPath(path))
        FileIO.remove(path + "/LOCK")
        withExtendedLifetime(lock) {}
        if removingDirectory && FileIO.list(path).isEmpty { FileIO.remove(path) }
    }

    /// True when the task running this call was cancelled: its own, or (for the async overloads,
    /// which run on the store's queue) the one that awaits it.
    package static var taskCancelled: Bool { Task.isCancelled || CancelFlag.current?.isCancelled == true }
}
