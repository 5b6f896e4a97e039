import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// A query's answer kept current as loads commit, like SwiftData's `ResultsObserver` and
/// `@Query`: an `AsyncSequence` that yields the answer at once, then again after each commit
/// that could change it.
///
/// Whether a commit could change the answer is judged from the store's history, never by
/// reading data: a load matters when the time span of the events it inserted or updated (old
/// versions and new) meets the query's time bounds; a commit without a transaction (a repair,
/// a migration, a history prune) matters when it replaced a partition within those bounds. So
/// an observer of one day's events does not wake for a load of another day.
///
/// ```swift
/// for try await update in store.results(for: FetchDescriptor(predicate: #Predicate { ($0.magnitude ?? 0) >= 6 })) {
///     print(update.generation, update.result.count)
/// }
/// ```
/// Iteration runs on its own thread with its own store handle, which watches the manifest
/// (inotify on Linux, a stat of `manifest.qkm` every 200 ms elsewhere); ending the loop (or
/// cancelling its task) stops it within 200 ms. Commits by other processes are seen as well as this
/// one's. Each iteration starts its own watch, so two loops over one observer watch twice.
///
/// Make one with ``Store/results(for:)`` or ``Store/countResults(for:)``.
public struct ResultsObserver<Result: Sendable>: AsyncSequence, Sendable {
    /// One answer, and the store generation it was computed on.
    public struct Update: Sendable {
        /// The snapshot the result was computed on.
        public var generation: Int
        /// The answer: the events, or their count.
        public var result: Result
    }

    /// Each element is an ``Update``.
    public typealias Element = Update

    package let path: String
    package let filter: Filter
    package let evaluate: @Sendable (Store) throws -> Result

    /// Starts watching: opens the store on a thread of its own, yields the current answer, then
    /// one after each commit that could change it. The stream finishes, throwing, when the store
    /// cannot be read or the query fails.
    public func makeAsyncIterator() -> AsyncThrowingStream<Update, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Update.self, throwing: (any Error).self)
        let path = path
        let filter = filter
        let evaluate = evaluate
        let box = FeedBox()
        continuation.onTermination = { _ in box.stop() }
        let thread = Thread {
            do {
                let store = try Store(path: path)
                let feed = try ChangeFeed(store: store, filter: filter)
                guard box.set(feed) else {
                    continuation.finish()
                    return
                }
                continuation.yield(Update(generation: store.manifest.generation, result: try evaluate(store)))
                while let generation = try feed.next() {
                    continuation.yield(Update(generation: generation, result: try evaluate(store)))
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
    package final class FeedBox: Sendable {
        private let state = Mutex<(feed: ChangeFeed?, stopped: Bool)>((nil, false))

        /// Keeps `feed`; false when the consumer has already gone.
        package func set(_ feed: ChangeFeed) -> Bool {
            state.locked { shared in
                shared.feed = feed
                return !shared.stopped
            }
        }

        package func stop() {
            let feed = state.locked { shared -> ChangeFeed? in
                shared.stopped = true
                return shared.feed
            }
            feed?.stop()
        }
    }
}

extension Store {
    /// The matching events, now and after every commit that could change them, like SwiftData's
    /// `ResultsObserver`.
    ///
    /// Each answer is a whole ``fetch(_:)`` of the descriptor (its sort, limit and properties
    /// included), computed on the newest generation.
    public func results(for d: FetchDescriptor<Quake>) -> ResultsObserver<[Quake]> {
        ResultsObserver(path: path, filter: d.filter) { s in try s.fetch(d) }
    }

    /// The number of matching events, now and after every commit that could change it: each
    /// answer is a ``fetchCount(_:)`` of the descriptor.
    public func countResults(for d: FetchDescriptor<Quake>) -> ResultsObserver<Int> {
        ResultsObserver(path: path, filter: d.filter) { s in try s.fetchCount(d) }
    }
}
