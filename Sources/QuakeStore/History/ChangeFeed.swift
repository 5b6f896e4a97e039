import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Waits for commits that could change a filter's answer: the engine of `--watch` and of
/// ``ResultsObserver``.
///
/// It watches the manifest only (inotify on the store directory on Linux, else a stat of
/// `manifest.qkm` every 200 ms), never the data. When a new snapshot lands it decides from
/// the load history whether the filter can see the change: a transaction counts when the
/// time span of the events it inserted or updated (old and new versions) meets the filter's
/// time bounds. A commit with no transaction (repair, migrate, a history prune) counts when
/// it replaced a partition the filter's time bounds reach.
package final class ChangeFeed: Sendable {
    private let store: Store
    private let bounds: (lower: Int64?, upper: Int64?)
    private let watchFD: Int32?
    /// The manifest's identity when last looked at (the waiting thread's; in a Mutex to be shareable).
    private let identity: Mutex<[Int64]?>
    private let stopped = Atomic(false)

    /// How often the fallback looks at the manifest, and the longest a stop waits.
    package static let pollMilliseconds: Int32 = 200

    /// A feed for `filter` on `store`. Moves the store handle to the latest snapshot, so an
    /// answer computed next is current and every later commit is seen.
    package init(store: Store, filter: Filter) throws {
        self.store = store
        bounds = filter.timeBounds
        watchFD = FileIO.watchDirectory(store.path)
        identity = Mutex(FileIO.identity(Store.manifestPath(store.path)))
        try store.refresh()
    }

    deinit { if let watchFD { FileIO.close(watchFD) } }

    /// The generation of the snapshot the feed has reached.
    package var generation: Int { store.manifest.generation }

    /// Ends a pending or later ``next()`` (from any thread; Ctrl-C handlers call it).
    package func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// Blocks until a commit that could change the filter's answer lands, moves the store
    /// handle to it, and returns its generation; nil once ``stop()`` was called.
    /// Commits that cannot matter are passed over (the handle still moves to them).
    package func next() throws -> Int? {
        while !isStopped {
            if let fd = watchFD {
                _ = FileIO.waitReadable(fd, milliseconds: Self.pollMilliseconds)
            } else {
                usleep(UInt32(Self.pollMilliseconds) * 1000)
            }
            let now = FileIO.identity(Store.manifestPath(store.path))
            let changed = identity.locked { id in
                defer { id = now }
                return id != now
            }
            if !changed { continue }
            let old = store.manifest
            try store.refresh()
            let new = store.manifest
            if new.generation != old.generation, try couldAffect(from: old, to: new) { return new.generation }
        }
        return nil
    }

    /// Whether the commits from `old` to `new` can change an answer within the time bounds.
    package func couldAffect(from old: Manifest, to new: Manifest) throws -> Bool {
        let loads = new.history.generations.filter { $0 > old.generation && $0 <= new.generation }
        // a generation without a transaction (repair, migrate, prune) is judged by its partitions
        let needsPartitionCheck = loads.count < new.generation - old.generation
        for g in loads {
            let file = try HistoryFile.read(path: HistoryFile.path(store: store.path, generation: g))
            if file.inserted + file.updated > 0 && meets(file.minTime, file.maxTime) { return true }
        }
        guard needsPartitionCheck else { return false }
        let before = Dictionary(old.partitions.map { ($0.key, $0.file) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(new.partitions.map { ($0.key, $0.file) }, uniquingKeysWith: { a, _ in a })
        for entry in old.partitions + new.partitions where before[entry.key] != after[entry.key] {
            if meets(entry.minTime, entry.maxTime) { return true }
        }
        return false
    }

    /// Whether `lo...hi` meets the filter's time window `[lower, upper)`.
    private func meets(_ lo: Int64, _ hi: Int64) -> Bool {
        guard lo <= hi else { return false }
        if let lower = bounds.lower, hi < lower { return false }
        if let upper = bounds.upper, lo >= upper { return false }
        return true
    }
}
