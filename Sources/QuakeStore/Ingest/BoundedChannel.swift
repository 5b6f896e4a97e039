import Foundation
import QuakeFormat

/// A bounded, blocking hand-off from producer threads to one consumer: at most `capacity`
/// items wait in memory, a producer blocks while it is full, and ``close()`` (the consumer has
/// gone) wakes and stops the producers. Carries parsed batches to the loader (``BatchPipe``)
/// and decompressed chunks to the parser (``ReadAhead``).
package final class BoundedChannel<Item>: @unchecked Sendable {
    // `items` and `closed` are guarded by `cond`.
    private let cond = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Blocks while full; false once the consumer has gone.
    @discardableResult
    package func put(_ item: Item) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        while items.count >= capacity && !closed { cond.wait() }
        if closed { return false }
        items.append(item)
        cond.broadcast()
        return true
    }

    /// The next item, waiting for it.
    package func take() -> Item {
        cond.lock()
        defer { cond.unlock() }
        while items.isEmpty { cond.wait() }
        let item = items.removeFirst()
        cond.broadcast()
        return item
    }

    /// The consumer is done: wakes and stops the producers.
    package func close() {
        cond.lock()
        closed = true
        items.removeAll()
        cond.broadcast()
        cond.unlock()
    }
}

/// What the parsing threads hand the loader.
package enum BatchItem {
    /// A parsed batch and the file's raw bytes read so far.
    case batch(RowBatch, Int)
    case end
    case failed(QuakeError)
}

/// Parsed batches from the parsing threads to the loader, so parsing and spilling run on both
/// cores while at most `capacity` batches wait in memory.
package typealias BatchPipe = BoundedChannel<BatchItem>
