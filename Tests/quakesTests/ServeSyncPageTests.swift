import Foundation
import Testing

/// `quakes serve --sync` seen from the page: an event loaded into the upstream `quakes serve` shows
/// on a page open on the downstream within the sync interval plus 2 s. The script
/// (`Python/check_sync_page.py`) starts both servers itself and drives the page in headless
/// Chromium; without selenium, the browser or the real feeds the test is skipped, out loud.
@Suite struct ServeSyncPageTests {
    static let feed = CLI.usgs + "/geojson_2019-01-29_2019-01-30_233.geojson"

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ServeTests.hasSelenium, "needs selenium in the venv and Debian's chromium and chromium-driver"))
    func anUpstreamEventReachesTheOpenPage() throws {
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_sync_page.py").path
        let r = try CLI.exec(ServeTests.python, [script, CLI.binary, CLI.tempDir(), Self.feed],
                             env: ["SE_OFFLINE": "true"])
        #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(r.stdout)\(r.stderr)")
    }
}
