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
        "app.css": (PackageResources.app_css, "text/css; charset=utf-8"),
    ]

    static let folder = ProcessInfo.processInfo.environment["QUAKES_PAGE_ASSETS"].flatMap { $0.isEmpty ? nil : $0 }

    static func named(_ name: String) -> Asset? {
        guard let entry = table[name] else { return nil }
        if let folder, let bytes = try? FileIO.readFile(folder + "/" + name) {
            return Asset(bytes: bytes, contentType: entry.contentType)
        }
        return Asset(bytes: entry.bytes, contentType: entry.contentType)
    }
}
