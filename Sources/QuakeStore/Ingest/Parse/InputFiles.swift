import Foundation
import QuakeFormat
/// Expands load arguments: files as given, directories walked recursively (sorted; hidden
/// files and names without `.csv`, `.geojson` or `.json` skipped), `-` for stdin. A broken
/// symlink inside a directory is listed in `brokenLinks`, not loaded; the loader warns about it,
/// or refuses it in a strict load.
package enum InputFiles {
    package static func expand(_ paths: [String]) throws(QuakeError) -> [String] {
        var broken: [String] = []
        return try expand(paths, brokenLinks: &broken)
    }

    package static func expand(_ paths: [String], brokenLinks: inout [String]) throws(QuakeError) -> [String] {
        var out: [String] = []
        for path in paths {
            if path == "-" {
                out.append(path)
                continue
            }
            if isURL(path) {
                throw QuakeError(.io, path: path, detail: "is a URL, and load reads local files: Store.sync(from:) "
                    + "keeps the store current with it, or download it (curl -fLO '\(path)') and load that file")
            }
            guard FileIO.exists(path) else { throw QuakeError(.io, path: path, errno: ENOENT) }
            if FileIO.isDirectory(path) {
                walk(path, into: &out, broken: &brokenLinks)
            } else {
                out.append(path)
            }
        }
        guard !out.isEmpty else {
            throw QuakeError(.io, path: paths.joined(separator: ", "), detail: "no feed files "
                + "(looked for names containing .csv, .geojson or .json); nothing was loaded")
        }
        return out
    }

    package static func looksLikeFeed(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.contains(".csv") || lowered.contains(".geojson") || lowered.contains(".json")
    }

    /// True for an `http://` or `https://` address.
    package static func isURL(_ p: String) -> Bool {
        let scheme = p.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    private static func walk(_ dir: String, into out: inout [String], broken: inout [String]) {
        for name in FileIO.list(dir) where !name.hasPrefix(".") {
            let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            if FileIO.isDirectory(full) {
                walk(full, into: &out, broken: &broken)
            } else if !FileIO.exists(full) {
                broken.append(full)   // listed, but its target is gone: a broken symlink
            } else if looksLikeFeed(name) {
                out.append(full)
            }
        }
    }
}
