import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// A quakes store: a directory holding a manifest, one file per time partition and an
/// event-id index. Readers work on one immutable manifest snapshot; a writer holds the
/// lock, writes new files, then atomically replaces `manifest.qkm`.
///
/// ```swift
/// let store = try Store.openOrCreate(path: "quakes.store")
/// try store.load(["feeds/"])
/// let strongest = try store.fetch(FetchDescriptor<Quake>(
///     sortBy: [SortDescriptor(\.magnitude, order: .reverse)]))
/// ```
///
/// A `Store` is a handle, cheap to open (it reads the manifest only) and safe to share between
/// tasks and threads. Each query reads one committed generation from start to end, whatever
/// commits meanwhile, and a query started after a commit sees it, whether this handle, another
/// one or another process made it. Loads through one process queue behind each other; another
/// process's writer lock is reported as ``QuakeError/Kind/locked``.
// Sendable: the mutable state (the snapshot, the open readers and catalogs) lives in one `Mutex`;
// the rest is immutable. A query takes one manifest snapshot when it starts (`QueryExecutor`).
public final class Store: Sendable {
    /// The store directory, as given when the handle was opened.
    public let path: String
    /// The snapshot this handle reads. Read and replaced under the lock, so a query running
    /// while another thread calls ``refresh()`` sees one whole manifest, never a torn one.
    package var manifest: Manifest { state.locked { $0.current } }
    /// A handle from ``snapshot()``: it keeps its generation until ``refresh()``.
    public let isSnapshot: Bool
    private struct State {
        var current: Manifest
        /// The manifest file's identity (inode, size, mtime) when `current` was read: a commit renames
        /// a new manifest into place, which changes it.
        var currentIdentity: [Int64]?
        /// Open partition readers by file name: names by hash in a table of fixed types (a one-shot
        /// query pays for each new hashed type it instantiates), readers beside them.
        var readerTable = IntTable()
        var readerFiles: [String] = []
        var readers: [PartitionReader?] = []
        /// Mapped catalogs by file name, newest last: a short list, not a `[String: Catalog]`, whose
        /// first use checks `String: Hashable` by scanning every protocol conformance in the binary.
        var catalogs: [(name: String, catalog: Catalog)] = []

        init(current: Manifest, identity: [Int64]?) {
            self.current = current
            currentIdentity = identity
        }

        /// Drops what the snapshot before `m` had open, and reads `m` from now on.
        mutating func replace(with m: Manifest, identity: [Int64]?) {
            current = m
            currentIdentity = identity
            readerTable = IntTable()
            readerFiles = []
            readers = []
            catalogs = []
        }
    }
    private let state: Mutex<State>

    /// Where the CLI finds a store: `--store`, else `$QUAKES_STORE`, else `./quakes.store`.
    package static func defaultPath(explicit: String?) -> String {
        if let explicit { return explicit }
        // getenv, not ProcessInfo's environment: that builds a dictionary of every variable
        if let env = getenv("QUAKES_STORE").map({ String(cString: $0) }), !env.isEmpty { return env }
        return "quakes.store"
    }

    package static func manifestPath(_ store: String) -> String { store + "/" + Manifest.fileName }

    /// Opens an existing store.
    ///
    /// - Parameter path: The store directory.
    /// - Throws: ``QuakeError``: ``QuakeError/Kind/notFound`` when there is no store at `path`,
    ///   ``QuakeError/Kind/needsMigration`` for a format v1 store (`quakes migrate` converts
    ///   it), ``QuakeError/Kind/noManifest`` for a directory that holds store files but no
    ///   manifest (`quakes repair` rebuilds it), ``QuakeError/Kind/corrupt`` for a damaged
    ///   manifest, ``QuakeError/Kind/io`` for a path that is a file or cannot be read.
    /// - Complexity: reads and checks the manifest only, O(partitions); partition files are
    ///   opened when a query first needs them.
    public convenience init(path: String) throws(QuakeError) {
        try self.init(path: path, snapshot: false)
    }

    /// Opens the existing store at a file URL.
    public convenience init(url: URL) throws(QuakeError) {
        try self.init(path: url.path)
    }

