/// Errors from opening, reading, verifying or committing a store.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// Bytes on disk do not match what was written: checksum, footer or frame mismatch.
    case corrupt(String)
    /// A store file is missing or cannot be read.
    case io(String)
    /// Another process holds the writer lock.
    case locked(String)
    /// The manifest names a format this build cannot read.
    case unsupported(String)

    public var description: String {
        switch self {
        case .corrupt(let s): return "corrupt store: \(s)"
        case .io(let s): return s
        case .locked(let s): return s
        case .unsupported(let s): return s
        }
    }
}

/// Errors from reading feed input.
public enum IngestError: Error, CustomStringConvertible, Equatable {
    /// A compressed input ended early or was damaged.
    case decompression(String)
    /// The input is not a format the loader recognises, or lacks a required column.
    case format(String)
    /// A file could not be opened or read.
    case io(String)
    /// `--strict` was given and a row was rejected.
    case strict(String)

    public var description: String {
        switch self {
        case .decompression(let s), .format(let s), .io(let s), .strict(let s): return s
        }
    }
}
