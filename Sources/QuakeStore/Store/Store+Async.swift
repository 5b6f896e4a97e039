import Foundation
import QuakeFormat
import Synchronization

/// The async API: each call runs the synchronous one on a queue of its own, off the caller's
/// executor (a `@MainActor` view never blocks on a read or a load), and stops promptly when its
/// task is cancelled: a fetch at the next partition it scans, throwing
/// ``QuakeError/Kind/interrupted``; a load before it commits (nothing is committed), throwing
/// `CancellationError`.
extension Store {
    private static let queue = DispatchQueue(label: "quakes.store", qos: .userInitiated, attributes: .concurrent)

    /// Runs `body` on the store's queue with a cancellation flag its task's cancellation sets.
    package func offExecutor<T: Sendable>(_ body: @escaping @Sendable (CancelFlag) throws -> T) async throws -> T {
        let flag = CancelFlag()
        let pending = PendingAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                pending.hold(continuation)
                if flag.isCancelled { pending.take()?.resume(throwing: QuakeError(.interrupted, detail: "cancelled")) }
                Store.queue.async {
                    // answered already: cancelled before the queue got to it
                    guard let waiting = pending.take() else { return }
                    if flag.isCancelled {
                        waiting.resume(throwing: QuakeError(.interrupted, detail: "cancelled"))
                        return
                    }
                    waiting.resume(with: Result { try CancelFlag.with(flag) { try body(flag) } })
                }
            }
        } onCancel: {
            flag.cancel()
            // not started yet (the queue's threads may all be busy): answer now, not when it starts
            pending.take()?.resume(throwing: QuakeError(.interrupted, detail: "cancelled"))
        }
    }

    /// ``fetch(_:)``, off the caller's executor; cancelling the task stops it.
    public func fetch(_ d: FetchDescriptor<Quake>) async throws -> [Quake] {
        try await offExecutor { _ in try self.fetch(d) }
    }

    /// ``fetchCount(_:)``, off the caller's executor; cancelling the task stops it.
    public func fetchCount(_ d: FetchDescriptor<Quake>) async throws -> Int {
        try await offExecutor { _ in try self.fetchCount(d) }
    }

    /// ``fetchIdentifiers(_:)``, off the caller's executor; cancelling the task stops it.
    public func fetchIdentifiers(_ d: FetchDescriptor<Quake>) async throws -> [String] {
        try await offExecutor { _ in try self.fetchIdentifiers(d) }
    }

    /// ``fetchSections(_:by:limitPerSection:)``, off the caller's executor; cancelling the task stops it.
    public func fetchSections(_ d: FetchDescriptor<Quake>, by key: GroupBy, limitPerSection: Int? = nil) async throws
        -> [QuakeSection] {
        try await offExecutor { _ in try self.fetchSections(d, by: key, limitPerSection: limitPerSection) }
    }

    /// ``aggregate(_:by:metrics:)``, off the caller's executor; cancelling the task stops it.
    public func aggregate(_ predicate: Predicate<Quake>?, by groups: [GroupBy], metrics: [Metric]) async throws
        -> [AggregateRow] {
        try await offExecutor { _ in try self.aggregate(predicate, by: groups, metrics: metrics) }
    }

    /// ``load(_:options:)``, off the caller's executor. Cancelling the task stops the load and
    /// throws `CancellationError`: before its commit, nothing is committed; during its commit
    /// (past the last point where it can stop), it commits whole.
    @discardableResult
    public func load(_ paths: [String], options: LoadOptions = LoadOptions()) async throws -> LoadSummary {
        let summary: LoadSummary
        do {
            summary = try await offExecutor { flag in
                var cancellable = options
                let asked = options.isCancelled
                cancellable.isCancelled = { flag.isCancelled || asked?() == true }
                return try self.load(paths, options: cancellable)
            }
        } catch let failure as QuakeError where failure.kind == .interrupted && Task.isCancelled {
            throw CancellationError()
        }
        try Task.checkCancellation()
        return summary
    }

    /// ``load(_:options:)-([URL],_)``, off the caller's executor; cancelling the task stops it
    /// before it commits, and it throws `CancellationError`.
    @discardableResult
    public func load(_ urls: [URL], options: LoadOptions = LoadOptions()) async throws -> LoadSummary {
        try await load(urls.map(\.path), options: options)
    }
}

/// The continuation of a call waiting for the store's queue: taken once, by the queue when it
/// starts the call or by the cancellation that comes before.
private final class PendingAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func hold(_ waiting: CheckedContinuation<T, any Error>) { continuation.withLock { $0 = waiting } }

    func take() -> CheckedContinuation<T, any Error>? {
        continuation.withLock { held in
            defer { held = nil }
            return held
        }
    }
}

