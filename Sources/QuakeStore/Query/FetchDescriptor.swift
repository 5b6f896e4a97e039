import Foundation
import QuakeFormat

/// A fetch request shaped like SwiftData's `FetchDescriptor`: a Foundation `Predicate`,
/// Foundation `SortDescriptor`s, a limit, an offset and the properties to read.
public struct FetchDescriptor<T>: @unchecked Sendable {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>]
    public var fetchLimit: Int?
    public var fetchOffset: Int?
    /// Properties to read; empty reads every property. Others are left nil.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Whether events their source deleted (tombstones a sync keeps, status `deleted`) are
    /// fetched; like USGS, they are left out by default.
    public var includesDeleted = false

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

/// Errors from translating a fetch descriptor.
public enum FetchError: Error, CustomStringConvertible {
    case unsupportedSort(String)
    case unsupportedProperty(String)
    /// More group keys than ``Store/aggregate(_:by:metrics:)`` takes.
    case tooManyGroups(Int)

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
    /// The matching events, sorted (nulls last, id last) and paged as the descriptor says.
    public func fetch(_ d: FetchDescriptor<Quake>) throws -> [Quake] {
        try query(try d.spec(), columns: try d.columns()).quakes
    }

    /// The number of matching events, counted without materializing any.
    public func fetchCount(_ d: FetchDescriptor<Quake>) throws -> Int {
        let n = try count(d.filter)
        let afterOffset = max(0, n - (d.fetchOffset ?? 0))
        return d.fetchLimit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The ids of the matching events, in order.
    public func fetchIdentifiers(_ d: FetchDescriptor<Quake>) throws -> [String] {
        try query(try d.spec(), columns: [.id]).ids
    }

    /// Calls `body` with every matching event in order, fetching `batchSize` at a time with a
    /// keyset cursor, so memory stays constant whatever the result size.
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
    /// - Complexity: one aggregate pass, then one top-N query per section.
    public func fetchSections(_ d: FetchDescriptor<Quake>, by key: GroupBy, limitPerSection: Int? = nil) throws
        -> [QuakeSection] {
        try sections(d.filter, by: key, sort: try d.sortKeys(), limitPerSection: limitPerSection, columns: try d.columns())
            .map { QuakeSection(id: $0.id, elements: $0.rows.quakes, totalCount: $0.count) }
    }

    /// Grouped aggregates over the events a predicate matches.
    public func aggregate(_ predicate: Predicate<Quake>?, by groups: [GroupBy], metrics: [Metric]) throws -> [AggregateRow] {
        try aggregate(.conjunction([predicate.map { PredicateTranslator.filter($0) } ?? .all, Filter.notDeleted]),
                      by: groups, metrics: metrics).0
    }

    /// How a descriptor runs: the filter it compiled to and what was pruned.
    public func explain(_ d: FetchDescriptor<Quake>) throws -> String {
        let spec = try d.spec()
        let r = try query(spec, columns: [.id])
        return r.stats.report(filter: spec.effectiveFilter)
    }
}
