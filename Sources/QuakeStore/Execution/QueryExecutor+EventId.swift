import QuakeFormat

extension QueryExecutor {
    /// `f` with each ``Filter/eventId(_:)`` term at its top level narrowed to the event's own id
    /// when the store holds a live event with that id: a point read through the id index, instead of
    /// a search of every `ids` list. A term whose id no event has, or whose lookup fails, stays
    /// as it is (the lists are searched).
    /// - Complexity: one point count per `eventid` term.
    func resolvingEventIds(_ f: Filter) -> Filter {
        if let id = f.eventIdTerm { return holdsEvent(id) ? .oneOf(.id, [id]) : f }
        guard case .and(let parts) = f, parts.contains(where: { $0.eventIdTerm != nil }) else { return f }
        return .conjunction(parts.map { part in
            guard let id = part.eventIdTerm, holdsEvent(id) else { return part }
            return .oneOf(.id, [id])
        })
    }

    /// True when a live event of the snapshot has `id` as its preferred id. A tombstone does not
    /// count: USGS deletes an event merged into another, which then lists its id in `ids`.
    private func holdsEvent(_ id: String) -> Bool {
        ((try? count(.conjunction([.oneOf(.id, [id]), .notDeleted]), cap: 1))?.0 ?? 0) > 0
    }
}
