import Foundation

/// Rows a capped count has found so far, shared by its partition threads so that each stops
/// once the count reaches its cap.
final class CountCap: @unchecked Sendable {
    let cap: Int
    private var found: Int
    private let lock = NSLock()

    init(cap: Int, start: Int) {
        self.cap = cap
        found = start
    }

    /// Whether the rows found by finished partitions reach the cap.
    var reached: Bool { reached(adding: 0) }

    /// Whether the rows found by finished partitions, plus `pending` of a running one, reach the cap.
    func reached(adding pending: Int) -> Bool {
        if cap == .max { return false }
        lock.lock()
        defer { lock.unlock() }
        return found + pending >= cap
    }

    /// Adds a finished partition's rows.
    func add(_ n: Int) {
        lock.lock()
        found += n
        lock.unlock()
    }
}
