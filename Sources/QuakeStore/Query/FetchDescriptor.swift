import Foundation
import QuakeFormat

/// A fetch request shaped like SwiftData's `FetchDescriptor`: a Foundation `Predicate`,
/// Foundation `SortDescriptor`s, a limit, an offset and the properties to read.
///
/// Answers mean what Foundation means: the events are those for which `predicate.evaluate`
/// is true, in the order `sorted(using: sortBy)` gives (nil first in a forward sort, the string
/// comparator honoured), ties broken by `id`.
// @unchecked: Foundation's `Predicate` and `SortDescriptor` are Sendable only for Sendable key
// paths; a descriptor's key paths are `Quake`'s stored properties, which are immutable values.
public struct FetchDescriptor<T>: @unchecked Sendable {
    /// The events to fetch; nil fetches every event.
    public var predicate: Predicate<T>?
    /// The order; empty is by time, oldest first. The event id breaks ties.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many events (nil: all). Negative is an ``QuakeError/Kind/invalidArgument``.
    public var fetchLimit: Int?
    /// Skip this many events of the order first (nil: none). Negative is an
    /// ``QuakeError/Kind/invalidArgument``.
    public var fetchOffset: Int?
    /// Properties to read; empty reads every property. `id`, `time`, `latitude` and `longitude`
    /// are always read; other properties not named here are nil.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Place text to search for, ignoring case and diacritics (`"alaska"` finds `"Alaska"`,
    /// `"sao"` finds `"São"`), ANDed with ``predicate``; nil or blank searches nothing.
    /// `#Predicate` cannot say this on Linux (`localizedStandardContains` is Darwin-only).
    public var searchText: String?
    /// Whether events their source deleted (tombstones a sync keeps, status `deleted`) are
    /// fetched; like USGS, they are left out by default.
    public var includesDeleted = false

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension FetchDescriptor where T == Quake {
    /// The descriptor's filter, for observers (which only ask whether a commit could touch it).
    package var filter: Filter {
        (try? FetchPlan(self).filter) ?? .all
    }

    /// The sort as engine keys, nulls last (tests compare with naive references).
    package func sortKeys() throws(QuakeError) -> [SortKey] {
        try sortBy.enumerated().map { (k, sd) throws(QuakeError) in
            guard let kp = sd.keyPath, let c = Quake.column(for: kp) else {
                throw QuakeError(.unsupportedSort, detail: "sort key \(k + 1) is not a stored Quake property")
            }
            return SortKey(c, ascending: sd.order == .forward)
        }
    }
}
