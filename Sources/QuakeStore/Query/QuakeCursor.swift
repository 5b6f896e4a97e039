import QuakeFormat

/// A pull-based cursor over a fetch, as GRDB's `Cursor`: call ``next()`` until it returns nil.
/// Events come in the descriptor's order, `batchSize` at a time through a keyset cursor, so
/// memory stays bounded by the batch whatever the result size, and loads that commit meanwhile
/// cause neither duplicates nor gaps.
///
/// ```swift
/// let cursor = try store.fetchCursor(FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.time)]))
/// while let quake = try cursor.next() {
///     print(quake.id)
/// }
/// ```
///
/// Make one with ``Store/fetchCursor(_:batchSize:)``. A cursor is not `Sendable`: use it from
/// one task or thread at a time.
public final class QuakeCursor {
    private let store: Store
    private var spec: QuerySpec
    private let columns: [Column]?
    private let batchSize: Int
    private var remaining: Int
    private var batch: [Quake] = []
    private var at = 0
    private var exhausted = false

    init(store: Store, descriptor d: FetchDescriptor<Quake>, batchSize: Int) throws {
        self.store = store
        spec = try d.spec()
        columns = try d.columns()
        self.batchSize = max(1, batchSize)
        remaining = d.fetchLimit ?? Int.max
    }

    /// The next event, or nil after the last.
    /// - Complexity: amortized O(1) per event, plus one query per `batchSize` events.
    public func next() throws -> Quake? {
        if at == batch.count {
            guard !exhausted, remaining > 0 else { return nil }
            spec.limit = min(batchSize, remaining)
            let r = try store.query(spec, columns: columns)
            batch = r.quakes
            at = 0
            remaining -= batch.count
            if batch.count < (spec.limit ?? 0) || r.cursor == nil { exhausted = true }
            spec.after = r.cursor
            spec.offset = 0
            if batch.isEmpty { return nil }
        }
        defer { at += 1 }
        return batch[at]
    }
}

extension Store {
    /// A cursor over the matching events, fetched `batchSize` at a time: the events
    /// ``fetch(_:)`` returns, limit and offset included, pulled one by one.
    ///
    /// - Parameters:
    ///   - d: The events and their order.
    ///   - batchSize: Events fetched per query (at least 1).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a batch size below 1, and the errors
    ///   of ``fetch(_:)`` for the descriptor.
    /// - Complexity: fetches nothing until the first ``QuakeCursor/next()``; then one query
    ///   per `batchSize` events, with memory for one batch.
    public func fetchCursor(_ d: FetchDescriptor<Quake>, batchSize: Int = 5000) throws -> QuakeCursor {
        try QuakeCursor(store: self, descriptor: d, batchSize: batchSize)
    }
}
