import Foundation
import QuakeFormat
import QuakeSupport
import Synchronization

/// The async twins of the store's blocking calls (as GRDB pairs `read`/`write` with their async
/// forms): each runs its synchronous call off the caller's executor, so a `@MainActor` caller
/// never blocks on a commit, a verify or a history read. Synchronous code keeps the blocking
/// forms. A write cancelled before its commit commits nothing and throws `CancellationError`;
/// one cancelled during its commit commits whole.
extension Store {
    /// ``upsert(_:)``, off the caller's executor.
    /// - Complexity: as ``upsert(_:)``.
    @discardableResult
    public func upsert(_ quakes: [Quake]) async throws -> LoadSummary {
        try await cancellableWrite { try self.upsert(quakes) }
    }

    /// ``upsert(_:fields:)``, off the caller's executor.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a key path that is not a stored
    ///   property, or as ``upsert(_:)`` does.
    /// - Complexity: as ``upsert(_:)``.
    @discardableResult
    public func upsert(_ quakes: [Quake], fields: [PartialKeyPath<Quake>]) async throws -> LoadSummary {
        let columns = try Store.carriedColumns(fields)
        return try await cancellableWrite { try self.upsert(quakes, carrying: columns) }
    }

    /// ``delete(ids:)``, off the caller's executor.
    /// - Complexity: as ``delete(ids:)``.
    @discardableResult
    public func delete(ids: [String]) async throws -> LoadSummary {
        try await cancellableWrite { try self.delete(ids: ids) }
    }

    /// `history(since:)` (with a token), off the caller's executor.
    public func history(since token: HistoryToken? = nil, identifiers: Bool = true,
                        limit: Int? = nil) async throws -> [HistoryTransaction] {
        try await offExecutor { _ in try self.history(since: token, identifiers: identifiers, limit: limit) }
    }

    /// `history(since:)` (with a date), off the caller's executor.
    public func history(since date: Date, identifiers: Bool = true, limit: Int? = nil) async throws
        -> [HistoryTransaction] {
        try await offExecutor { _ in try self.history(since: date, identifiers: identifiers, limit: limit) }
    }

    /// ``verify(progress:)``, off the caller's executor; `progress` is called on the store's queue.
    @discardableResult
    public func verify(progress: (@Sendable (String) -> Void)? = nil) async throws -> VerifyReport {
        try await offExecutor { _ in try self.verify(progress: progress) }
    }

    /// ``enumerate(_:batchSize:_:)``, with each batch read off the caller's executor and `body`
    /// called on it; cancelling the task stops before the next batch.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` when `batchSize` is below 1.
    /// - Complexity: one query per `batchSize` events.
    /// It runs in the caller's isolation (`nonisolated(nonsending)`): `body` may touch the
    /// caller's state, as a `@MainActor` view's.
    nonisolated(nonsending)
    public func enumerate(_ descriptor: FetchDescriptor<Quake>, batchSize: Int = 5000,
                          _ body: (Quake) throws -> Void) async throws {
        let cursor = try SharedCursor(try fetchCursor(descriptor, batchSize: batchSize))
        while true {
            try Task.checkCancellation()
            let batch = try await offExecutor { _ in try cursor.nextBatch() }
            if batch.isEmpty { return }
            for quake in batch { try body(quake) }
        }
    }

    /// Runs a write off the caller's executor: cancelling the task stops it before its commit
    /// and throws `CancellationError`.
    private func cancellableWrite<T: Sendable>(_ write: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await offExecutor { _ in try write() }
        } catch let failure as QuakeError where failure.kind == .interrupted && Task.isCancelled {
            throw CancellationError()
        }
    }
}

/// A cursor the async ``Store/enumerate(_:batchSize:_:)`` hands to the store's queue a batch at
/// a time: one task uses it, and the lock makes each hand-off safe.
private final class SharedCursor: Sendable {
    private let cursor: Mutex<QuakeCursor>

    init(_ cursor: sending QuakeCursor) throws {
        self.cursor = Mutex(cursor)
    }

    func nextBatch() throws -> [Quake] {
        try cursor.locked { (cursor: inout QuakeCursor) throws -> [Quake] in try cursor.nextBatch() }
    }
}
