import Foundation
import QuakeFormat

/// Work shared by the threads of ``parallelMap(_:_:)``: a cursor, results and the first error.
private final class ParallelState<T, R>: @unchecked Sendable {
    package let items: [T]
    package let body: (T) throws -> R
    package let lock = NSLock()
    package var results: [R?]
    package var next = 0
    package var firstError: (any Error)?

    package init(items: [T], body: @escaping (T) throws -> R) {
        self.items = items
        self.body = body
        results = Array(repeating: nil, count: items.count)
    }

    package func work() {
        while true {
            lock.lock()
            let i = next
            next += 1
            let stop = firstError != nil
            lock.unlock()
            if i >= items.count || stop { return }
            do {
                let r = try body(items[i])
                lock.lock(); results[i] = r; lock.unlock()
            } catch {
                lock.lock(); if firstError == nil { firstError = error }; lock.unlock()
            }
        }
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
    if let e = state.firstError { throw e }
    return state.results.map { $0! }
}
