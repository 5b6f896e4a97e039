import Foundation
import QuakeFormat

/// Decompressed chunks handed from a thread of its own to the parser, at most `capacity`
/// ahead: a `.gz` or `.zst` file inflates on one core while the parser works on the other.
///
/// The producer runs `produce` until it returns nil (the end) or throws; ``close()`` (the
/// consumer is gone) makes it stop at its next chunk.
final class ReadAhead: @unchecked Sendable {
    enum Item {
        /// A chunk, and the raw (compressed) bytes read when it was made.
        case chunk([UInt8], Int)
        case end
        case failed(IngestError)
    }

    // `items` and `closed` are guarded by `cond`.
    private let cond = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int

    /// Starts the producer thread.
    init(capacity: Int = 4, produce: @escaping @Sendable () throws(IngestError) -> ([UInt8], Int)?) {
        self.capacity = capacity
        Thread.detachNewThread { [self] in
            while true {
                let item: Item
                do throws(IngestError) {
                    if let (c, raw) = try produce() { item = .chunk(c, raw) } else { item = .end }
                } catch {
                    item = .failed(error)
                }
                guard put(item) else { return }
                if case .chunk = item { continue }
                return
            }
        }
    }

    /// Blocks while full; false once the consumer has gone.
    private func put(_ item: Item) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        while items.count >= capacity && !closed { cond.wait() }
        if closed { return false }
        items.append(item)
        cond.broadcast()
        return true
    }

    /// The next item, waiting for it.
    func take() -> Item {
        cond.lock()
        defer { cond.unlock() }
        while items.isEmpty { cond.wait() }
        let item = items.removeFirst()
        cond.broadcast()
        return item
    }

    /// The consumer is done: wakes and stops the producer.
    func close() {
        cond.lock()
        closed = true
        items.removeAll()
        cond.broadcast()
        cond.unlock()
    }
}
