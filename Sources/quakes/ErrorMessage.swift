import QuakeFormat

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
        case .strict:
            return "--strict: " + flags(e.description)
        default:
            return flags(e.description)
        }
    }

    /// The library's words for a load option, as the CLI's flag.
    static func flags(_ s: String) -> String {
        s.replacingOccurrences(of: "say which time unit the file uses", with: "say which with --time-unit s or --time-unit ms")
            .replacingOccurrences(of: "the text repair option", with: "--fix-text")
            .replacingOccurrences(of: "a strict load refuses it", with: "--strict refuses it")
            .replacingOccurrences(of: "set the time unit to milliseconds if that is wrong",
                                  with: "pass --time-unit ms if that is wrong")
    }
}
