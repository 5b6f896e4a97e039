import QuakeFormat
/// What a load did. The row counts add up: `rowsRead == rejected + duplicates + new + updated +
/// unchanged`, over the files that were not rejected whole.
public struct LoadSummary: Sendable, Equatable, Codable {
    /// Input files read (including rejected ones).
    public var files = 0
    /// Files that loaded nothing: rejected whole (missing required columns, truncated, not a
    /// feed), or with every row rejected.
    public var filesRejected = 0
    /// Data rows read from the files not rejected whole (rejected rows included).
    public var rowsRead = 0
    /// Events not in the store before.
    public var new = 0
    /// Stored events whose fields changed.
    public var updated = 0
    /// Events whose stored version did not change (identical or older versions).
    public var unchanged = 0
    /// Rows that lost to another version of the same event in this load (the same file loaded
    /// twice, or overlapping feeds).
    public var duplicates = 0
    /// Rows rejected (malformed), reported with file and line.
    public var rejected = 0
    /// Events whose time kept its precision: a version with the same `updated` carried a coarser
    /// copy of it (to the minute or second, as a spreadsheet saves it), which did not replace it.
    public var keptPreciseTimes = 0
    /// Rows read whose status is `deleted`: tombstones of events their source deleted, stale
    /// ones (older than the stored version) and repeats included.
    public var deletedRows = 0
    /// Tombstones the load added to the store: events their source deleted that it held live
    /// or did not hold, less deleted events a newer live version brought back (never below 0).
    public var deleted = 0
    /// The latest `updated` of the rows read (epoch ms), nil when none has one.
    public var maxUpdated: Int64?
    /// Per input file, in the order read.
    public var perFile: [FileLoad] = []
    /// Bytes read from input files (compressed size for compressed input).
    public var bytesRead = 0
    /// Wall-clock duration of the load.
    public var elapsedSeconds = 0.0
    /// Whether the load committed a new snapshot. False when it changed nothing (every event
    /// unchanged, or every row rejected): such a load commits nothing and makes no history
    /// transaction.
    public var committed = false
    /// Partitions rewritten from their old files, only the changed columns encoded
    /// (``MergePass/mergeInPlace(_:entry:)``), of those the load changed.
    package var partitionsUpdatedInPlace = 0
    /// What the commit did with the magnitude projection (``Store/attachTopRows``); `.none` also
    /// when the partitions did not change.
    package var projection: Store.TopRowsBuild = .none

    /// An empty summary: every count zero, nothing committed.
    public init() {}

    /// Rows read per second of ``elapsedSeconds`` (0 for an instant load).
    public var rowsPerSecond: Double { elapsedSeconds > 0 ? Double(rowsRead) / elapsedSeconds : 0 }
    /// Input megabytes (10⁶ bytes of ``bytesRead``) per second of ``elapsedSeconds``.
    public var megabytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytesRead) / 1e6 / elapsedSeconds : 0 }
}

/// What a load did with one input file.
public struct FileLoad: Sendable, Equatable, Codable {
    /// The file as named on input (`-` for stdin).
    public var path: String
    /// Data rows read, rejected ones included (0 for a file rejected whole).
    public var rows = 0
    /// Rows rejected.
    public var rejected = 0
    /// Bytes read (compressed size for compressed input).
    public var bytes = 0
    /// Why the whole file was skipped, when it was.
    public var error: String?
    /// Text fields that held double-encoded UTF-8 (mojibake, `SerdÃ¡n` for `Serdán`).
    public var garbledText = 0
    /// Of ``garbledText``, the fields repaired (with ``LoadOptions/fixText``).
    public var repairedText = 0

    /// True when nothing of the file was loaded.
    public var loadedNothing: Bool { error != nil || (rows > 0 && rejected == rows) }

    /// A file named `path` that nothing was read from yet.
    public init(path: String) { self.path = path }
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

    /// The phase running.
    public var phase: Phase
    /// Units of the phase done (see ``Phase`` for the unit of each).
    public var done: Int
    /// The phase's units in all, when known.
    public var total: Int?
    /// Input bytes read so far.
    public var bytesRead: Int
    /// Data rows read so far.
    public var rows: Int
    /// Seconds since the load began.
    public var elapsedSeconds: Double
}

