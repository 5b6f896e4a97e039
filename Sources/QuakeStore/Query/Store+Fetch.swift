import Foundation
import QuakeFormat

extension Store {
    /// The matching events, in the descriptor's order, paged by its limit and offset.
    ///
    /// Every call reads the newest committed generation (unless this handle is a ``snapshot()``).
    /// - Throws: ``QuakeError`` of kind `invalidArgument` (a negative limit or offset),
    ///   `unsupportedSort`, `predicateFailed` (Foundation's `evaluate` would throw for a stored
    ///   event), `corrupt` or `io`.
    /// - Complexity: O(limit + offset) events materialized for a native order, pruned by zone
    ///   maps and top-N bounds; an order run in memory (a non-lexical string comparator) reads
    ///   every matching event.
    public func fetch(_ d: FetchDescriptor<Quake>) throws -> [Quake] {
        let plan = try FetchPlan(d)
        try checkUnwraps(plan)
        return try page(plan, limit: plan.limit, offset: plan.offset)
    }

    /// The number of events ``fetch(_:)`` would return, counted without materializing any.
    /// - Complexity: one counting pass; partitions and granules that zone maps settle are not read.
    public func fetchCount(_ d: FetchDescriptor<Quake>) throws -> Int {
        let plan = try FetchPlan(d)
        try checkUnwraps(plan)
        let matching = try count(plan.filter)
        let afterOffset = max(0, matching - plan.offset)
        return plan.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The ids of the events ``fetch(_:)`` would return, in order.
    public func fetchIdentifiers(_ d: FetchDescriptor<Quake>) throws -> [String] {
        var descriptor = d
        descriptor.propertiesToFetch = [\Quake.id]
        return try fetch(descriptor).map(\.id)
    }

    /// Calls `body` with every matching event in order, fetching `batchSize` at a time with a
    /// keyset cursor, so memory stays bounded by the batch whatever the result size.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` when `batchSize` is below 1.
    /// - Complexity: one query per `batchSize` events.
    public func enumerate(_ d: FetchDescriptor<Quake>, batchSize: Int = 5000,
                          _ body: (Quake) throws -> Void) throws {
        let cursor = try fetchCursor(d, batchSize: batchSize)
        while let quake = try cursor.next() { try body(quake) }
    }

    /// Sections like SwiftData's `sectionBy`: the events ``fetch(_:)`` returns, grouped by `key`,
    /// each section with at most `limitPerSection` of them in the descriptor's order and the
    /// whole group's `totalCount` (over every matching event, not only the page).
    ///
    /// Sections follow their key, newest first when the order is by time, newest first.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a negative `limitPerSection` or a
    ///   grouping the column cannot take (see ``GroupBy``).
    /// - Complexity: one aggregate pass, then one query per section.
    public func fetchSections(_ d: FetchDescriptor<Quake>, by key: GroupBy, limitPerSection: Int? = nil) throws
        -> [QuakeSection] {
        if let limit = limitPerSection, limit < 0 {
            throw QuakeError.argument("limitPerSection", "0 or more, not \(limit)")
        }
        try key.validate()
        let plan = try FetchPlan(d)
        try checkUnwraps(plan)
        let descending = d.sortBy.first.map { $0.keyPath == \Quake.time && $0.order == .reverse } ?? false
        guard plan.limit != nil || plan.offset > 0 else {
            return try sectionGroups(plan.filter, by: key, newestFirst: descending).map { group in
                let rows = try page(plan.narrowed(group.filter), limit: limitPerSection, offset: 0)
                return QuakeSection(id: group.id, elements: rows, totalCount: group.count)
            }
        }
        // a page: the sections of exactly the events fetch returns
        let rows = try page(plan, limit: plan.limit, offset: plan.offset)
        let position = Dictionary(rows.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let onPage = Filter.ids(EventIdSet(rows.map(\.id)))
        let allGroups = try sectionGroups(plan.filter, by: key, newestFirst: false)
        let totals = Dictionary(allGroups.map { ($0.id ?? "\u{0}", $0.count) }, uniquingKeysWith: { a, _ in a })
        return try sectionGroups(.conjunction([plan.filter, onPage]), by: key, newestFirst: descending).map { group in
            let spec = QuerySpec(filter: .conjunction([onPage, group.filter]), sort: [SortKey(.id)])
            let ids = try query(spec, columns: [.id]).ids
            let members = ids.compactMap { position[$0] }.sorted().map { rows[$0] }
            let shown = limitPerSection.map { Array(members.prefix($0)) } ?? members
            return QuakeSection(id: group.id, elements: shown, totalCount: totals[group.id ?? "\u{0}"] ?? members.count)
        }
    }

    /// Grouped aggregates over the events a predicate matches (tombstones left out).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a metric or grouping the column cannot
    ///   take (`avg(net)`, `bin(net)`), a bin width that is not positive, a percentile outside
    ///   0...100, or more than eight groups.
    /// - Complexity: one pass over the matching rows; partitions and granules whose stored
    ///   aggregates answer are not read.
    public func aggregate(_ predicate: Predicate<Quake>?, by groups: [GroupBy], metrics: [Metric]) throws
        -> [AggregateRow] {
        for group in groups { try group.validate() }
        for metric in metrics { try metric.validate() }
        let plan = try FetchPlan(FetchDescriptor(predicate: predicate))
        try checkUnwraps(plan)
        return try aggregate(plan.filter, by: groups, metrics: metrics).0
    }

    /// How a descriptor runs: the filter it compiled to and what was pruned.
    public func explain(_ d: FetchDescriptor<Quake>) throws -> String {
        let plan = try FetchPlan(d)
        let sort: [SortKey]
        if case .segments(let segments) = plan.order, let last = segments.last {
            sort = last.sort
        } else {
            sort = [SortKey(.id)]
        }
        let spec = QuerySpec(filter: plan.filter, sort: sort, limit: plan.limit, offset: plan.offset)
        let result = try query(spec, columns: [.id])
        var text = result.stats.report(filter: spec.effectiveFilter)
        if case .inMemory = plan.order { text += "\norder: in memory, with the sort descriptors' comparators" }
        if case .segments(let segments) = plan.order, segments.count > 1 {
            text += "\norder: nil keys first, then the others"
        }
        return text
    }
}
