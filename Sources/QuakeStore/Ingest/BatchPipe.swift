import Foundation
import QuakeFormat

/// A bounded hand-off of parsed batches from the parsing thread to the loader, so parsing
/// and spilling run on both cores while at most `capacity` batches wait in memory.
package final class BatchPipe: @unchecked Sendable {
    package enum Item {
        /// A parsed batch and the file's raw bytes read so far.
        case batch(RowBatch, Int)
        case end
        case failed(IngestError)
    }

    private let cond = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int

    package init(capacity: Int) { self.capacity = capacity }

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

    package func take() -> Item {
        cond.lock()
        defer { cond.unlock() }
        while items.isEmpty { cond.wait() }
        let item = items.removeFirst()
        cond.broadcast()
        return item
    }

    /// The consumer is done: wakes and stops the producer.
    package func close() {
        cond.lock()
        closed = true
        items.removeAll()
        cond.broadcast()
        cond.unlock()
    }
}
