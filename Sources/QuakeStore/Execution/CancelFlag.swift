import Foundation
import QuakeFormat
import Synchronization

/// The cancellation of one async call (see `Store.offExecutor`): its task's cancellation handler
/// sets it, and the engine asks it at every partition it scans, so a cancelled fetch stops
/// promptly with ``QuakeError/Kind/interrupted``.
package final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func cancel() { flag.store(true, ordering: .relaxed) }

    package var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// The flag of the async call this thread runs, if any (no lookup while none runs).
    package static var current: CancelFlag? {
        active.load(ordering: .relaxed) == 0 ? nil : Thread.current.threadDictionary[key] as? CancelFlag
    }

    /// Async calls running now.
    private static let active = Atomic<Int>(0)

    /// Runs `body` with `flag` as this thread's ``current``.
    package static func with<T>(_ flag: CancelFlag, _ body: () throws -> T) rethrows -> T {
        active.add(1, ordering: .relaxed)
        Thread.current.threadDictionary[key] = flag
        defer {
            Thread.current.threadDictionary.removeObject(forKey: key)
            active.subtract(1, ordering: .relaxed)
        }
        return try body()
    }

    private static let key = "quakes.cancel"

    /// Throws when the call was cancelled.
    package func check() throws(QuakeError) {
        if isCancelled { throw QuakeError(.interrupted, detail: "cancelled") }
    }
}
