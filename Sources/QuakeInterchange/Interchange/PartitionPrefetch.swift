import Foundation
import QuakeFormat
import QuakeStore
import QuakeSupport
import Synchronization

/// Reads partitions one ahead of their consumer: `take(k)` returns partition k's rows while a
/// thread of its own reads partition k + 1, so decoding overlaps encoding while at most two
/// partitions are in memory.
///
/// The reading thread hands the partitions over a ``BoundedChannel`` of one slot, which it holds
/// before it reads the next partition (``BoundedChannel/put(producing:)``): one partition waits
/// or is being read while the consumer has the other.
package final class PartitionPrefetch: Sendable {
    private let count: Int
    private let read: @Sendable (Int) throws -> RowBatch
    private let channel = BoundedChannel<Result<RowBatch, any Error>>(capacity: 1)
    /// Whether the reading thread was started, and the partition ``take(_:)`` hands out next.
    private let progress = Mutex<(started: Bool, next: Int)>((false, 0))

    package init(count: Int, read: @escaping @Sendable (Int) throws -> RowBatch) {
        self.count = count
        self.read = read
    }

    deinit { channel.close() }

    /// Starts the thread that reads the partitions in order, stopping at the first error.
    private func startReading() {
        let (count, read, channel) = (count, read, channel)
        Thread.detachNewThread {
            for partition in 0..<count {
                var failed = false
                let handed = channel.put {
                    let result = Result { try read(partition) }
                    if case .failure = result { failed = true }
                    return result
                }
                if !handed || failed { break }
            }
            channel.end()
        }
    }

    /// Partition `k`'s rows (waiting for them when still being read). The partitions are taken
    /// in order, from 0; one past the last has no rows.
    /// - Throws: the reader's error for partition `k`, or ``PrefetchOrderError`` for a `k` out of order.
    package func take(_ k: Int) throws -> RowBatch {
        let startNow = progress.locked { progress -> Bool? in
            guard k == progress.next else { return nil }
            progress.next += 1
            defer { progress.started = true }
            return !progress.started
        }
        guard let startNow else { throw PrefetchOrderError(requested: k) }
        if startNow { startReading() }
        guard let result = channel.take() else { return RowBatch() }
        return try result.get()
    }
}

/// A ``PartitionPrefetch`` asked for partitions out of order.
package struct PrefetchOrderError: Error, Equatable {
    package let requested: Int
}
