import Foundation
import QuakeFormat
import QuakeStore

/// Reads partitions one ahead of their consumer: `take(k)` returns partition k's rows and
/// starts reading partition k + 1 on another thread, so decoding overlaps encoding while at
/// most two partitions are in memory.
package final class PartitionPrefetch: @unchecked Sendable {
    private let count: Int
    private let read: @Sendable (Int) throws -> RowBatch
    private let lock = NSCondition()
    private var ready: [Int: Result<RowBatch, any Error>] = [:]
    private var started = Set<Int>()

    package init(count: Int, read: @escaping @Sendable (Int) throws -> RowBatch) {
        self.count = count
        self.read = read
    }

    private func start(_ k: Int) {
        guard k < count else { return }
        lock.lock()
        let fresh = started.insert(k).inserted
        lock.unlock()
        guard fresh else { return }
        Thread.detachNewThread { [self] in
            let r = Result { try read(k) }
            lock.lock()
            ready[k] = r
            lock.broadcast()
            lock.unlock()
        }
    }

    /// Partition `k`'s rows (waiting for them when still being read).
    package func take(_ k: Int) throws -> RowBatch {
        start(k)
        start(k + 1)
        lock.lock()
        while ready[k] == nil { lock.wait() }
        let r = ready.removeValue(forKey: k)
        lock.unlock()
        guard let r else { return RowBatch() }
        return try r.get()
    }
}
