import QuakeFormat

/// Point reads through the id index: a filter that requires one of a list of event ids
/// (`--id`, `FetchDescriptor` with `$0.id == x`) reads only the partitions the id index names
/// for them, whatever the list's length.
extension QueryExecutor {
    /// Sets of more ids than this (a `--changed-since` over a long history) are tested row by
    /// row without the index: its bucket files would all be read, and their keys name most
    /// partitions anyway.
    static let indexedSetLimit = 100_000

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

    /// The ordinals of the partitions that may hold any of `ids`, from the id index: each id's
    /// hash picks its bucket file, and the key cut from the hash names the partitions of the
    /// stored events that share it (a superset: keys of different ids may meet).
    /// - Complexity: reads the bucket files the ids hash to, at most ``Manifest/idBucketCount``.
    func ordinals(holding ids: [String]) throws(QuakeError) -> Set<Int> {
        var hashesByBucket: [Int: [UInt64]] = [:]
        for id in ids {
            var text = id
            // SAFETY: the buffer is the string's own UTF-8 for the closure's span; hash only reads it.
            let hash = text.withUTF8 { IdHashes.hash(UnsafeRawBufferPointer($0)) }
            hashesByBucket[IdHashes.bucket(hash), default: []].append(hash)
        }
        var ordinals = Set<Int>()
        for (bucket, hashes) in hashesByBucket {
            guard bucket < manifest.idBuckets.count, let file = manifest.idBuckets[bucket] else { continue }
            let index = try IdHashes.read(path: store.path + "/ids/" + file, bucket: bucket,
                                          partitioning: manifest.partitioning)
            let directory = IdHashes.Directory(index)
            for hash in hashes {
                for entry in directory.entries(index.key(hash), in: index) { ordinals.insert(index.ordinals[entry]) }
            }
        }
        return ordinals
    }
}
