import QuakeStore

/// What a sync did: the load summary's counts over every piece it committed, and the traffic.
public struct SyncSummary: Sendable, Equatable {
    /// The loads' counts, added up over the pieces (`files` is the pieces loaded).
    public var load = LoadSummary()
    /// HTTP requests made, retries and `count` requests included.
    public var requests = 0
    /// Body bytes received (after any gzip decoding).
    public var bytes = 0
    /// Events that became tombstones in the store (their source deleted them).
    public var deleted = 0
    /// Pieces of the time range fetched and committed by this run.
    public var pieces = 0
    /// Pieces planned in all (a first sync), including those a killed run committed.
    public var piecesPlanned = 0
    /// The service answered `304 Not Modified`: nothing was committed.
    public var notModified = false
    /// This run was a first sync (or resumed one): the whole time range, piece by piece.
    public var firstSync = false
    /// A summary feed's window began after the last sync: updates in between may be missed.
    public var windowGap: String?
    /// The pieces planned (a dry run's plan): each URL with the events the service counted.
    public var plan: [PlannedPiece] = []
    /// The most events one query returns, as the service's `count` said (`maxAllowed`).
    public var serviceLimit: Int?
    /// Wall-clock duration.
    public var elapsedSeconds = 0.0

    public init() {}

    mutating func add(_ s: LoadSummary) {
        load.files += s.files
        load.filesRejected += s.filesRejected
        load.rowsRead += s.rowsRead
        load.new += s.new
        load.updated += s.updated
        load.unchanged += s.unchanged
        load.duplicates += s.duplicates
        load.rejected += s.rejected
        load.bytesRead += s.bytesRead
        load.deletedRows += s.deletedRows
        load.deleted += s.deleted
        load.committed = load.committed || s.committed
        if let most = s.maxUpdated { load.maxUpdated = max(load.maxUpdated ?? most, most) }
    }
}

/// Progress of a running sync, for a progress bar.
public struct SyncProgress: Sendable {
    /// Pieces committed, and planned.
    public var pieces: Int
    public var piecesPlanned: Int
    /// Events committed so far, and the total the service counted.
    public var events: Int
    public var eventsPlanned: Int
    /// Body bytes received so far.
    public var bytes: Int
}

/// One request of a sync's plan.
public struct PlannedPiece: Sendable, Equatable {
    public var url: String
    /// The events the service counted for it, when it counts.
    public var events: Int?
}
