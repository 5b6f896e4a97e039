import Foundation
import QuakeFormat

/// A fetch request shaped like SwiftData's `FetchDescriptor`: a Foundation `Predicate`,
/// Foundation `SortDescriptor`s, a limit, an offset and the properties to read.
///
/// ```swift
/// var d = FetchDescriptor<Quake>(predicate: #Predicate { ($0.magnitude ?? 0) >= 4.5 },
///                                sortBy: [SortDescriptor(\.time, order: .reverse)])
/// d.fetchLimit = 50
/// d.propertiesToFetch = [\.time, \.magnitude, \.place]
/// let page = try store.fetch(d)
/// ```
///
/// The same descriptor drives ``Store/fetch(_:)``, ``Store/fetchCount(_:)``,
/// ``Store/fetchIdentifiers(_:)``, ``Store/enumerate(_:batchSize:_:)``,
/// ``Store/fetchCursor(_:batchSize:)``, ``Store/fetchSections(_:by:limitPerSection:)`` and the
/// observers ``Store/results(for:)`` and ``Store/countResults(for:)``. The store reads
/// `FetchDescriptor<Quake>` only.
public struct FetchDescriptor<T>: @unchecked Sendable {
    /// Which events to fetch: Foundation's own `#Predicate<Quake>`, nil for every event.
    ///
    /// Comparisons, `==` and `!=`, `&&`, `||`, `!`, `contains` on text, optional properties
    /// through `??`, `!`, `if let` and `?.contains(...) == true`, `nil` tests and captured values
    /// run as column kernels over the stored columns. Any other subtree (arithmetic, say) runs
    /// exactly, through Foundation's `evaluate`, row by row; ``Store/explain(_:)`` names it.
    /// Either way the answer is the one `evaluate` gives.
    public var predicate: Predicate<T>?
    /// The order: Foundation `SortDescriptor`s on stored properties of ``Quake``, applied as
    /// `sorted(using:)` applies them.
    ///
    /// The first descriptor orders, the next break its ties, and the event id breaks the
    /// remaining ones, so every order is total and pages never overlap or skip. As in Foundation,
    /// nil sorts first in forward order and last in reverse. String keys honour the comparator.
    /// Empty sorts by ``Quake/time``, oldest first.
    public var sortBy: [SortDescriptor<T>]
    /// The most events to return (nil for all of them). `Int.max` is allowed; a negative limit
    /// is refused with ``QuakeError/Kind/invalidArgument``.
    public var fetchLimit: Int?
    /// How many events to skip before the first returned (nil or 0 for none); a negative offset
    /// is refused with ``QuakeError/Kind/invalidArgument``.
    public var fetchOffset: Int?
    /// Properties to read; empty reads every property. Others are left nil.
    ///
    /// ``Quake/id``, ``Quake/time``, ``Quake/latitude`` and ``Quake/longitude`` are not optional
    /// and are always read. Naming fewer properties makes a fetch cheaper: only the named
    /// columns are decoded.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Whether events their source deleted (tombstones a sync keeps, status `deleted`) are
    /// fetched; like USGS, they are left out by default.
    public var includesDeleted = false

    /// A descriptor of every event matching `predicate` (every event when nil), in the order of
    /// `sortBy`, with no limit or offset, reading every property.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

/// Errors from translating a fetch descriptor.
public enum FetchError: Error, CustomStringConvertible {
    /// A sort descriptor whose key path is not a stored property of ``Quake``.
    case unsupportedSort(String)
    /// A key path in ``FetchDescriptor/propertiesToFetch`` that is not a stored property.
    case unsupportedProperty(String)
    /// More group keys than ``Store/aggregate(_:by:metrics:)`` takes.
    case tooManyGroups(Int)

    /// The error in one line.
    public var description: String {
        switch self {
        case .unsupportedSort(let s): return "sort descriptor \(s) does not name a stored Quake property"
        case .unsupportedProperty(let s): return "property \(s) is not a stored Quake property"
        case .tooManyGroups(let n): return "\(n) group keys; aggregate takes at most \(Aggregator.maxGroups)"
        }
    }
}

extension FetchDescriptor where T == Quake {
    package var filter: Filter {
        let f = predicate.map { PredicateTranslator.filter($0) } ?? .all
        return includesDeleted ? f : .conjunction([f, Filter.notDeleted])
    }

