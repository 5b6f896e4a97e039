import QuakeFormat
/// What a load did.
public struct LoadSummary: Sendable, Equatable, Codable {
    /// Input files read (including rejected ones).
    public var files = 0
    /// Files rejected whole (missing required columns, truncated, not a feed).
    public var filesRejected = 0
    public var rowsRead = 0
    /// Events not in the store before.
    public var new = 0
    /// Stored events whose fields changed.
    public var updated = 0
    /// Events whose stored version did not change (identical or older versions).
    public var unchanged = 0
    /// Rows rejected (malformed), reported with file and line.
    public var rejected = 0
    /// Bytes read from input files (compressed size for compressed input).
    public var bytesRead = 0
    /// Wall-clock duration of the load.
    public var elapsedSeconds = 0.0
    public var committed = false

    public var rowsPerSecond: Double { elapsedSeconds > 0 ? Double(rowsRead) / elapsedSeconds : 0 }
    public var megabytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytesRead) / 1e6 / elapsedSeconds : 0 }
}

/// Progress of a running load, for a progress bar.
public struct LoadProgress: Sendable {
    /// The load's phases, in order.
    public enum Phase: String, Sendable {
        /// Parsing files and staging rows (`done`/`total` in bytes).
        case read
        /// Picking each event's winning version (`done`/`total` in id buckets).
        case resolve
        /// Folding versions and writing partitions (`done`/`total` in partitions).
        case merge
        /// Making the new files durable and replacing the manifest.
        case commit
    }

    public var phase: Phase
    /// Units of the phase done, and their total when known.
    public var done: Int
    public var total: Int?
    /// Input bytes and rows read so far.
    public var bytesRead: Int
    public var rows: Int
    public var elapsedSeconds: Double
}

/// Options for ``Store/load(_:options:)``.
public struct LoadOptions: Sendable {
    /// Any rejected row or file fails the whole load; nothing is committed.
    public var strict = false
    /// The unit of integer times in GeoJSON feeds; nil decides per file (see ``TimeUnit``).
    public var timeUnit: TimeUnit?
    /// Rows per parse batch; bounds the loader's memory.
    package var batchRows = 32768
    /// Called with every reject as it is found.
    public var onReject: (@Sendable (Reject) -> Void)?
    /// Called with file-level warnings and errors.
    public var onMessage: (@Sendable (String) -> Void)?
    /// Called now and then while reading.
    public var onProgress: (@Sendable (LoadProgress) -> Void)?
    /// A plain CSV file at least this large is parsed by ``parseWorkers`` threads at once.
    package var splitBytes = SplitParse.minimumBytes
    /// Threads for one large file (the cores, by default).
    package var parseWorkers = workerCount
    /// Test hook: called between phases (after spilling, before commit).
    package var onPhase: (@Sendable (String) -> Void)?

    public init(strict: Bool = false) { self.strict = strict }
}
