import QuakeFormat
/// A set of event ids a filter can test rows against without allocating: an open-addressing
/// table over the ids' bytes, built once. ``Filter/ids(_:)`` holds one; `--changed-since`
/// builds one from the load history.
package final class EventIdSet: Sendable, CustomStringConvertible {
    /// Never mutated after init (a `let` of a Sendable value), so query threads share it.
    private let table: SliceInterner
    /// The ids as given, for the id index (``QueryExecutor/requiredIds(_:)``).
    private let listed: ByteArena

    /// The set of `ids` (duplicates count once).
    package convenience init(_ ids: some Sequence<String>) {
        var arena = ByteArena()
        for id in ids { arena.append(Array(id.utf8)) }
        self.init(arena)
    }

    package init(_ ids: ByteArena) {
        var interner = SliceInterner(capacity: ids.count)
        // SAFETY: `raw` is the arena's bytes for the closure's span; each of its ranges lies inside
        // them (ends ascend to bytes.count).
        assert((ids.ends.last ?? 0) <= ids.bytes.count)
        ids.bytes.withUnsafeBytes { raw in
            for i in 0..<ids.count { _ = interner.intern(UnsafeRawBufferPointer(rebasing: raw[ids.range(i)])) }
        }
        table = interner
        listed = ids
    }

    /// The ids, each once, in the order first given.
    package var ids: [String] {
        var seen = Set<String>()
        var out: [String] = []
        out.reserveCapacity(count)
        for index in 0..<listed.count {
            let id = String(decoding: listed.bytes[listed.range(index)], as: UTF8.self)
            if seen.insert(id).inserted { out.append(id) }
        }
        return out
    }

    /// Distinct ids in the set.
    package var count: Int { table.count }

    /// True when the id whose UTF-8 bytes are `p` is in the set.
    @inline(__always)
    package func contains(_ p: UnsafeRawBufferPointer) -> Bool { table.lookup(p) != nil }

    /// True when `id` is in the set.
    package func contains(_ id: String) -> Bool {
        var utf8 = id
        // SAFETY: the buffer is the string's own UTF-8 for the closure's span; lookup only reads it.
        return utf8.withUTF8 { table.lookup(UnsafeRawBufferPointer($0)) != nil }
    }

    package var description: String { "\(count) ids" }
}
