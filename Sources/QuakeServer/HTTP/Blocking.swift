import Foundation

/// Runs blocking work (a query, a file read) off Swift concurrency's few cooperative threads,
/// on a dispatch queue that may block, and awaits its result.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            DispatchQueue.global(qos: .userInitiated).async {
                c.resume(with: Result { try work() })
            }
        }
    }
}
