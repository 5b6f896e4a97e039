import Foundation
import Testing

/// The page's event detail in headless Chromium, one test per scenario of `Python/check_detail.py`:
/// a double-click on a marker opens it, the panel never covers the selected marker, and its
/// numbers carry their units.
extension PageBrowserTests {
    static let detailScript = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_detail.py").path

    @Test(Self.needsBrowser)
    func aDoubleClickOnAMarkerOpensItsDetail() throws {
        try Self.check("marker_dblclick", store: Self.shared, script: Self.detailScript)
    }

    @Test(Self.needsBrowser)
    func theDetailNeverCoversTheSelectedMarker() throws {
        try Self.check("detail_clear", store: Self.shared, script: Self.detailScript)
    }

    @Test(Self.needsBrowser)
    func theDetailGivesUnits() throws {
        try Self.check("detail_units", store: Self.shared, script: Self.detailScript)
    }
}
