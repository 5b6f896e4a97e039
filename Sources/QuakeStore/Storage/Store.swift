import Foundation

/// A quakes store: a directory holding a manifest, time partitions of column files and an
/// event-id index. Readers work on one immutable ``Manifest`` snapshot; a writer holds the
/// lock, writes new files, then atomically replaces `manifest.json`.
public final class Store: @unchecked Sendable {
    /// The store directory.
    public let path: String
    /// The snapshot this handle reads.
    public private(set) var manifest: Manifest
    private var readers: [String: PartitionReader] = [:]
    private let readersLock = NSLock()

    /// Where the CLI finds a store: `--store`, else `$QUAKES_STORE`, else `./quakes.store`.
    public static func defaultPath(explicit: String?) -> String {
        if let explicit { return explicit }
        if let env = ProcessInfo.processInfo.environment["QUAKES_STORE"], !env.isEmpty { return env }
        return "quakes.store"
    }

    /// Opens an existing store.
    public init(path: String) throws(StoreError) {
        self.path = path
        let m = path + "/manifest.json"
        guard FileIO.exists(m) else { throw .io("no store at \(path) (no manifest.json); run 'quakes load' to create one") }
        manifest = try Manifest.read(URL(fileURLWithPath: m))
        guard manifest.format == "quakes-store", manifest.version == 1 else {
            throw .unsupported("\(path): store format \(manifest.format) v\(manifest.version) is not supported")
        }
    }

    /// Opens the store at `path`, creating an empty one with `partitioning` when none exists.
    public static func openOrCreate(path: String, partitioning: Partitioning = .month) throws(StoreError) -> Store {
        if FileIO.exists(path + "/manifest.json") { return try Store(path: path) }
        try FileIO.makeDirectory(path)
        let lock = try StoreLock(storePath: path)
        defer { _ = lock }
        if !FileIO.exists(path + "/manifest.json") {
            try FileIO.makeDirectory(path + "/partitions")
            try FileIO.makeDirectory(path + "/ids")
            try commit(Manifest(partitioning: partitioning), storePath: path)
        }
        return try Store(path: path)
    }

    /// Re-reads `manifest.json` to see the latest committed snapshot.
    public func refresh() throws(StoreError) {
        let m = try Manifest.read(URL(fileURLWithPath: path + "/manifest.json"))
        readersLock.lock()
        manifest = m
        readers = [:]
        readersLock.unlock()
    }

    /// A reader for one partition of the current snapshot.
    public func reader(_ entry: PartitionEntry) -> PartitionReader {
        readersLock.lock()
        defer { readersLock.unlock() }
        if let r = readers[entry.dir] { return r }
        let r = PartitionReader(storePath: path, entry: entry)
        readers[entry.dir] = r
        return r
    }

    /// Atomically replaces the manifest: write a temporary file, fsync, rename, fsync the folder.
    static func commit(_ m: Manifest, storePath: String) throws(StoreError) {
        let tmp = storePath + "/manifest.json.tmp"
        try FileIO.writeDurably(tmp, m.encoded())
        try FileIO.rename(tmp, storePath + "/manifest.json")
        try FileIO.fsyncDirectory(storePath)
    }

    /// Deletes files that neither the snapshot `m` nor its retired list names (older snapshots,
    /// leftovers of a crashed load). Runs under the writer lock.
    static func collectGarbage(_ m: Manifest, storePath: String) {
        var keep = m.liveFiles
        for r in m.retired { keep.insert(r) }
        for sub in ["partitions", "ids"] {
            for name in FileIO.list(storePath + "/" + sub) where !keep.contains(sub + "/" + name) {
                FileIO.remove(storePath + "/" + sub + "/" + name)
            }
        }
        FileIO.remove(storePath + "/tmp")
    }
}
