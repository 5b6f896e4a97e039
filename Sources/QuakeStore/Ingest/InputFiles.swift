import QuakeFormat
/// Expands load arguments: files as given, directories walked recursively (sorted; hidden
/// files and names without `.csv`, `.geojson` or `.json` skipped), `-` for stdin.
package enum InputFiles {
    package static func expand(_ paths: [String]) throws(IngestError) -> [String] {
        var out: [String] = []
        for p in paths {
            if p == "-" { out.append(p); continue }
            guard FileIO.exists(p) else { throw .io(p, "no such file or directory") }
            if FileIO.isDirectory(p) {
                walk(p, into: &out)
            } else {
                out.append(p)
            }
        }
        guard !out.isEmpty else {
            throw .io("no feed files in \(paths.joined(separator: ", ")) "
                + "(looked for names containing .csv, .geojson or .json); nothing was loaded")
        }
        return out
    }

    package static func looksLikeFeed(_ name: String) -> Bool {
        let n = name.lowercased()
        return n.contains(".csv") || n.contains(".geojson") || n.contains(".json")
    }

    private static func walk(_ dir: String, into out: inout [String]) {
        for name in FileIO.list(dir) where !name.hasPrefix(".") {
            let full = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            if FileIO.isDirectory(full) { walk(full, into: &out) } else if looksLikeFeed(name) { out.append(full) }
        }
    }
}
