import Foundation

/// Paths as a terminal shows them: relative to the working directory when under it.
enum DisplayPath {
    static func relative(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        guard path.hasPrefix("/"), cwd != "/" else { return path }
        let base = cwd.hasSuffix("/") ? cwd : cwd + "/"
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }
}
