import Foundation
import Testing

/// The page's Statistics panel in headless Chromium (`Python/check_statistics.py`, one browser
/// session): opened on the busiest day of the real feeds, its n, Mc, b, σ and a equal
/// `quakes fmd --format json`'s for that day, and it follows the view to the next day.
extension PageBrowserTests {
    static let statisticsScript = CLI.packageRoot
        .appendingPathComponent("Tests/quakesTests/Python/check_statistics.py").path

    @Test(Self.needsBrowser)
    func theStatisticsPanelShowsWhatTheCLIComputes() throws {
        try Self.check("statistics", store: Self.shared, script: Self.statisticsScript)
    }
}