/// Options for ``Store/load(_:options:)``.
public struct LoadOptions: Sendable {
    /// Any rejected row or file fails the whole load; nothing is committed.
    public var strict = false
    /// The unit of integer times in GeoJSON feeds; nil decides per file (see ``TimeUnit``).
    public var timeUnit: TimeUnit?
    /// A strptime pattern for CSV times that are not ISO 8601, as a spreadsheet writes them
    /// (`try TimeFormat(pattern: "%d-%m-%y %H:%M")`); ISO 8601 times still load. See
    /// ``TimeFormat`` for the codes and the `%y` century rule.
    public var timeFormat: TimeFormat?
    /// Repair double-encoded UTF-8 text (mojibake) on load. Without it, such text is counted
    /// and reported per file, and never replaces a stored text it garbles.
    public var fixText = false
    /// Rows per parse batch; bounds the loader's memory.
    package var batchRows = 32768
    /// Called with every reject as it is found.
    public var onReject: (@Sendable (Reject) -> Void)?
    /// Called with file-level warnings and errors.
    public var onMessage: (@Sendable (String) -> Void)?
    /// Called with why an input file was rejected whole (the load goes on without it); nil
    /// tells it through ``onMessage``.
    public var onFileSkipped: (@Sendable (QuakeError) -> Void)?
    /// How rejects and warnings name these options: the API's names by default; the CLI gives
    /// its flags, so that no caller rewrites the library's text.
    public var optionNames = OptionNames()
    /// Called now and then while reading.
    public var onProgress: (@Sendable (LoadProgress) -> Void)?
    /// A plain CSV file at least this large is parsed by ``parseWorkers`` threads at once.
    package var splitBytes = SplitParse.minimumBytes
    /// Threads for one large file (the cores, by default).
    package var parseWorkers = workerCount
    /// Bytes of a piece of a split parse, about (a test makes pieces small and many).
    package var splitChunkBytes = SplitParse.chunkBytes
    /// Partitions the store does not hold yet are written from the parsed batches as the input
    /// moves past them, not spilled first (see ``DirectPartitions``); off, every row is spilled.
    package var writesNewPartitions = true
    /// Partitions whose events are all updated where they stand are rewritten from their old
    /// files, copying the columns no update changed (``MergePass/updatesInPlace``); off, they
    /// are merged whole. A test compares the two, byte for byte.
    package var updatesInPlace = true
    /// Rows the new partitions collected at once may hold (a test makes it small).
    package var newPartitionRows = DirectPartitions.openRowsLimit
    /// Resident bytes beyond which no new partition is collected (a test makes it tiny).
    package var newPartitionResidentLimit = DirectPartitions.residentLimit
    /// Bytes the load's spills may hold in memory before they move to files
    /// (``SpillFile/memoryBudget``; a test puts every spill on disk with 0).
    package var spillMemory = SpillFile.memoryBudget
    /// Key bits of the id index files a load creates (a test makes keys collide).
    package var idHashBits = IdHashes.defaultBits
    /// What the transaction records for an input path instead of the path: a sync's scratch
    /// file is recorded as the URL (with its window) it was fetched from.
    package var sourceNames: [String: String] = [:]
    /// Test hook: called between phases (after spilling, before commit).
    package var onPhase: (@Sendable (String) -> Void)?
    /// A sync cursor committed in the same snapshot as the rows: its key, and its value made
    /// from the load's summary (the newest `updated` it read) just before the commit.
    package var cursor: (key: String, value: @Sendable (LoadSummary) -> String)?
    /// Asked between batches, id buckets and partitions; when it returns true the load stops,
    /// removes what it wrote and throws ``QuakeError/Kind/interrupted``, committing nothing.
    public var isCancelled: (@Sendable () -> Bool)?
    /// How long the load waits for the writer lock while another writer holds it (see
    /// ``LockWait``): by default a writer in another process makes it throw
    /// ``QuakeError/Kind/locked`` at once; `.upTo(.seconds(30))` waits up to 30 s, `.forever` as
    /// long as it takes. Cancelling the task (or ``isCancelled``) ends the wait.
    public var lockWait: LockWait = .never
    /// The writer lock the caller already holds for this store (a sync's run): the load runs
    /// under it instead of taking its own.
    package var writerLock: StoreLock?

    /// The load's scratch folder in the store, which an interruption names: a pass that rejects a
    /// bad input file whole tells the two apart by the path (an error in the store is the load's
    /// own), so a cancelled load stops instead of skipping the file it was reading.
    package var scratchPath: String?

    /// Throws when the caller has cancelled the load, or (asked on the task's own thread) its task.
    package func checkCancelled() throws(QuakeError) {
        if isCancelled?() == true || Task.isCancelled {
            throw QuakeError(.interrupted, path: scratchPath, detail: "interrupted")
        }
    }

    /// Default options: not strict, time units decided per file, text stored as read, no
    /// callbacks.
    public init(strict: Bool = false) { self.strict = strict }

    /// The words rejects and warnings use for the options that would help.
    public struct OptionNames: Sendable, Equatable {
        /// Names ``LoadOptions/timeUnit`` with both units.
        public var timeUnit = "LoadOptions.timeUnit (.seconds or .milliseconds)"
        /// Says to read the file in milliseconds.
        public var timeUnitMilliseconds = "set LoadOptions.timeUnit to .milliseconds"
        /// Names ``LoadOptions/fixText``.
        public var fixText = "LoadOptions.fixText"
        /// Names ``LoadOptions/strict``.
        public var strict = "a strict load"

        /// The API's names.
        public init() {}
    }
}
