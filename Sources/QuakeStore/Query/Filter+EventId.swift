/// The FDSN `eventid` parameter (and the CLI's `--eventid`): an event answers to its preferred id
/// and, as USGS's service does, to the other ids of its `ids` list.
extension Filter {
    /// Events whose id is `id`, or whose `ids` list holds it. The query resolves it first
    /// (``QueryExecutor/resolvingEventIds(_:)``): when the store holds an event with that id, the
    /// filter is that event alone, found through the id index; else the `ids` lists are searched.
    package static func eventId(_ id: String) -> Filter {
        .or([.oneOf(.id, [id]), .contains(.ids, "," + id + ",", insensitive: false)])
    }

    /// The id of an ``eventId(_:)`` filter; nil for any other.
    var eventIdTerm: String? {
        guard case .or(let branches) = self, branches.count == 2,
              case .oneOf(.id, let ids) = branches[0], ids.count == 1,
              case .contains(.ids, let pattern, insensitive: false) = branches[1],
              pattern == "," + ids[0] + "," else { return nil }
        return ids[0]
    }
}
