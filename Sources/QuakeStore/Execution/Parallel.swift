import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// Work shared by the threads of ``parallelMap(_:_:)``: a cursor and the first error in a Mutex,
/// and the results beside it.
// @unchecked: the cursor and the first error are in `shared`; `results` is read and written only
// inside `shared.locked` too (each index once, then all of them after the threads have joined),
// but R need not be Sendable, so it cannot live in the Mutex's checked state. `items` and `body`
// are `let`s the threads only read and call: parallelMap's contract is that its callers' bodies
// are safe to run on several threads at once (they read a snapshot, readers, other shared
// values), but their captures (`self` of an executor, say), T and R are not all marked Sendable.
private final class ParallelState<T, R>: @unchecked Sendable {
    let items: [T]
    let body: (T) throws -> R
    private struct Shared {
        var next = 0
        var firstError: (any Error)?
    }
    private let shared = Mutex(Shared())
    /// Guarded by `shared`'s lock.
    private var results: [R?]

    init(items: [T], body: @escaping (T) throws -> R) {
        self.items = items
        self.body = body
        results = Array(repeating: nil, count: items.count)
    }

    func work() {
        while true {
            let (index, stop) = shared.locked { state in
                let index = state.next
                state.next += 1
                return (index, state.firstError != nil)
            }
            if index >= items.count || stop { return }
            do {
                let result = try body(items[index])
                shared.locked { _ in results[index] = result }
            } catch {
                shared.locked { state in if state.firstError == nil { state.firstError = error } }
            }
        }
    }

    /// The results in item order, or the first error; once every thread has returned.
    func outcome() throws -> [R] {
        if let firstError = shared.locked({ $0.firstError }) { throw firstError }
        return shared.locked { _ in results.map { $0! } }
    }
}

/// The number of worker threads scans and loads use: the machine's cores, at most 8.
package let workerCount = min(8, FileIO.processorCount())

/// Runs `body` over `items` on all cores, returning results in item order; rethrows the
/// first error.
package func parallelMap<T, R>(_ items: [T], _ body: @escaping (T) throws -> R) throws -> [R] {
    if items.isEmpty { return [] }
    if items.count == 1 { return [try body(items[0])] }
    let state = ParallelState(items: items, body: body)
    DispatchQueue.concurrentPerform(iterations: min(workerCount, items.count)) { _ in state.work() }
    return try state.outcome()
}
