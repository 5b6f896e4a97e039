import Foundation
import QuakeFormat

/// A point in a store's load history to resume from, like SwiftData's `HistoryToken`: the
/// generation a caller has seen. Keep its ``description`` (or the token itself: it is
/// `Codable`) and pass it back to `Store.history(since:)` (with a token)
/// or the CLI's `--changed-since`.
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The store generation: each load that changes events, and each repair, migration or
    /// history prune, commits the next one.
    public let generation: Int

    /// The token of generation `generation`, as ``description`` wrote it.
    public init(generation: Int) { self.generation = generation }

    /// The generation as decimal text, `41`.
    public var description: String { "\(generation)" }

    /// Whether `a` comes before `b` in the history: an older generation.
    public static func < (a: HistoryToken, b: HistoryToken) -> Bool { a.generation < b.generation }
}

/// An event a load updated, with the fields whose values changed.
public struct HistoryUpdate: Sendable, Hashable, Codable {
    /// The event id.
    public var id: String
    /// The columns whose values differ between the stored version and the new one, in storage
    /// order.
    public var changedFields: [Column]
}

/// One committed load, like SwiftData's `DefaultHistoryTransaction`: its generation, commit
/// time, input files, and the events it inserted, updated and left unchanged.
public struct HistoryTransaction: Sendable, Identifiable, Hashable, Codable {
    /// The generation the load committed.
    public var generation: Int
    /// The generation, which identifies the transaction.
    public var id: Int { generation }
    /// Resume after this transaction.
    public var token: HistoryToken { HistoryToken(generation: generation) }
    /// When the load committed.
    public var committed: Date
    /// Commit time, epoch milliseconds.
    package var committedMillis: Int64
    /// The feed files the load read, as given.
    public var files: [String]
    /// Events the load inserted: new to the store.
    public var insertedCount: Int
    /// Stored events the load replaced with a newer version whose fields differ.
    public var updatedCount: Int
    /// Events in the input whose stored version did not change.
    public var unchangedCount: Int
    /// Partitions holding the inserted and updated events.
    public var partitions: [String]
    /// Earliest and latest event time the load changed, old versions and new (nil: none).
    package var timeSpan: ClosedRange<Int64>?
    /// Size of the transaction's file.
    public var bytes: Int
    /// Inserted ids, in partition order and sorted within each partition (empty unless asked for).
    public var inserted: [String] = []
    /// Updated ids with their changed fields (empty unless asked for).
    public var updated: [HistoryUpdate] = []
    /// Deleted ids: always empty. Events are never removed; a deletion (a sync's, or
    /// ``Store/delete(ids:)``) stores a tombstone, which shows as an update of `status`.
    public var deleted: [String] = []
}

/// One event of a transaction, as ``Store/forEachChange(generation:includeUnchanged:_:)``
/// passes it.
package struct HistoryChange: Sendable, Hashable {
    package enum Kind: String, Sendable { case inserted, updated, unchanged }
    package var kind: Kind
    public var id: String
    /// The fields that changed (updated events only).
    public var changedFields: [Column]
    /// The partition holding the event's new version.
    package var partition: String
}

extension Column {
    /// The columns whose bits are set in `mask`, in storage order.
    package static func columns(in mask: UInt64) -> [Column] { allCases.filter { mask & $0.bit != 0 } }
}
