import QuakeFormat

/// A pull-based cursor over a fetch, as GRDB's `Cursor`: call ``next()`` until it returns nil.
/// Events come in the descriptor's order, `batchSize` at a time through a keyset cursor, so
/// memory stays bounded by the batch whatever the result size, and loads that commit meanwhile
/// cause neither duplicates nor gaps. (An order run in memory, for a string comparator that is
/// not `.lexical`, reads every matching event at the first call.)
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
    private let plan: FetchPlan
    private let batchSize: Int
    private var remaining: Int
    private var skip: Int
    private var segment = 0
    private var spec: QuerySpec?
    private var batch: [Quake] = []
    private var at = 0
    private var exhausted = false

    init(store: Store, descriptor d: FetchDescriptor<Quake>, batchSize: Int) throws {
        guard batchSize >= 1 else { throw QuakeError.argument("batchSize", "1 or more, not \(batchSize)") }
        self.store = store
        plan = try FetchPlan(d)
        try store.checkUnwraps(plan)
        self.batchSize = min(batchSize, 1 << 20)
        remaining = plan.limit ?? Int.max
        skip = plan.offset
    }

    /// The next event, or nil after the last.
    /// - Complexity: amortized O(1) per event, plus one query per `batchSize` events.
    public func next() throws -> Quake? {
        while at == batch.count {
            guard !exhausted, remaining > 0 else { return nil }
            try fill()
        }
        defer { at += 1 }
        return batch[at]
    }

    /// The events left in the current batch, or the next batch; empty after the last.
    func nextBatch() throws -> [Quake] {
        while at == batch.count {
            guard !exhausted, remaining > 0 else { return [] }
            try fill()
        }
        defer { at = batch.count }
        return Array(batch[at...])
    }

    private func fill() throws {
        at = 0
        guard case .segments(let segments) = plan.order else {
            batch = try store.page(plan, limit: plan.limit, offset: plan.offset)
            exhausted = true
            return
        }
        while spec == nil {
            guard segment < segments.count else {
                exhausted = true
                batch = []
                return
            }
            let current = segments[segment]
            if skip > 0 && segment < segments.count - 1 {
                let segmentCount = try store.count(current.filter)
                if segmentCount <= skip {
                    skip -= segmentCount
                    segment += 1
                    continue
                }
            }
            spec = QuerySpec(filter: current.filter, sort: current.sort, offset: skip)
            skip = 0
        }
        guard var next = spec else { return }
        next.limit = min(batchSize, remaining)
        let result = try store.query(next, columns: plan.columns)
        batch = result.quakes
        remaining -= batch.count
        if batch.count < (next.limit ?? 0) || result.cursor == nil {
            spec = nil
            segment += 1
        } else {
            next.after = result.cursor
            next.offset = 0
            spec = next
        }
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
