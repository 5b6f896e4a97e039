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
        for p in paths {
            if p == "-" { out.append(p); continue }
            if isURL(p) {
                throw QuakeError(.io, path: p, detail: "is a URL, and load reads local files: Store.sync(from:) "
                    + "keeps the store current with it, or download it (curl -fLO '\(p)') and load that file")
            }
            guard FileIO.exists(p) else { throw QuakeError(.io, path: p, errno: ENOENT) }
            if FileIO.isDirectory(p) {
                walk(p, into: &out, broken: &brokenLinks)
            } else {
                out.append(p)
            }
        }
        guard !out.isEmpty else {
            throw QuakeError(.io, path: paths.joined(separator: ", "), detail: "no feed files "
                + "(looked for names containing .csv, .geojson or .json); nothing was loaded")
        }
        return out
    }

    package static func looksLikeFeed(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.contains(".csv") || n.contains(".geojson") || n.contains(".json")
    }

    /// True for an `http://` or `https://` address.
    package static func isURL(_ p: String) -> Bool {
        let l = p.prefix(8).lowercased()
        return l.hasPrefix("http://") || l.hasPrefix("https://")
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
