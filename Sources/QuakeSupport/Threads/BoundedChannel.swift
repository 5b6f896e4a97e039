import Foundation
import Synchronization

/// The package's one bounded hand-off: from producer threads to one consumer, with at most
/// `capacity` items waiting in memory. A producer blocks while the channel is full; the consumer
/// takes items on a plain thread (``take()``) or awaits them in a task (``next()``).
///
/// It carries parsed batches to the loader (``BatchPipe``), decompressed chunks to the parser,
/// partitions read ahead of an export, and a server's response pieces to the client.
///
/// - The producers end the stream with ``end()``: the consumer gets the items still waiting,
///   then nil.
/// - The consumer gives up with ``close()``: the waiting items are dropped, and every producer,
///   blocked or not, is refused from then on.
///
/// The queue is in a `Mutex`. A thread that must wait registers under the lock, then blocks on a
/// semaphore outside it; whoever frees a slot (or brings an item, or ends, or closes) signals one
/// registered waiter per registration it clears. A woken thread checks again, as a condition
/// variable's waiter would. An async consumer parks a continuation instead of a thread.
package final class BoundedChannel<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        /// The first item not yet taken: items are taken from the front without moving the rest.
        var head = 0
        /// Slots producers hold for items they are still making (``put(producing:)``).
        var reserved = 0
        var ended = false
        var closed = false
        /// Producers registered to wait for a free slot, and consumer threads registered to wait
        /// for an item.
        var producersWaiting = 0
        var consumersWaiting = 0
        /// The async consumer waiting for an item.
        var parked: CheckedContinuation<Void, Never>?

        var waiting: Int { items.count - head }

        mutating func popFirst() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    /// What a producer did under the lock: queued its item or not, and whom it must wake.
    private typealias PutOutcome = (added: Bool, wakeConsumer: Bool, parked: CheckedContinuation<Void, Never>?)

    /// What a producer waiting for a slot found under the lock.
    private enum ReserveStep {
        case closed
        case reserved
        case wait
    }

    /// What a consumer found under the lock.
    private enum TakeStep {
        case item(Item, wakeProducer: Bool)
        case finished
        case wait
    }

    private let state = Mutex(State())
    /// Signalled once per producer taken off `producersWaiting`.
    private let slotFree = DispatchSemaphore(value: 0)
    /// Signalled once per consumer thread taken off `consumersWaiting`.
    private let itemReady = DispatchSemaphore(value: 0)
    private let capacity: Int

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// True once the consumer has closed the channel.
    package var isClosed: Bool { state.locked { $0.closed } }

    /// Queues `item`, blocking while the channel is full.
    /// - Returns: false once the consumer has closed the channel (the item is dropped).
    @discardableResult
    package func put(_ item: Item) -> Bool {
        put { item }
    }

    /// Holds a slot first, blocking while the channel is full, then makes the item with `make`
    /// and queues it: a producer of large items (a partition read ahead) keeps no more of them in
    /// memory than the channel's capacity, counting the one it is making.
    /// - Returns: false once the consumer has closed the channel (`make` is not called, or its
    ///   item is dropped).
    @discardableResult
    package func put(producing make: () -> Item) -> Bool {
        guard reserveSlot() else { return false }
        let item = make()
        let outcome = state.locked { state -> PutOutcome in
            state.reserved -= 1
            if state.closed { return (false, false, nil) }
            state.items.append(item)
            let wakeConsumer = state.consumersWaiting > 0
            if wakeConsumer { state.consumersWaiting -= 1 }
            defer { state.parked = nil }
            return (true, wakeConsumer, state.parked)
        }
        if outcome.wakeConsumer { itemReady.signal() }
        outcome.parked?.resume()
        return outcome.added
    }

    /// Waits for a free slot and holds it; false once closed.
    private func reserveSlot() -> Bool {
        while true {
            let step = state.locked { state -> ReserveStep in
                if state.closed { return .closed }
                guard state.waiting + state.reserved < capacity else {
                    state.producersWaiting += 1
                    return .wait
                }
                state.reserved += 1
                return .reserved
            }
            switch step {
            case .closed: return false
            case .reserved: return true
            case .wait: slotFree.wait()
            }
        }
    }

    /// The next item, waiting for it on this thread.
    /// - Returns: nil once the producers have ended and every item was taken, or once closed.
    package func take() -> Item? {
        while true {
            switch step(registering: true) {
            case .item(let item, let wakeProducer):
                if wakeProducer { slotFree.signal() }
                return item
            case .finished:
                return nil
            case .wait:
                itemReady.wait()
            }
        }
    }

    /// The next item, suspending the task while there is none.
    /// - Returns: nil once the producers have ended and every item was taken, or once closed.
    package func next() async -> Item? {
        while true {
            switch step(registering: false) {
            case .item(let item, let wakeProducer):
                if wakeProducer { slotFree.signal() }
                return item
            case .finished:
                return nil
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    park(continuation)
                }
            }
        }
    }

    /// Takes an item under the lock, or says why there is none; a consumer thread that must wait
    /// registers (`registering`).
    private func step(registering: Bool) -> TakeStep {
        state.locked { state -> TakeStep in
            if let item = state.popFirst() {
                let wake = state.producersWaiting > 0
                if wake { state.producersWaiting -= 1 }
                return .item(item, wakeProducer: wake)
            }
            if state.ended || state.closed { return .finished }
            if registering { state.consumersWaiting += 1 }
            return .wait
        }
    }

    /// Keeps `continuation` to be resumed by the next item, end or close, or resumes it now if
    /// one came already.
    private func park(_ continuation: CheckedContinuation<Void, Never>) {
        let now = state.locked { state -> Bool in
            if state.waiting > 0 || state.ended || state.closed { return true }
            state.parked = continuation
            return false
        }
        if now { continuation.resume() }
    }

    /// The producers are done: the consumer takes what is waiting, then gets nil.
    package func end() {
        let wake = state.locked { state -> (consumers: Int, parked: CheckedContinuation<Void, Never>?) in
            state.ended = true
            defer {
                state.consumersWaiting = 0
                state.parked = nil
            }
            return (state.consumersWaiting, state.parked)
        }
        for _ in 0..<wake.consumers { itemReady.signal() }
        wake.parked?.resume()
    }

    /// The consumer is done: drops the waiting items and wakes and refuses the producers.
    package func close() {
        let waiting = state.locked { state -> Int in
            state.closed = true
            state.items.removeAll()
            state.head = 0
            defer { state.producersWaiting = 0 }
            return state.producersWaiting
        }
        for _ in 0..<waiting { slotFree.signal() }
    }
}
