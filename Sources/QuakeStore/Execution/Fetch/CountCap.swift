import Synchronization

/// Rows a capped count has found so far, shared by its partition threads so that each stops
/// once the count reaches its cap.
final class CountCap: Sendable {
    let cap: Int
    private let found: Atomic<Int>

    init(cap: Int, start: Int) {
        self.cap = cap
        found = Atomic(start)
    }

    /// Whether the rows found by finished partitions reach the cap.
    var reached: Bool { reached(adding: 0) }

    /// Whether the rows found by finished partitions, plus `pending` of a running one, reach the cap.
    func reached(adding pending: Int) -> Bool {
        if cap == .max { return false }
        return found.load(ordering: .sequentiallyConsistent) + pending >= cap
    }

    /// Adds a finished partition's rows.
    func add(_ n: Int) {
        found.wrappingAdd(n, ordering: .sequentiallyConsistent)
    }
}
