import QuakeFormat

/// Point reads through the id index: a filter that requires one of a list of event ids
/// (`--id`, `FetchDescriptor` with `$0.id == x`, an FDSN `eventid`) reads only the minutes of the
/// partitions the id index names for them, whatever the list's length.
extension QueryExecutor {
    /// Sets of more ids than this (a `--changed-since` over a long history) are tested row by
    /// row without the index: its bucket files would all be read, and their keys name most
    /// partitions anyway.
    static let indexedSetLimit = 100_000

    /// Lists longer than this are tested through one hashed set, built once per query.
    static let hashedListLength = 8

    /// The ids `f` requires one of, when it says so at its top level (alone, or as a term of a
    /// conjunction: the shortest such list); nil otherwise.
    static func requiredIds(_ f: Filter) -> [String]? {
        if let ids = requiredIdsOfTerm(f) { return ids }
        guard case .and(let parts) = f else { return nil }
        var shortest: [String]?
        for part in parts {
            guard let ids = requiredIdsOfTerm(part) else { continue }
            if ids.count < shortest?.count ?? Int.max { shortest = ids }
        }
        return shortest
    }

    /// The ids one term requires one of: a list, or a set of ids.
    private static func requiredIdsOfTerm(_ term: Filter) -> [String]? {
        switch term {
        case .oneOf(.id, let ids): ids
        case .ids(let set) where set.count <= indexedSetLimit: set.ids
        default: nil
        }
    }

    /// The id-index windows at the top level of `f`, when ``withIdWindows(_:)`` added them.
    static func idWindows(_ f: Filter) -> TimeWindows? {
        if case .timeWindows(let windows) = f { return windows }
        guard case .and(let parts) = f else { return nil }
        for part in parts {
            if case .timeWindows(let windows) = part { return windows }
        }
        return nil
    }

    /// `f` without the id-index windows ``withIdWindows(_:)`` added.
    static func withoutIdWindows(_ f: Filter) -> Filter {
        guard idWindows(f) != nil else { return f }
        if case .timeWindows = f { return .all }
        guard case .and(let parts) = f else { return f }
        return .conjunction(parts.filter { part in
            if case .timeWindows = part { return false }
            return true
        })
    }

    /// `f` and, when it requires one of a list of ids, the time windows where the id index puts
    /// them: each entry of an id's key names a partition and the minute of its event there (or,
    /// for an entry written before minutes were kept, the whole partition). A long list of ids
    /// becomes one hashed set. Kernels then read only the granules of those minutes, and only
    /// the id frames of the rows in them.
    /// - Complexity: one index block read per id (each block once), at most
    ///   ``Manifest/idBucketCount`` files mapped.
    func withIdWindows(_ f: Filter) throws(QuakeError) -> Filter {
        guard QueryExecutor.idWindows(f) == nil, let ids = QueryExecutor.requiredIds(f) else { return f }
        let windows = try idIndexWindows(ids)
        let hashed: Filter = switch f {
        case .oneOf(.id, let list) where list.count > QueryExecutor.hashedListLength: .ids(EventIdSet(list))
        case .and(let parts): .and(parts.map { part in
            if case .oneOf(.id, let list) = part, list.count > QueryExecutor.hashedListLength {
                return .ids(EventIdSet(list))
            }
            return part
        })
        default: f
        }
        return .conjunction([hashed, .timeWindows(windows)])
    }

    /// The windows where the id index places `ids`: every entry of each id's key, as the
    /// minute its hint names in its partition, or the partition's whole span.
    func idIndexWindows(_ ids: [String]) throws(QuakeError) -> TimeWindows {
        var keysByBucket: [Int: [UInt64]] = [:]
        var files: [Int: IdBucketLookup] = [:]
        var spans: [Range<Int64>] = []
        for id in ids {
            var text = id
            // SAFETY: the buffer is the string's own UTF-8 for the closure's span; hash only reads it.
            let hash = text.withUTF8 { IdHashes.hash(UnsafeRawBufferPointer($0)) }
            let bucket = IdHashes.bucket(hash)
            guard bucket < manifest.idBuckets.count, let name = manifest.idBuckets[bucket] else { continue }
            let lookup: IdBucketLookup
            if let opened = files[bucket] {
                lookup = opened
            } else {
                lookup = try IdBucketLookup(path: store.path + "/ids/" + name, bucket: bucket,
                                            partitioning: manifest.partitioning)
                files[bucket] = lookup
            }
            let key = IdHashes.key(hash, bits: lookup.bits)
            keysByBucket[bucket, default: []].append(key)
        }
        for (bucket, keys) in keysByBucket {
            guard let lookup = files[bucket] else { continue }
            for place in try lookup.places(of: keys) { spans.append(window(place)) }
        }
        return TimeWindows(spans)
    }

    /// The times an index entry's place may hold: its minute, or its partition's span.
    private func window(_ place: IdBucketLookup.Place) -> Range<Int64> {
        let start = manifest.partitioning.start(ordinal: place.ordinal)
        if let minute = IdHashes.window(hint: place.hint, partitionStart: start) { return minute }
        return start..<manifest.partitioning.span(start).end
    }
}
