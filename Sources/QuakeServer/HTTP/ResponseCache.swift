import QuakeSupport
import Synchronization

/// Whole answers of recent requests, each kept for the store generation it was read from: a
/// page that many people open (today's quakes) is read and written once per commit, not once
/// per request. A new commit changes the generation, so an answer is never served after the
/// data it came from has changed; answers whose window follows the clock are not kept.
///
/// Bounded by ``capacity`` bytes over all answers, an answer by ``entryLimit``; the least
/// recently used go first. A streamed answer is copied for keeping while it is sent; at most
/// ``copiesAtOnce`` are, so the copies in flight stay within `copiesAtOnce * entryLimit` bytes
/// whatever the number of clients. Requests that miss on a key another request is making the
/// answer for wait for that answer (``turn(_:patience:)``) rather than each make it again.
package final class ResponseCache: Sendable {
    /// What an answer depends on: the generation, the route and its query string as sent, and
    /// whether it was compressed.
    package struct Key: Hashable, Sendable {
        package let generation: Int
        package let route: String
        package let query: String
        package let gzip: Bool

        package init(generation: Int, route: String, query: String?, gzip: Bool) {
            self.generation = generation
            self.route = route
            self.query = query ?? ""
            self.gzip = gzip
        }
    }

    /// A kept answer: its body as sent, and the rows it lists.
    package struct Answer: Sendable {
        package let body: [UInt8]
        package let rows: Int
        package let gzip: Bool
    }

    /// A request waiting for the answer another request is making.
    struct Waiter {
        let id: UInt64
        let resume: CheckedContinuation<Answer?, Never>
    }

    struct State {
        var answers: [Key: (answer: Answer, used: UInt64)] = [:]
        /// Keys whose answer a request is making now, with the requests waiting for it.
        var making: [Key: [Waiter]] = [:]
        var waiters: UInt64 = 0
        var bytes = 0
        var clock: UInt64 = 0
        /// The newest generation an answer was kept for.
        var newest = Int.min
        var hits = 0, misses = 0
    }
    let state = Mutex(State())
    private let copying = Atomic(0)
    /// The most streamed answers copied for keeping at once.
    package static let copiesAtOnce = 8
    /// Bytes of all kept answers together.
    package let capacity: Int
    /// The largest answer kept.
    package let entryLimit: Int

    /// How long a request waits for the answer another request is making.
    package let patience: Duration

    /// - Parameters:
    ///   - capacity: bytes over all answers (0 keeps none).
    ///   - patience: how long a miss waits for the same answer being made by another request.
    package init(capacity: Int = 64 << 20, entryLimit: Int = 8 << 20, patience: Duration = .seconds(1)) {
        self.capacity = max(0, capacity)
        self.entryLimit = min(entryLimit, self.capacity)
        self.patience = patience
    }

    /// The answer kept for `key`, if any.
    /// - Complexity: O(1).
    package func answer(_ key: Key) -> Answer? {
        state.locked { state in
            state.clock += 1
            guard let hit = state.answers[key] else {
                state.misses += 1
                return nil
            }
            state.answers[key] = (hit.answer, state.clock)
            state.hits += 1
            return hit.answer
        }
    }

    /// Keeps `answer` for `key`. A newer generation drops every answer of the older ones (no
    /// request reads them again); past ``capacity``, the least recently used go.
    /// - Complexity: O(n) in the answers kept, when one must go.
    package func keep(_ key: Key, _ answer: Answer) {
        guard answer.body.count <= entryLimit else { return }
        state.locked { state in
            if key.generation < state.newest { return }
            if key.generation > state.newest {
                state.answers.removeAll()
                state.bytes = 0
                state.newest = key.generation
            }
            state.clock += 1
            if let old = state.answers.updateValue((answer, state.clock), forKey: key) {
                state.bytes -= old.answer.body.count
            }
            state.bytes += answer.body.count
            while state.bytes > capacity, let victim = state.answers.min(by: { $0.value.used < $1.value.used }) {
                state.bytes -= victim.value.answer.body.count
                state.answers[victim.key] = nil
            }
        }
    }

    /// Whether a streamed answer may be copied for keeping now; each true is followed by one
    /// ``endCopy()``.
    package func startCopy() -> Bool {
        guard capacity > 0 else { return false }
        if copying.wrappingAdd(1, ordering: .relaxed).newValue <= Self.copiesAtOnce { return true }
        copying.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    /// The end of a copy that ``startCopy()`` allowed.
    package func endCopy() { copying.wrappingSubtract(1, ordering: .relaxed) }

    /// Answers served from the cache, and requests that were not.
    package var counts: (hits: Int, misses: Int) { state.locked { ($0.hits, $0.misses) } }
}