    package func sortKeys() throws -> [SortKey] {
        try sortBy.map { sd in
            guard let kp = sd.keyPath, let c = Quake.column(for: kp) else { throw FetchError.unsupportedSort(String(describing: sd)) }
            return SortKey(c, ascending: sd.order == .forward)
        }
    }

    package func columns() throws -> [Column]? {
        if propertiesToFetch.isEmpty { return nil }
        return try propertiesToFetch.map { kp in
            guard let c = Quake.column(for: kp) else { throw FetchError.unsupportedProperty(String(describing: kp)) }
            return c
        }
    }

    package func spec() throws -> QuerySpec {
        QuerySpec(filter: filter, sort: try sortKeys(), limit: fetchLimit, offset: fetchOffset ?? 0)
    }
}

extension Store {
    /// The matching events, sorted and paged as the descriptor says.
    ///
    /// Reads the newest committed generation: a load committed by this process or another
    /// before the call is seen.
    ///
    /// - Parameter d: The predicate, sort, limit, offset and properties to fetch.
    /// - Returns: The events, in the descriptor's order, each with the properties it asked for.
    /// - Throws: ``QuakeError``: ``QuakeError/Kind/invalidArgument`` for a negative limit or
    ///   offset, `.unsupportedSort` for a sort on something other than a stored property,
    ///   `.predicateFailed` when the predicate's `evaluate` throws (a force-unwrap of nil),
    ///   ``QuakeError/Kind/corrupt`` or ``QuakeError/Kind/io`` when a store file cannot be read.
    /// - Complexity: Partitions and granules (4,096 rows) that cannot match are skipped by their
    ///   statistics; the filter runs over the rest; only the returned events are decoded, and
    ///   only their requested properties. A sort on ``Quake/time`` reads in time order and
    ///   stops when the page is full; other sorts keep the best `fetchOffset + fetchLimit`
    ///   events in a bounded heap, and without a limit every match is held.
    public func fetch(_ d: FetchDescriptor<Quake>) throws -> [Quake] {
        try query(try d.spec(), columns: try d.columns()).quakes
    }

