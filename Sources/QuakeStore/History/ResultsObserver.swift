import Foundation
import QuakeFormat

/// A query's answer kept current as loads commit, like SwiftData's `ResultsObserver` and
/// `@Query`: an `AsyncSequence` that yields the answer at once, then again after each commit
/// that could change it (see ``ChangeFeed`` for how commits are judged from the history).
///
/// ```swift
/// for try await update in store.results(for: FetchDescriptor(predicate: #Predicate { $0.magnitude! >= 6 })) {
///     print(update.generation, update.result.count)
/// }
/// ```
/// Iteration runs on its own thread with its own store handle; ending the loop (or
/// cancelling its task) stops it within ``ChangeFeed/pollMilliseconds``.
public struct ResultsObserver<Result: Sendable>: AsyncSequence, Sendable {
    public struct Update: Sendable {
        /// The snapshot the result was computed on.
        public var generation: Int
        public var result: Result
    }

    public typealias Element = Update

    package let path: String
    package let filter: Filter
    package let evaluate: @Sendable (Store) throws -> Result

    public func makeAsyncIterator() -> AsyncThrowingStream<Update, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Update.self, throwing: (any Error).self)
        let path = path, filter = filter, evaluate = evaluate
        let box = FeedBox()
        continuation.onTermination = { _ in box.stop() }
        let thread = Thread {
            do {
                let store = try Store(path: path)
                let feed = try ChangeFeed(store: store, filter: filter)
                guard box.set(feed) else { continuation.finish(); return }
                continuation.yield(Update(generation: store.manifest.generation, result: try evaluate(store)))
                while let g = try feed.next() {
                    continuation.yield(Update(generation: g, result: try evaluate(store)))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.start()
        return stream.makeAsyncIterator()
    }

    /// The feed of a running iteration, stopped when the consumer goes away.
    package final class FeedBox: @unchecked Sendable {
        private let lock = NSLock()
        private var feed: ChangeFeed?
        private var stopped = false

        /// Keeps `f`; false when the consumer has already gone.
        package func set(_ f: ChangeFeed) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            feed = f
            return !stopped
        }

        package func stop() {
            lock.lock()
            stopped = true
            let f = feed
            lock.unlock()
            f?.stop()
        }
    }
}

extension Store {
    /// The matching events, now and after every commit that could change them.
    public func results(for d: FetchDescriptor<Quake>) -> ResultsObserver<[Quake]> {
        ResultsObserver(path: path, filter: d.filter) { s in try s.fetch(d) }
    }

    /// The number of matching events, now and after every commit that could change it.
    public func countResults(for d: FetchDescriptor<Quake>) -> ResultsObserver<Int> {
        ResultsObserver(path: path, filter: d.filter) { s in try s.fetchCount(d) }
    }
}