    private init(path: String, snapshot: Bool) throws(QuakeError) {
        self.path = path
        isSnapshot = snapshot
        let manifestPath = Store.manifestPath(path)
        if FileIO.exists(path) && !FileIO.isDirectory(path) {
            throw QuakeError(.io, path: path, errno: ENOTDIR, detail: "a file, not a store directory")
        }
        guard FileIO.exists(manifestPath) else {
            if FileIO.exists(path + "/" + ManifestV1.fileName) {
                throw QuakeError(.needsMigration, path: path, detail: "a format v1 store")
            }
            let orphans = FileIO.list(path + "/partitions").count + FileIO.list(path + "/ids").count
            if orphans > 0 {
                throw QuakeError(.noManifest, path: path, detail: "holds \(orphans) partition or id-index files but no "
                    + "\(Manifest.fileName)")
            }
            throw QuakeError(.notFound, path: path, detail: "no store (no \(Manifest.fileName))")
        }
        let identity = FileIO.identity(manifestPath)
        state = Mutex(State(current: try Manifest.read(path: manifestPath), identity: identity))
    }

    /// A handle pinned to this store's newest committed generation: its reads keep that
    /// snapshot, whatever commits later, until its ``refresh()``. Other handles read the newest
    /// generation at every call.
    /// - Complexity: reads the manifest, O(partitions).
    public func snapshot() throws(QuakeError) -> Store {
        try Store(path: path, snapshot: true)
    }

    /// Opens the store at `path`, creating an empty one with `partitioning` when none exists.
    /// Refuses a directory that holds store files but no manifest, rather than starting over.
    ///
    /// - Parameters:
    ///   - path: The store directory; created, with its parents, when missing.
    ///   - partitioning: How a new store buckets events by time (nil: by month). An existing
    ///     store keeps its own: nil accepts it, and another value is refused
    ///     (``QuakeError/Kind/partitioningMismatch``).
    /// - Throws: ``QuakeError``: ``QuakeError/Kind/noManifest`` for a directory that holds
    ///   store files but no manifest, and the errors of ``init(path:)``.
    /// - Complexity: as ``init(path:)``; creating a store writes an empty manifest.
    public static func openOrCreate(path: String, partitioning: Partitioning? = nil) throws(QuakeError) -> Store {
        let store = try openOrCreate(path: path, partitioning: partitioning ?? .month,
                                     blockRows: Manifest.defaultBlockRows)
        if let partitioning, store.manifest.partitioning != partitioning {
            throw QuakeError(.partitioningMismatch, path: path, detail: "the store is partitioned by "
                + "\(store.manifest.partitioning.rawValue), not \(partitioning.rawValue)")
        }
        return store
    }

    /// Opens or creates the store at a file URL (see ``openOrCreate(path:partitioning:)``).
    public static func openOrCreate(url: URL, partitioning: Partitioning? = nil) throws(QuakeError) -> Store {
        try openOrCreate(path: url.path, partitioning: partitioning)
    }

    /// As the package one, with the rows per block of a new store (tests use small blocks).
    /// Opening an existing store takes no lock; creating one takes the writer lock first.
    package static func openOrCreate(path: String, partitioning: Partitioning,
                                     blockRows: Int) throws(QuakeError) -> Store {
        if FileIO.exists(manifestPath(path)) || FileIO.exists(path + "/" + ManifestV1.fileName) {
            return try Store(path: path)
        }
        return try openForWriting(path: path, partitioning: partitioning, blockRows: blockRows, wait: .never).store
    }

    /// A handle on a store not created yet: an empty snapshot read from nowhere, for what only
    /// plans (a sync's dry run) and must create nothing. It reads as an empty store.
    package init(absentAt path: String, partitioning: Partitioning) {
        self.path = path
        isSnapshot = true
        let empty = Manifest(partitioning: partitioning, blockRows: Manifest.defaultBlockRows)
        state = Mutex(State(current: empty, identity: nil))
    }

    /// Re-reads the manifest to see the latest committed snapshot.
    ///
    /// Fetches read the newest committed generation anyway; `refresh()` moves a handle pinned
    /// to a snapshot (`snapshot()`) to the newest one, and drops the readers of files the old
    /// snapshot named.
    ///
    /// - Throws: ``QuakeError`` when the manifest cannot be read.
    /// - Complexity: reads and checks the manifest, O(partitions).
    public func refresh() throws(QuakeError) {
        let id = FileIO.identity(Store.manifestPath(path))
        let manifest = try Manifest.read(path: Store.manifestPath(path))
        state.locked { $0.replace(with: manifest, identity: id) }
    }

    /// The snapshot a read starts from: the newest committed generation, checked with one
    /// `stat` of the manifest as SQLite checks its change counter, unless this handle is a
    /// ``snapshot()``. A manifest that cannot be read now leaves the last good snapshot.
    package func freshManifest() -> Manifest {
        if isSnapshot { return manifest }
        let id = FileIO.identity(Store.manifestPath(path))
        let (same, current) = state.locked { (id == $0.currentIdentity, $0.current) }
        if same || id == nil { return current }
        try? refresh()
        return manifest
    }

