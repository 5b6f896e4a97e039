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
///
/// Answers mean what Foundation means: the events are those for which `predicate.evaluate`
/// is true, in the order `sorted(using: sortBy)` gives, ties broken by `id`.
// @unchecked: every stored property is an immutable value once set (a struct: a copy is what
// crosses threads). Foundation's `Predicate` and `SortDescriptor` are values that Foundation marks
// Sendable only when their key paths are, and `propertiesToFetch` holds `PartialKeyPath`s, which
// are not Sendable types; a descriptor's key paths are literals naming `Quake`'s stored
// properties, which no one mutates.
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
    /// Properties to read; empty reads every property. Others are nil.
    ///
    /// ``Quake/id``, ``Quake/time``, ``Quake/latitude`` and ``Quake/longitude`` are not optional
    /// and are always read. Naming fewer properties makes a fetch cheaper: only the named
    /// columns are decoded.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Place text to search for, ignoring case and diacritics (`"alaska"` finds `"Alaska"`,
    /// `"sao"` finds `"São"`), ANDed with ``predicate``; nil or blank searches nothing.
    /// `#Predicate` cannot say this on Linux (`localizedStandardContains` is Darwin-only).
    public var searchText: String?
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

extension FetchDescriptor where T == Quake {
    /// The descriptor's filter, for observers (which only ask whether a commit could touch it).
    package var filter: Filter {
        (try? FetchPlan(self).filter) ?? .all
    }

    /// The sort as engine keys, nulls last (tests compare with naive references).
    package func sortKeys() throws(QuakeError) -> [SortKey] {
        try sortBy.enumerated().map { (k, descriptor) throws(QuakeError) in
            guard let keyPath = descriptor.keyPath, let column = Quake.column(for: keyPath) else {
                throw QuakeError(.unsupportedSort, detail: "sort key \(k + 1) is not a stored Quake property")
            }
            return SortKey(column, ascending: descriptor.order == .forward)
        }
    }
}
