import Foundation
import QuakeFormat

/// The page's files, embedded in the binary by SwiftPM (`PackageResources`): a fixed table,
/// so that no request path ever reaches the file system.
///
/// `QUAKES_PAGE_ASSETS=DIR` serves the same names from `DIR` instead, read on each request, for
/// working on the page without rebuilding; the names are still the table's.
enum PageAssets {
    struct Asset {
        let bytes: [UInt8]
        let contentType: String
    }

    static let table: [String: (bytes: [UInt8], contentType: String)] = [
        "index.html": (PackageResources.index_html, "text/html; charset=utf-8"),
        "app.js": (PackageResources.app_js, "text/javascript; charset=utf-8"),
        "map.js": (PackageResources.map_js, "text/javascript; charset=utf-8"),
        "stats.js": (PackageResources.stats_js, "text/javascript; charset=utf-8"),
        "app.css": (PackageResources.app_css, "text/css; charset=utf-8"),
    ]

    static let folder = ProcessInfo.processInfo.environment["QUAKES_PAGE_ASSETS"].flatMap { $0.isEmpty ? nil : $0 }

    static func named(_ name: String) -> Asset? {
        guard let entry = table[name] else { return nil }
        if name == "index.html" {
            return Asset(bytes: folder == nil ? page : inlined(bytes(name)), contentType: entry.contentType)
        }
        return Asset(bytes: bytes(name), contentType: entry.contentType)
    }

    private static func bytes(_ name: String) -> [UInt8] {
        if let folder, let bytes = try? FileIO.readFile(folder + "/" + name) { return bytes }
        return table[name]?.bytes ?? []
    }

    /// The page as served: index.html with its stylesheet and scripts written into it, so that a
    /// browser opening it asks for nothing more before it runs (their own requests took Chromium
    /// 30 to 60 ms to schedule, a fifth of the page's time to its first drawing).
    static let page = inlined(PackageResources.index_html)

    static func inlined(_ html: [UInt8]) -> [UInt8] {
        var text = String(decoding: html, as: UTF8.self)
        for (tag, name, open, close) in [
            ("<link rel=\"stylesheet\" href=\"/assets/app.css\">", "app.css", "<style>", "</style>"),
            ("<script src=\"/assets/map.js\"></script>", "map.js", "<script>", "</script>"),
            ("<script src=\"/assets/stats.js\"></script>", "stats.js", "<script>", "</script>"),
            ("<script src=\"/assets/app.js\"></script>", "app.js", "<script>", "</script>"),
        ] {
            let body = String(decoding: bytes(name), as: UTF8.self)
            // a body that could end its element early stays a file of its own
            guard !body.lowercased().contains(close), text.contains(tag) else { continue }
            text = text.replacingOccurrences(of: tag, with: open + "\n" + body + close)
        }
        return Array(text.utf8)
    }
}
