import QuakeSupport
import Foundation

/// An error from the quakes library, as a value: what kind of failure it is, where it happened
/// (the path, and a line, byte or block in it when there is one), the system's `errno` when a system
/// call failed, and a detail. The library never formats hints; the CLI turns the kind into one line
/// and an exit status.
public struct QuakeError: Error, LocalizedError, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// A system call failed (open, read, write, rename, sync, map); ``QuakeError/errno`` says why.
        case io
        /// Bytes on disk do not match what was written: a checksum, footer, frame or invariant.
        case corrupt
        /// No store exists at the path.
        case notFound
        /// Another writer holds the store's writer lock (another process's, or, after a
        /// ``LockWait/upTo(_:)`` wait, any): nothing was changed. The detail names its pid.
        case locked
        /// A format or version this build does not read or write.
        case unsupported
        /// A format v1 store, which must be migrated before it is read.
        case needsMigration
        /// A directory that holds partition or id-index files but no manifest: never made a new store.
        case noManifest
        /// A repair was asked of a store whose manifest is sound.
        case nothingToRepair
        /// Input that is not a feed the loader recognises, or that lacks a required column.
        case format
        /// A compressed input ended early or was damaged.
        case decompression
        /// A strict load met a rejected row, so nothing was committed.
        case strict
        /// The history asked for was pruned or predates the store's history: an answer would be incomplete.
        case historyUnavailable
        /// No transaction has the generation asked for.
        case noTransaction
        /// An argument out of its range (a negative limit or offset, a batch size of 0, a bin width
        /// that is not positive, a percentile outside 0...100, a text column where a number is needed);
        /// ``QuakeError/detail`` names the argument and what it may be.
        case invalidArgument
        /// A predicate the library cannot run: one that evaluates to something other than a Boolean
        /// or reads a property that is not stored.
        case unsupportedPredicate
        /// A sort descriptor whose key path is not a stored ``Quake`` property.
        case unsupportedSort
        /// Foundation's `Predicate.evaluate` threw for a stored event, as it would for the same
        /// event in memory: a force-unwrap (`!`) of a nil property that the predicate reached.
        case predicateFailed
        /// ``Store/openOrCreate(path:partitioning:)`` asked for a partitioning other than the
        /// existing store's.
        case partitioningMismatch
        /// A file whose time column could be in seconds or milliseconds: the load needs the unit.
        case ambiguousTimeUnit
        /// A sync could not get what it asked of a server (after its retries): the path is the URL.
        case network
        /// The caller stopped the operation: a load's `isCancelled`, a fetch's task, or a wait for
        /// the writer lock that `cancelled` ended. Nothing was committed. (A cancelled load or sync
        /// task throws `CancellationError` instead.)
        case interrupted
    }

    /// Where in the file the failure is.
    public enum Position: Sendable, Equatable, CustomStringConvertible {
        /// A 1-based line of a text input.
        case line(Int)
        /// A byte offset.
        case byte(Int)
        /// A block (column chunk) of a column of a partition file.
        case block(column: String, index: Int)

        /// `line 12`, `byte 4096` or `column mag block 3`.
        public var description: String {
            switch self {
            case .line(let line): return "line \(line)"
            case .byte(let offset): return "byte \(offset)"
            case .block(let column, let block): return column.isEmpty ? "block \(block)"
                : "column \(column) block \(block)"
            }
        }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The file or directory concerned (`stdout` for standard output), when there is one.
    public var path: String?
    /// Where in `path`, when known.
    public var position: Position?
    /// The system's error number, when a system call failed.
    public var errno: Int32?
    /// What went wrong, in words, without the path or the errno text.
    public var detail: String

    /// An error of `kind`; `path`, `position` and `errno` say where and why when known.
    public init(_ kind: Kind, path: String? = nil, position: Position? = nil, errno: Int32? = nil,
                detail: String = "") {
        self.kind = kind
        self.path = path
        self.position = position
        self.errno = errno
        self.detail = detail
    }

    /// The system's text for ``errno`` (`No space left on device`), when there is one.
    public var reason: String? { errno.map { String(cString: strerror($0)) } }

    /// One line: `path: position: detail: reason`, leaving out what is not known.
    public var description: String {
        var parts: [String] = []
        if let path { parts.append(path) }
        if let position { parts.append(position.description) }
        if !detail.isEmpty { parts.append(detail) }
        if let reason { parts.append(reason) }
        return (kind == .corrupt ? "corrupt store: " : "") + parts.joined(separator: ": ")
    }

    /// The same one line as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
    /// The system's reason (``reason``), when a system call failed.
    public var failureReason: String? { reason }
}

// Factories used across the package. The string-only ones carry a detail that names no path;
// the structured ones keep the path apart so that callers need not parse it back out of text.
extension QuakeError {
    /// A failed system call on `path`; `call` names it when it is not the obvious open/read/write.
    package static func system(_ path: String, _ code: Int32, call: String? = nil) -> QuakeError {
        QuakeError(.io, path: path, errno: code, detail: call ?? "")
    }
    package static func io(_ detail: String) -> QuakeError { QuakeError(.io, detail: detail) }
    package static func io(_ path: String, _ detail: String) -> QuakeError {
        QuakeError(.io, path: path, detail: detail)
    }
    package static func corrupt(_ detail: String) -> QuakeError { QuakeError(.corrupt, detail: detail) }
    package static func corrupt(_ path: String, _ detail: String, position: Position? = nil) -> QuakeError {
        QuakeError(.corrupt, path: path, position: position, detail: detail)
    }
    package static func locked(_ detail: String) -> QuakeError { QuakeError(.locked, detail: detail) }
    package static func unsupported(_ detail: String) -> QuakeError { QuakeError(.unsupported, detail: detail) }
    package static func decompression(_ detail: String) -> QuakeError { QuakeError(.decompression, detail: detail) }
    package static func format(_ detail: String) -> QuakeError { QuakeError(.format, detail: detail) }
    package static func strict(_ detail: String) -> QuakeError { QuakeError(.strict, detail: detail) }
    package static func unavailable(_ detail: String) -> QuakeError { QuakeError(.historyUnavailable, detail: detail) }
    package static func noTransaction(_ detail: String) -> QuakeError { QuakeError(.noTransaction, detail: detail) }

    /// The one line without the "corrupt store" prefix.
    package var message: String {
        [path, position?.description, detail.isEmpty ? nil : detail, reason].compactMap { $0 }.joined(separator: ": ")
    }

    /// The same error, placed in `path` when it names no path yet.
    package func at(_ path: String) -> QuakeError {
        var error = self
        if error.path == nil { error.path = path }
        return error
    }

    /// An argument out of range: `name` is the argument, `allowed` what it may be.
    package static func argument(_ name: String, _ allowed: String) -> QuakeError {
        QuakeError(.invalidArgument, detail: "\(name) must be \(allowed)")
    }
}
