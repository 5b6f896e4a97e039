import Foundation
import QuakeFormat
import QuakeSupport
import QuakeStore

/// The one line the CLI prints for a library error: the library says what and where, the CLI adds
/// which command or flag helps.
enum ErrorMessage {
    static func line(_ e: QuakeError) -> String {
        let p = e.path ?? "."
        switch e.kind {
        case .notFound:
            return "no store at \(p) (no manifest.qkm); run 'quakes load' to create one"
        case .needsMigration:
            return "\(p) is a format v1 store; convert it with 'quakes migrate --store \(p)'"
        case .noManifest:
            return "\(e.message); run 'quakes repair --store \(p)' to rebuild the manifest from them, "
                + "or move the directory aside to start a new store"
        case .nothingToRepair:
            return "\(e.message) (run 'quakes verify' to check the data files)"
        case .io where e.errno == ENOTDIR && e.path != nil:
            return "\(p) is a file, not a store directory"
        case .strict:
            return "--strict: " + e.description
        case .locked:
            return e.description + "; wait for it to finish, or pass --wait [DURATION]"
        default:
            return e.description
        }
    }

    /// The CLI's flags, in the words of the library's rejects and warnings.
    static let optionNames: LoadOptions.OptionNames = {
        var n = LoadOptions.OptionNames()
        n.timeUnit = "--time-unit s or --time-unit ms"
        n.timeUnitMilliseconds = "pass --time-unit ms"
        n.fixText = "--fix-text"
        n.strict = "--strict"
        return n
    }()
}