    /// The number of matching events, after the descriptor's offset and within its limit, as
    /// `fetch(d).count` would be.
    ///
    /// - Complexity: materializes no event. Partitions and granules that match whole are counted
    ///   from their statistics without decoding; the rest are scanned column by column.
    public func fetchCount(_ d: FetchDescriptor<Quake>) throws -> Int {
        let n = try count(d.filter)
        let afterOffset = max(0, n - (d.fetchOffset ?? 0))
        return d.fetchLimit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The ids of the matching events, in the descriptor's order, paged as it says.
    ///
    /// - Complexity: as ``fetch(_:)``, decoding the id column only.
    public func fetchIdentifiers(_ d: FetchDescriptor<Quake>) throws -> [String] {
        try query(try d.spec(), columns: [.id]).ids
    }

    /// Calls `body` with every matching event in order, fetching `batchSize` at a time with a
    /// keyset cursor, so memory stays constant whatever the result size.
    ///
    /// The events are those ``fetch(_:)`` returns, limit and offset included. Each batch resumes
    /// after the last event of the one before (its sort values and id), so a load committed
    /// meanwhile causes neither duplicates nor gaps. `body` may throw to stop early.
    ///
    /// - Parameters:
    ///   - d: The events and their order.
    ///   - batchSize: Events fetched per query, at least 1; `Int.max` fetches all at once.
    ///   - body: Called once per event, in order.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a batch size below 1, the errors of
    ///   ``fetch(_:)``, or what `body` throws.
    /// - Complexity: one query per `batchSize` events; memory holds one batch.
    public func enumerate(_ d: FetchDescriptor<Quake>, batchSize: Int = 5000, _ body: (Quake) throws -> Void) throws {
        var spec = try d.spec()
        var remaining = d.fetchLimit ?? Int.max
        let columns = try d.columns()
        var first = true
        while remaining > 0 {
            spec.limit = min(batchSize, remaining)
            if !first { spec.offset = 0 }
            let r = try query(spec, columns: columns)
            for q in r.quakes { try body(q) }
            remaining -= r.count
            guard r.count == spec.limit, let c = r.cursor else { break }
            spec.after = c
            first = false
        }
    }

    /// Sections like SwiftData's `sectionBy`: each group's id and total count, with up to
    /// `limitPerSection` events in the descriptor's order.
    ///
    /// ```swift
    /// for section in try store.fetchSections(d, by: .value(.net), limitPerSection: 10) {
    ///     print(section.id ?? "no net", section.totalCount, section.map(\.id))
    /// }
    /// ```
    ///
    /// The sections hold exactly the events ``fetch(_:)`` returns for `d`, its limit and offset
    /// included, grouped by `key`; each section's ``QuakeSection/totalCount`` counts its whole
    /// group. Sections come in key order; time sections come newest first when the first sort
    /// descriptor is ``Quake/time`` in reverse.
    ///
    /// - Parameters:
    ///   - d: The events, their order, and the properties to read.
    ///   - key: The grouping: a time bucket, a string column's values, or bins of a number.
    ///   - limitPerSection: At most this many events per section (nil for all of them).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a negative `limitPerSection` or a bin
    ///   width that is not positive, and the errors of ``fetch(_:)``.
    /// - Complexity: one aggregate pass for the groups and their counts, then one top-N query
    ///   per section.
    public func fetchSections(_ d: FetchDescriptor<Quake>, by key: GroupBy, limitPerSection: Int? = nil) throws
        -> [QuakeSection] {
        try sections(d.filter, by: key, sort: try d.sortKeys(), limitPerSection: limitPerSection, columns: try d.columns())
            .map { QuakeSection(id: $0.id, elements: $0.rows.quakes, totalCount: $0.count) }
    }

    /// Grouped aggregates over the events a predicate matches, like SQL's `GROUP BY`.
    ///
    /// ```swift
    /// let rows = try store.aggregate(#Predicate { ($0.magnitude ?? 0) >= 2.5 },
    ///                                by: [.time(.month)], metrics: [.count, .avg(.mag), .max(.mag)])
    /// for row in rows { print(row["month"] ?? "", row.value(.count) ?? 0, row.value(.avg(.mag)) ?? .nan) }
    /// ```
    ///
    /// One ``AggregateRow`` per group of the matching events, sorted by the group keys. With no
    /// groups, one row over every matching event. Tombstones (status `deleted`) are left out.
    ///
    /// - Parameters:
    ///   - predicate: The events to aggregate; nil for every event.
    ///   - groups: Up to three groupings: UTC time buckets, values of a string column, or bins
    ///     of a numeric one.
    ///   - metrics: The values per group: a count, and the minimum, maximum, average, sum or
    ///     an exact percentile of a numeric column's non-null values.
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for more than three groups, a bin width
    ///   that is not positive, a percentile outside 0...100, or a metric or bin of a column that
    ///   is not numeric; the errors of ``fetch(_:)`` otherwise.
    /// - Complexity: one pass over the matching rows, holding one accumulator per group and
    ///   metric (a percentile holds its group's values). Counts, minimums, maximums, sums and
    ///   averages of `mag`, `depth`, `latitude` and `longitude` by time bucket (and at most one
    ///   of `net`, `magType`, `type`, `status`) are folded from precomputed statistics wherever
    ///   the filter covers a granule whole.
    public func aggregate(_ predicate: Predicate<Quake>?, by groups: [GroupBy], metrics: [Metric]) throws -> [AggregateRow] {
        try aggregate(.conjunction([predicate.map { PredicateTranslator.filter($0) } ?? .all, Filter.notDeleted]),
                      by: groups, metrics: metrics).0
    }

    /// How a descriptor runs: the filter it compiled to, which parts ran as column kernels and
    /// which row by row, the access path, and what was pruned, as text for people.
    ///
    /// It runs the query (reading ids only), so its counts are the real ones. The text is for
    /// reading, not parsing; its form may change.
    public func explain(_ d: FetchDescriptor<Quake>) throws -> String {
        let spec = try d.spec()
        let r = try query(spec, columns: [.id])
        return r.stats.report(filter: spec.effectiveFilter)
    }
}
