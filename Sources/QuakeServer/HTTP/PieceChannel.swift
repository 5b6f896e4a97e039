import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Hands the output of a blocking producer (a query running on a thread of its own) to an async
/// response writer, in pieces, with backpressure: the producer waits while `depth` pieces are
/// queued, so a slow client holds at most `depth` pieces in memory, whatever the answer's size.
///
/// The first message is the head (the row count, known before any row is written); then come
/// body pieces, then the end. When the client goes away the consumer calls ``cancel()``: the
/// producer's next ``push(_:)`` throws ``Cancelled`` and the scan stops.
///
/// The pieces go through a ``BoundedChannel``: the producer is a plain thread that blocks while
/// it is full; the async consumer suspends.
package final class PieceChannel: Sendable {
    /// Thrown by ``push(_:)`` once the consumer has gone away.
    package struct Cancelled: Error {}

    package enum Message: Sendable {
        case head(Int)
        case piece([UInt8])
    }

    private let channel: BoundedChannel<Message>
    /// The error that cut the output short, set before the channel ends.
    private let failure = Mutex<(any Error)?>(nil)

    /// Whether the consumer has gone away.
    package var isCancelled: Bool { channel.isClosed }

    package init(depth: Int = 4) { channel = BoundedChannel(capacity: depth) }

    /// Producer: queues a message, waiting while the queue is full.
    package func push(_ message: Message) throws(Cancelled) {
        guard channel.put(message) else { throw Cancelled() }
    }

    /// Producer: the end of the output, or the error that cut it short.
    package func finish(_ error: (any Error)? = nil) {
        failure.locked { $0 = error }
        channel.end()
    }

    /// Consumer: no more messages are wanted; a waiting producer wakes and stops.
    package func cancel() { channel.close() }

    /// Consumer: the next message, nil at the end.
    /// - Throws: the producer's error.
    package func next() async throws -> Message? {
        if let message = await channel.next() { return message }
        if let error = failure.locked({ $0 }) { throw error }
        return nil
    }

    /// Runs `produce` on a thread of its own (it blocks: a query, a file read, and waiting for the
    /// client in ``push(_:)``), finishing the channel with its outcome. Never on a dispatch queue:
    /// producers parked in `push` there took every worker, and the async writers that would have
    /// drained them, and the queries' own parallel scans, waited for a worker that never came.
    /// At most ``ProducerSlots/limit`` query producers run at once; later ones wait their turn
    /// without holding a thread.
    package func start(_ produce: @escaping @Sendable (PieceChannel) throws -> Void) async {
        await ProducerSlots.shared.acquire()
        run(produce) { ProducerSlots.shared.release() }
    }

    /// As ``start(_:)``, for a producer that lives as long as its client (a live feed): it takes
    /// no slot, since its own gate bounds those.
    package func startLongLived(_ produce: @escaping @Sendable (PieceChannel) throws -> Void) {
        run(produce) {}
    }

    private func run(_ produce: @escaping @Sendable (PieceChannel) throws -> Void,
                     done: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            defer { done() }
            do {
                try produce(self)
                finish()
            } catch {
                finish(error)
            }
        }
    }
}

/// Bounds the query producers running at once; the others wait, suspended, in arrival order.
package final class ProducerSlots: Sendable {
    package static let limit = 32
    package static let shared = ProducerSlots()
    private let state = Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>((ProducerSlots.limit, []))

    package func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.locked { slots -> Bool in
                if slots.free > 0 {
                    slots.free -= 1
                    return true
                }
                slots.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    package func release() {
        let next = state.locked { slots -> CheckedContinuation<Void, Never>? in
            if slots.waiting.isEmpty {
                slots.free += 1
                return nil
            }
            return slots.waiting.removeFirst()
        }
        next?.resume()
    }
}
