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
/// The state is in a `Mutex`. The producer is a plain thread and blocks on a semaphore while the
/// queue is full (registered under the lock first, and signalled once per registration cleared);
/// the async consumer parks a continuation instead.
package final class PieceChannel: Sendable {
    /// Thrown by ``push(_:)`` once the consumer has gone away.
    package struct Cancelled: Error {}

    package enum Message: Sendable {
        case head(Int)
        case piece([UInt8])
    }

    private struct State {
        var queue: [Message] = []
        var ended = false
        var failure: (any Error)?
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Producers registered to wait for room in the queue.
        var producersWaiting = 0
    }
    private let state = Mutex(State())
    /// Signalled once per producer taken off `producersWaiting`.
    private let room = DispatchSemaphore(value: 0)
    private let depth: Int

    /// Whether the consumer has gone away.
    package var isCancelled: Bool { state.locked { $0.cancelled } }

    package init(depth: Int = 4) { self.depth = max(1, depth) }

    /// Producer: queues a message, waiting while the queue is full.
    package func push(_ m: Message) throws(Cancelled) {
        while true {
            enum Step { case cancelled, queued(CheckedContinuation<Void, Never>?), wait }
            let step = state.locked { s -> Step in
                if s.cancelled { return .cancelled }
                guard s.queue.count < depth else {
                    s.producersWaiting += 1
                    return .wait
                }
                s.queue.append(m)
                defer { s.waiter = nil }
                return .queued(s.waiter)
            }
            switch step {
            case .cancelled: throw Cancelled()
            case .queued(let w):
                w?.resume()
                return
            case .wait: room.wait()
            }
        }
    }

    /// Producer: the end of the output, or the error that cut it short.
    package func finish(_ error: (any Error)? = nil) {
        let w = state.locked { s -> CheckedContinuation<Void, Never>? in
            s.ended = true
            s.failure = error
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Consumer: no more messages are wanted; a waiting producer wakes and stops.
    package func cancel() {
        let waiting = state.locked { s -> Int in
            s.cancelled = true
            s.queue.removeAll()
            defer { s.producersWaiting = 0 }
            return s.producersWaiting
        }
        for _ in 0..<waiting { room.signal() }
    }

    /// Consumer: the next message, nil at the end.
    /// - Throws: the producer's error.
    package func next() async throws -> Message? {
        while true {
            switch take() {
            case .message(let m): return m
            case .end: return nil
            case .failed(let e): throw e
            case .empty:
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in park(c) }
            }
        }
    }

    private enum Take { case message(Message), end, failed(any Error), empty }

    private func take() -> Take {
        let (t, wake) = state.locked { s -> (Take, Bool) in
            if !s.queue.isEmpty {
                let m = s.queue.removeFirst()
                // one slot freed: one waiting producer may go on
                let wake = s.producersWaiting > 0
                if wake { s.producersWaiting -= 1 }
                return (.message(m), wake)
            }
            if s.ended { return (s.failure.map { .failed($0) } ?? .end, false) }
            return (.empty, false)
        }
        if wake { room.signal() }
        return t
    }

    /// Keeps `c` to be resumed by the next push or finish, or resumes it now if one came already.
    private func park(_ c: CheckedContinuation<Void, Never>) {
        let now = state.locked { s -> Bool in
            if !s.queue.isEmpty || s.ended { return true }
            s.waiter = c
            return false
        }
        if now { c.resume() }
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

    private func run(_ produce: @escaping @Sendable (PieceChannel) throws -> Void, done: @escaping @Sendable () -> Void) {
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
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.locked { s -> Bool in
                if s.free > 0 { s.free -= 1; return true }
                s.waiting.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    package func release() {
        let next = state.locked { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty { s.free += 1; return nil }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