    func cachedCatalog(_ name: String) -> Catalog? {
        state.locked { $0.catalogs.last { $0.name == name }?.catalog }
    }

    func cacheCatalog(_ name: String, _ c: Catalog) {
        state.locked { shared in
            if let cached = shared.catalogs.firstIndex(where: { $0.name == name }) {
                shared.catalogs.remove(at: cached)
            }
            shared.catalogs.append((name, c))
            // a snapshot's catalog is read for its queries; older snapshots' are seldom read again
            if shared.catalogs.count > 8 { shared.catalogs.removeFirst() }
        }
    }

    /// A reader for one partition of the current snapshot.
    package func reader(_ entry: PartitionEntry) -> PartitionReader {
        let hash = Manifest.nameHash(entry.file)
        return state.locked { shared in
            let slot = shared.readerTable.first(hash) { shared.readerFiles[$0] == entry.file }
            if let slot, let cached = shared.readers[slot] { return cached }
            let reader = PartitionReader(storePath: path, entry: entry)
            if let slot {
                shared.readers[slot] = reader
            } else {
                shared.readerTable.add(hash, shared.readerFiles.count)
                shared.readerFiles.append(entry.file)
                shared.readers.append(reader)
            }
            return reader
        }
    }

    /// Drops the cached reader of a partition, unmapping its file once no one else holds it:
    /// a pass over every partition (an export) keeps one mapped at a time.
    package func dropReader(_ entry: PartitionEntry) {
        let hash = Manifest.nameHash(entry.file)
        state.locked { shared in
            if let slot = shared.readerTable.first(hash, where: { shared.readerFiles[$0] == entry.file }) {
                shared.readers[slot] = nil
            }
        }
    }

    /// Atomically replaces the manifest: write the catalog of its partitions when they changed,
    /// then a temporary file, fsync, rename, fsync the folder. The bytes are read back through
    /// the reader's checks first, so no commit can leave a manifest that the next open would
    /// refuse. Returns the manifest committed (with its catalog), for collecting garbage.
    @discardableResult
    package static func commit(_ m: Manifest, storePath: String) throws(QuakeError) -> Manifest {
        var manifest = m
        try attachCatalog(&manifest, storePath: storePath)
        dropStaleTopRows(&manifest)
        let tmp = manifestPath(storePath) + ".tmp"
        let bytes = manifest.encoded()
        _ = try bytes.withStoreBytes { (stored) throws(QuakeError) in try Manifest.decode(stored, path: tmp) }
        try FileIO.writeDurably(tmp, bytes)
        do throws(QuakeError) {
            try FileIO.rename(tmp, manifestPath(storePath))
        } catch {
            FileIO.remove(tmp)
            throw error
        }
        // past the rename the new manifest is the store's: a failure from here on is reported, and
        // callers collect garbage against the manifest on disk (``currentManifest(_:or:)``), never the
        // old one
        try FileIO.fsyncDirectory(storePath)
        return manifest
    }

    /// The manifest on disk at `storePath`, else `fallback`: what a failed commit leaves current
    /// (the old manifest, or the new one when only the folder's flush after the rename failed).
    package static func currentManifest(_ storePath: String, or fallback: Manifest) -> Manifest {
        (try? Manifest.read(path: manifestPath(storePath))) ?? fallback
    }

    /// Deletes files that neither the snapshot `m` nor its retired list names (older snapshots,
    /// leftovers of a crashed load or migration). Runs under the writer lock.
    package static func collectGarbage(_ m: Manifest, storePath: String) {
        var keep = m.liveFiles
        for retired in m.retired {
            keep.insert(retired)
        }
        for sub in ["partitions", "ids", "history"] {
            for name in FileIO.list(storePath + "/" + sub) where !keep.contains(sub + "/" + name) {
                // copies of partition ids (HistoryReference) live and go with their transaction
                if sub == "history", let generation = HistoryReference.generation(ofHistoryFile: name),
                   keep.contains("history/" + HistoryFile.name(generation: generation)) { continue }
                FileIO.remove(storePath + "/" + sub + "/" + name)
            }
        }
        FileIO.remove(storePath + "/tmp")
        FileIO.remove(manifestPath(storePath) + ".tmp")
        FileIO.remove(storePath + "/" + ManifestV1.fileName)
    }
}
