/// The page's files, embedded in the binary by SwiftPM (`PackageResources`): a fixed table,
/// so that no request path ever reaches the file system.
enum PageAssets {
    struct Asset {
        let bytes: [UInt8]
        let contentType: String
    }

    static func named(_ name: String) -> Asset? {
        switch name {
        case "index.html": return Asset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
        case "app.js": return Asset(bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8")
        case "app.css": return Asset(bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8")
        default: return nil
        }
    }
}
