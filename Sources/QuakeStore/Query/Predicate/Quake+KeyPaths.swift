import Foundation
import QuakeFormat

extension Quake {
    /// The stored column behind each property key path.
    // SAFETY: a `let` never written after its initialiser; only `AnyKeyPath` not being Sendable
    // keeps the compiler from seeing that.
    nonisolated(unsafe) static let columnsByKeyPath: [AnyKeyPath: Column] = [
        \Quake.id: .id, \Quake.time: .time, \Quake.latitude: .latitude, \Quake.longitude: .longitude,
        \Quake.depth: .depth, \Quake.magnitude: .mag, \Quake.magType: .magType, \Quake.nst: .nst, \Quake.gap: .gap,
        \Quake.dmin: .dmin, \Quake.rms: .rms, \Quake.net: .net, \Quake.updated: .updated, \Quake.place: .place,
        \Quake.type: .type, \Quake.horizontalError: .horizontalError, \Quake.depthError: .depthError,
        \Quake.magError: .magError, \Quake.magNst: .magNst, \Quake.status: .status,
        \Quake.locationSource: .locationSource, \Quake.magSource: .magSource, \Quake.felt: .felt, \Quake.cdi: .cdi,
        \Quake.mmi: .mmi, \Quake.alert: .alert, \Quake.tsunami: .tsunami, \Quake.sig: .sig, \Quake.tz: .tz,
        \Quake.url: .url, \Quake.detail: .detail, \Quake.code: .code, \Quake.ids: .ids, \Quake.sources: .sources,
        \Quake.types: .types, \Quake.title: .title,
    ]

    /// The column a key path reads, if it is a stored property.
    package static func column(for keyPath: AnyKeyPath) -> Column? { columnsByKeyPath[keyPath] }

    /// The seed app's search: one UTC day, plus place text when `searchText` is not empty.
    /// It feeds the map (sorted by magnitude, largest first) and the list (by time or magnitude).
    ///
    /// ```swift
    /// let p = Quake.predicate(searchText: "Alaska", searchDate: .now)
    /// let map = try store.fetch(FetchDescriptor(predicate: p,
    ///                                           sortBy: [SortDescriptor(\.magnitude, order: .reverse)]))
    /// ```
    ///
    /// The place test is `String.contains`: case- and diacritic-sensitive, as in the seed app.
    /// For a search that ignores case and diacritics, set the descriptor's `searchText` instead.
    ///
    /// - Parameters:
    ///   - searchText: Text the place must contain; empty matches every place (and events
    ///     without one).
    ///   - searchDate: Any instant of the UTC day to match.
    /// - Returns: A predicate that runs as column kernels: a time range and a place search.
    public static func predicate(searchText: String, searchDate: Date) -> Predicate<Quake> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = calendar.startOfDay(for: searchDate)
        let end = calendar.date(byAdding: .init(day: 1), to: start) ?? start
        return #Predicate<Quake> { quake in
            (searchText.isEmpty || (quake.place ?? "").contains(searchText))
                && (quake.time >= start && quake.time < end)
        }
    }
}
