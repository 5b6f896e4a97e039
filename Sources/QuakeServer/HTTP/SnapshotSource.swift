import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import Synchronization

/// The store as the server reads it: one handle, moved to the newest committed snapshot when a
/// request finds the manifest file changed (a `stat`, no read, when nothing changed).
///
/// Every request takes one ``Snapshot`` and answers from it alone, so loads committing in other
/// processes never mix two generations into one answer.
package final class SnapshotSource: Sendable {
    package let store: Store
    /// The manifest file's identity when `latest` was read, and that manifest.
    private struct State {
        var identity: [Int64]?
        var latest: Manifest
    }
    private let state: Mutex<State>
    /// Whole answers of recent requests, by generation (``ResponseCache``).
    package let answers: ResponseCache

    /// One generation of the store: the manifest every part of an answer reads.
    package struct Snapshot: Sendable {
        package let store: Store
        package let manifest: Manifest
        package var generation: Int { manifest.generation }
    }

    /// - Parameters:
    ///   - cacheBytes: bytes of recent answers kept (``ResponseCache``); 0 keeps none.
    ///   - patience: how long a request waits for the same answer being made by another.
    package init(store: Store, cacheBytes: Int = 64 << 20, patience: Duration = .seconds(1)) {
        self.store = store
        answers = ResponseCache(capacity: cacheBytes, patience: patience)
        let identity = FileIO.identity(Store.manifestPath(store.path))
        state = Mutex(State(identity: identity, latest: store.manifest))
    }

    /// The newest committed snapshot.
    /// - Throws: ``QuakeError`` when the manifest changed and cannot be read; the previous
    ///   snapshot stays in use for later requests.
    package func current() throws(QuakeError) -> Snapshot {
        let now = FileIO.identity(Store.manifestPath(store.path))
        // the refresh stays under the lock, so that concurrent requests read the manifest once
        return try state.locked { (s) throws(QuakeError) -> Snapshot in
            if now != s.identity {
                try store.refresh()
                s.identity = now
                s.latest = store.manifest
            }
            return Snapshot(store: store, manifest: s.latest)
        }
    }
}
