/// How long a write waits for the store's writer lock while another writer holds it, as SQLite's
/// busy timeout does: ``LoadOptions/lockWait`` and `SyncOptions.lockWait` in the library,
/// `--wait [DURATION]` on the command line.
///
/// Readers never wait: they take no lock. A wait ends early when its task is cancelled (or its
/// load's ``LoadOptions/isCancelled`` says so).
public enum LockWait: Sendable, Equatable {
    /// Refuse at once with ``QuakeError/Kind/locked`` when a writer in another process holds the
    /// lock. Writers of this process still queue behind each other. The default.
    case never
    /// Wait up to this long for any other writer, then throw ``QuakeError/Kind/locked``.
    case upTo(Duration)
    /// Wait as long as it takes.
    case forever

    /// The longest wait, in whole milliseconds; nil for ``forever``.
    package var milliseconds: Int64? {
        switch self {
        case .never: return 0
        case .forever: return nil
        case .upTo(let duration):
            let (seconds, attoseconds) = duration.components
            if seconds < 0 { return 0 }
            return seconds >= Int64.max / 2000 ? Int64.max / 2 : seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
    }
}
