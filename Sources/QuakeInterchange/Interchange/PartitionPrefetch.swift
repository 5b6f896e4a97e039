import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore
import Synchronization

/// Reads partitions one ahead of their consumer: `take(k)` returns partition k's rows and
/// starts reading partition k + 1 on another thread, so decoding overlaps encoding while at
/// most two partitions are in memory.
///
/// Each partition started gets a semaphore, signalled once by its reading thread after it left
/// the result in the `Mutex`; the consumer (a plain thread) blocks on it in ``take(_:)``.
package final class PartitionPrefetch: Sendable {
    private let count: Int
    private let read: @Sendable (Int) throws -> RowBatch
    private struct State {
        var ready: [Int: Result<RowBatch, any Error>] = [:]
        /// Per partition started, signalled once its result is in `ready`.
        var started: [Int: DispatchSemaphore] = [:]
    }
    private let state = Mutex(State())

    package init(count: Int, read: @escaping @Sendable (Int) throws -> RowBatch) {
        self.count = count
        self.read = read
    }

    private func start(_ k: Int) {
        guard k < count else { return }
        let done = DispatchSemaphore(value: 0)
        let fresh = state.locked { s in
            if s.started[k] != nil { return false }
            s.started[k] = done
            return true
        }
        guard fresh else { return }
        Thread.detachNewThread { [self] in
            let r = Result { try read(k) }
            state.locked { $0.ready[k] = r }
            done.signal()
        }
    }

    /// Partition `k`'s rows (waiting for them when still being read).
    package func take(_ k: Int) throws -> RowBatch {
        start(k)
        start(k + 1)
        // a partition past the end was never started: there is nothing to wait for
        guard let done = state.locked({ $0.started[k] }) else { return RowBatch() }
        done.wait()
        guard let r = state.locked({ $0.ready.removeValue(forKey: k) }) else { return RowBatch() }
        return try r.get()
    }
}
