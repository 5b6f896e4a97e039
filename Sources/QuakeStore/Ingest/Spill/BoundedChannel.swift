import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// A bounded, blocking hand-off from producer threads to one consumer: at most `capacity`
/// items wait in memory, a producer blocks while it is full, and ``close()`` (the consumer has
/// gone) wakes and stops the producers. Carries parsed batches to the loader (``BatchPipe``)
/// and decompressed chunks to the parser (``ReadAhead``).
///
/// The queue is in a `Mutex`; a thread that must wait registers under the lock, then blocks on
/// a semaphore outside it, and whoever frees a slot (or brings an item, or closes) signals one
/// registered waiter per registration it clears. A woken thread checks again, as a condition
/// variable's waiter would. Producers and the consumer are plain threads, never Swift tasks.
package final class BoundedChannel<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var closed = false
        /// Producers registered to wait for a free slot, and consumers registered to wait for an item.
        var producersWaiting = 0
        var consumerWaiting = 0
    }
    private let state = Mutex(State())
    /// Signalled once per producer taken off `producersWaiting`.
    private let slotFree = DispatchSemaphore(value: 0)
    /// Signalled once per consumer taken off `consumerWaiting`.
    private let itemReady = DispatchSemaphore(value: 0)
    private let capacity: Int

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// What a ``put(_:)`` found under the lock.
    private enum PutStep { case closed, added(wakeConsumer: Bool), wait }

    /// Blocks while full; false once the consumer has gone.
    @discardableResult
    package func put(_ item: Item) -> Bool {
        while true {
            let step = state.locked { s -> PutStep in
                if s.closed { return .closed }
                guard s.items.count < capacity else {
                    s.producersWaiting += 1
                    return .wait
                }
                s.items.append(item)
                let wake = s.consumerWaiting > 0
                if wake { s.consumerWaiting -= 1 }
                return .added(wakeConsumer: wake)
            }
            switch step {
            case .closed: return false
            case .added(let wake):
                if wake { itemReady.signal() }
                return true
            case .wait: slotFree.wait()
            }
        }
    }

    /// The next item, waiting for it.
    package func take() -> Item {
        while true {
            let got = state.locked { s -> (item: Item?, wakeProducer: Bool) in
                guard !s.items.isEmpty else {
                    s.consumerWaiting += 1
                    return (nil, false)
                }
                let item = s.items.removeFirst()
                let wake = s.producersWaiting > 0
                if wake { s.producersWaiting -= 1 }
                return (item, wake)
            }
            if got.wakeProducer { slotFree.signal() }
            if let item = got.item { return item }
            itemReady.wait()
        }
    }

    /// The consumer is done: wakes and stops the producers.
    package func close() {
        let waiting = state.locked { s -> Int in
            s.closed = true
            s.items.removeAll()
            defer { s.producersWaiting = 0 }
            return s.producersWaiting
        }
        for _ in 0..<waiting { slotFree.signal() }
    }
}

/// What the parsing threads hand the loader.
package enum BatchItem: Sendable {
    /// A parsed batch and the file's raw bytes read so far.
    case batch(RowBatch, Int)
    case end
    case failed(QuakeError)
}

/// Parsed batches from the parsing threads to the loader, so parsing and spilling run on both
/// cores while at most `capacity` batches wait in memory.
package typealias BatchPipe = BoundedChannel<BatchItem>

/// A value that is not Sendable (a reader, its decompressor) used by one thread at a time and
/// handed from thread to thread: it lives in a `Mutex`, so whichever thread has it now reaches
/// it only inside ``locked(_:)``, and the compiler checks that nothing of it leaks out.
package final class Exclusive<Value>: Sendable {
    private let value: Mutex<Value>

    package init(_ value: sending Value) { self.value = Mutex(value) }

    package func locked<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result)
        throws(E) -> sending Result {
        try value.locked(body)
    }
}
