import QuakeSupport
import QuakeStore

/// How a sync talks to its source.
public struct SyncOptions: Sendable {
    /// Print the plan (the count, the pieces, the URLs) and fetch nothing else.
    public var dryRun = false
    /// An FDSN service that fills a summary feed's gap (events updated since the last sync).
    public var backfill: String?
    /// `csv` or `geojson` for FDSN pieces. GeoJSON carries every field a USGS event has (felt,
    /// alert, sig, ids, sources...), CSV only 22 of them.
    public var format: PieceFormat = .geojson
    /// Attempts per request (the first and its retries) on 5xx, 429, a reset or a damaged body.
    public var attempts = 5
    /// Seconds for a connection, and for a body that stalls.
    public var connectTimeout = 5.0
    public var readTimeout = 30.0
    /// The first retry's delay in seconds; each next one doubles, with jitter.
    public var retryDelay = 1.0
    /// The longest wait a `Retry-After` may ask for, in seconds.
    public var maxRetryAfter = 120.0
    /// Milliseconds an `updatedafter` reaches back before the newest update seen.
    public var overlapMillis: Int64 = 5 * 60_000
    /// Days a first sync with no start covers, as libcomcat's default (30).
    public var defaultDays = 30
    /// The most events a piece asks for, when the service names no limit.
    public var pieceLimit = 20_000
    /// Downloaded pieces are committed together once they pass this many bytes...
    public var commitBytes = 256 << 20
    /// ...or this many seconds have passed since the last commit (a killed sync loses at most
    /// that much fetching; what it committed stays).
    public var commitSeconds = 20.0
    /// How long the sync waits for the store's writer lock while another writer holds it (see
    /// `LockWait`): by default a writer in another process makes it throw `QuakeError.Kind.locked`
    /// at once, before it touches anything. The sync holds the lock from its start to its end.
    public var lockWait: LockWait = .never
    /// The unit of integer times in the source's GeoJSON (a feed in epoch seconds); nil decides
    /// per answer, and an answer whose unit cannot be told apart is an error that names this option.
    public var timeUnit: TimeUnit?
    /// How errors name ``timeUnit`` and the loader's other options: the API's names by default;
    /// the CLI gives its flags.
    public var optionNames: LoadOptions.OptionNames = {
        var names = LoadOptions.OptionNames()
        names.timeUnit = "SyncOptions.timeUnit (.seconds or .milliseconds)"
        names.timeUnitMilliseconds = "set SyncOptions.timeUnit to .milliseconds"
        return names
    }()
    /// Warnings and notes, one line each.
    public var onMessage: (@Sendable (String) -> Void)?
    /// Called after each request and piece.
    public var onProgress: (@Sendable (SyncProgress) -> Void)?
    /// The clock, in epoch ms (a test moves it).
    package var now: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    /// Options for each piece's load (rows per batch, a test's phase hook).
    package var load = LoadOptions(strict: true)
    /// The store's writer lock, held by the caller (the CLI takes it before it opens or creates
    /// the store) or by the run: every load and cursor commit of the run reuses it.
    package var writerLock: StoreLock?

    /// The formats a piece is fetched in.
    public enum PieceFormat: String, Sendable, CaseIterable {
        case geojson, csv
    }

    public init() {}
}

import Foundation
