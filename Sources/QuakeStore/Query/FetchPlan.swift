import Foundation
import QuakeFormat

/// A ``FetchDescriptor`` compiled for the engine, with Foundation's meaning kept exactly:
///
/// - the filter (predicate, search text and tombstones), and the force-unwraps whose nil would
///   make Foundation's `evaluate` throw ([`UnwrapTrap`]);
/// - the order as one or more *segments*, each a filter and a native sort. The engine sorts nulls
///   last; Foundation's `sorted(using:)` puts nil first in a forward sort. A forward first key on a
///   property that can be nil becomes two segments, its nil rows and then the others;
/// - or, for an order the engine cannot run (a string key whose comparator is not `.lexical`, or a
///   forward nullable key after the first), an order run in memory with Foundation's own
///   comparators over the matching rows;
/// - the limit and offset, checked, and the columns to read.
package struct FetchPlan {

    /// One run of the order: rows matching `filter`, in `sort` order.
    package struct Segment {
        package var filter: Filter
        package var sort: [SortKey]
    }

    package enum Order {
        case segments([Segment])
        /// Sorted in memory with `sortBy` after the engine reads the rows in id order.
        case inMemory
    }

    package var filter: Filter
    /// The rows a predicate's force-unwraps are checked over: the tombstone part of `filter`.
    package var base: Filter
    package var traps: [UnwrapTrap]
    package var order: Order
    package var sortBy: [SortDescriptor<Quake>]
    package var limit: Int?
    package var offset: Int
    /// Columns to read; nil reads all.
    package var columns: [Column]?

    package init(_ d: FetchDescriptor<Quake>) throws(QuakeError) {
        if let fetchLimit = d.fetchLimit, fetchLimit < 0 {
            throw .argument("fetchLimit", "0 or more, not \(fetchLimit)")
        }
        if let fetchOffset = d.fetchOffset, fetchOffset < 0 {
            throw .argument("fetchOffset", "0 or more, not \(fetchOffset)")
        }
        limit = d.fetchLimit
        offset = d.fetchOffset ?? 0
        base = d.includesDeleted ? .all : Filter.notDeleted
        var parts = [base]
        traps = []
        if let predicate = d.predicate {
            let (predicateFilter, predicateTraps) = PredicateTranslator.translate(predicate)
            parts.append(predicateFilter)
            traps = predicateTraps
        }
        if let text = d.searchText?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            parts.append(.contains(.place, CanonicalText.nfc(text), insensitive: true))
        }
        filter = .conjunction(parts)
        sortBy = d.sortBy
        var keys: [SortKey] = []
        var native = true
        for (k, descriptor) in d.sortBy.enumerated() {
            guard let keyPath = descriptor.keyPath, let column = Quake.column(for: keyPath) else {
                throw QuakeError(.unsupportedSort, detail: "sort key \(k + 1) of \(d.sortBy.count) is not a stored "
                    + "Quake property (computed properties and nested key paths cannot be sorted on)")
            }
            if let comparator = descriptor.stringComparator, comparator != .lexical { native = false }
            keys.append(SortKey(column, ascending: descriptor.order == .forward))
        }
        let segments = native ? FetchPlan.segments(keys, filter) : nil
        order = segments.map { .segments($0) } ?? .inMemory
        var cols: [Column]? = nil
        if !d.propertiesToFetch.isEmpty {
            var set: [Column] = [.id, .time, .latitude, .longitude]
            for keyPath in d.propertiesToFetch {
                guard let column = Quake.column(for: keyPath) else {
                    throw QuakeError(.invalidArgument, detail: "propertiesToFetch names a property that is not stored")
                }
                if !set.contains(column) { set.append(column) }
            }
            cols = set
        }
        columns = cols
    }

    /// Whether a column can hold nil: every one but the four a ``Quake`` always has.
    package static func nullable(_ c: Column) -> Bool {
        c != .id && c != .time && c != .latitude && c != .longitude
    }

    /// Segments whose native orders (nulls last) concatenate to Foundation's order (nil first
    /// when forward), or nil when a forward nullable key that is not first needs the memory path.
    static func segments(_ keys: [SortKey], _ filter: Filter) -> [Segment]? {
        guard let first = keys.first else { return [Segment(filter: filter, sort: [])] }
        let rest = Array(keys.dropFirst())
        guard rest.allSatisfy({ !($0.ascending && nullable($0.column)) }) else { return nil }
        guard first.ascending && nullable(first.column) else { return [Segment(filter: filter, sort: keys)] }
        // the nil rows tie on the first key: the rest order them, and the id alone when there is no rest
        return [Segment(filter: .conjunction([filter, .isNull(first.column)]),
                        sort: rest.isEmpty ? [SortKey(.id)] : rest),
                Segment(filter: .conjunction([filter, .not(.isNull(first.column))]), sort: keys)]
    }

    /// The plan for one section: the same order over the rows `extra` also matches.
    package func narrowed(_ extra: Filter) -> FetchPlan {
        var plan = self
        plan.filter = .conjunction([filter, extra])
        if case .segments(let segments) = order {
            plan.order = .segments(segments.map { Segment(filter: .conjunction([$0.filter, extra]), sort: $0.sort) })
        }
        return plan
    }
}

