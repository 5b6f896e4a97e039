import Foundation
import QuakeFormat
import QuakeStore

/// The store as the server reads it: one handle, moved to the newest committed snapshot when a
/// request finds the manifest file changed (a `stat`, no read, when nothing changed).
///
/// Every request takes one ``Snapshot`` and answers from it alone, so loads committing in other
/// processes never mix two generations into one answer.
// @unchecked: `identity` and `latest` are read and written only under `lock`; `store` is itself
// Sendable and its manifest swap is locked inside it.
package final class SnapshotSource: @unchecked Sendable {
    package let store: Store
    private let lock = NSLock()
    private var identity: [Int64]?
    private var latest: Manifest

    /// One generation of the store: the manifest every part of an answer reads.
    package struct Snapshot: Sendable {
        package let store: Store
        package let manifest: Manifest
        package var generation: Int { manifest.generation }
    }

    package init(store: Store) {
        self.store = store
        identity = FileIO.identity(Store.manifestPath(store.path))
        latest = store.manifest
    }

    /// The newest committed snapshot.
    /// - Throws: ``QuakeError`` when the manifest changed and cannot be read; the previous
    ///   snapshot stays in use for later requests.
    package func current() throws(QuakeError) -> Snapshot {
        let now = FileIO.identity(Store.manifestPath(store.path))
        lock.lock()
        defer { lock.unlock() }
        if now != identity {
            try store.refresh()
            identity = now
            latest = store.manifest
        }
        return Snapshot(store: store, manifest: latest)
    }
}
