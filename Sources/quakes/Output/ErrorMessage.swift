import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore

/// The one line the CLI prints for a library error: the library says what and where, the CLI adds
/// which command or flag helps.
enum ErrorMessage {
    static func line(_ e: QuakeError) -> String {
        let path = e.path ?? "."
        if e.kind == .corrupt || e.kind == .io, let store = derivedFileStore(e.path) {
            return e.description + "; 'quakes repair --store \(store)' rebuilds it from the partitions"
        }
        switch e.kind {
        case .notFound:
            return "no store at \(path) (no manifest.qkm); run 'quakes load' to create one"
        case .needsMigration:
            return "\(path) is a format v1 store; convert it with 'quakes migrate --store \(path)'"
        case .noManifest:
            return "\(e.message); run 'quakes repair --store \(path)' to rebuild the manifest from them, "
                + "or move the directory aside to start a new store"
        case .nothingToRepair:
            return "\(e.message) (run 'quakes verify' to check the data files)"
        case .io where e.errno == ENOTDIR && e.path != nil:
            return "\(path) is a file, not a store directory"
        case .strict:
            return "--strict: " + e.description
        case .locked:
            return e.description + "; wait for it to finish, or pass --wait [DURATION]"
        default:
            return e.description
        }
    }

    /// The store holding `path` when it names a file `repair` rebuilds from the partitions (the
    /// store catalog or its delta, the magnitude projection or an id-index bucket:
    /// `STORE/partitions/catalog.gN.qkc` or `.qkd`, `STORE/partitions/top.gN.qkt`, `STORE/ids/NN.gN.idx`);
    /// nil otherwise.
    static func derivedFileStore(_ path: String?) -> String? {
        guard let path else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let folder = parts[parts.count - 2]
        let name = parts[parts.count - 1]
        let derived = folder == "partitions" && (name.hasPrefix("top.g") && name.hasSuffix(".qkt")
            || name.hasPrefix("catalog.g") && (name.hasSuffix("." + Catalog.fileExtension)
                || name.hasSuffix("." + CatalogDelta.fileExtension)))
            || folder == "ids" && (name.isEmpty || FileName(bucket: String(name)) != nil)
        guard derived else { return nil }
        let store = parts.dropLast(2).joined(separator: "/")
        return store.isEmpty ? "." : store
    }

    /// The CLI's flags, in the words of the library's rejects and warnings.
    static let optionNames: LoadOptions.OptionNames = {
        var names = LoadOptions.OptionNames()
        names.timeUnit = "--time-unit s or --time-unit ms"
        names.timeUnitMilliseconds = "pass --time-unit ms"
        names.fixText = "--fix-text"
        names.strict = "--strict"
        return names
    }()
}