extension Store {
    /// Throws as Foundation's `evaluate` would: when a stored event that a force-unwrap reaches
    /// holds nil there.
    package func checkUnwraps(_ plan: FetchPlan) throws {
        for trap in plan.traps {
            let filter = Filter.conjunction([plan.base, trap.reach, .isNull(trap.column)])
            let result = try query(QuerySpec(filter: filter, sort: [SortKey(.id)], limit: 1), columns: [.id])
            if let id = result.ids.first {
                throw QuakeError(.predicateFailed, detail: "the predicate force-unwraps \(trap.column.propertyName), "
                    + "which is nil for event \(id): Foundation's evaluate throws there")
            }
        }
    }

    /// The rows of `plan` at `offset..<offset+limit` in its order.
    package func page(_ plan: FetchPlan, limit: Int?, offset: Int) throws -> [Quake] {
        switch plan.order {
        case .inMemory:
            // the sort keys are read for the sort; the page is then read with the asked columns only
            let keys = Set(plan.sortBy.compactMap { $0.keyPath.flatMap(Quake.column(for:)) })
            let read = plan.columns.map { Array(Set($0).union(keys)) }
            let all = try query(QuerySpec(filter: plan.filter, sort: [SortKey(.id)]), columns: read).quakes
            let sorted = all.sorted(using: plan.sortBy)
            let from = min(offset, sorted.count)
            let to = limit.map { min(sorted.count, from + min($0, sorted.count)) } ?? sorted.count
            let pageRows = sorted[from..<to]
            guard let cols = plan.columns, !keys.isSubset(of: Set(cols)) else { return Array(pageRows) }
            let at = Dictionary(pageRows.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
            let narrow = try query(QuerySpec(filter: .ids(EventIdSet(pageRows.map(\.id))), sort: [SortKey(.id)]),
                                   columns: cols).quakes
            return narrow.sorted { (at[$0.id] ?? 0) < (at[$1.id] ?? 0) }
        case .segments(let segments):
            var out: [Quake] = []
            var skip = offset
            var want = limit ?? Int.max
            for (k, segment) in segments.enumerated() where want > 0 {
                if skip > 0 && k < segments.count - 1 {
                    let segmentCount = try count(segment.filter)
                    if segmentCount <= skip {
                        skip -= segmentCount
                        continue
                    }
                }
                let spec = QuerySpec(filter: segment.filter, sort: segment.sort, limit: want == Int.max ? nil : want,
                                     offset: skip)
                let rows = try query(spec, columns: plan.columns).quakes
                skip = 0
                out += rows
                want -= rows.count
            }
            return out
        }
    }
}
