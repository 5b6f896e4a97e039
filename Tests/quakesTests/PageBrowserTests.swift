import Foundation
import Testing

/// The page's second part in headless Chromium on the real feeds, one test per scenario of
/// `Python/check_browser.py`: the map fitted and wrapping across 180°, the selection, typing a date,
/// an empty day, downloads past `--max-events`, ranges and regions against the CLI's answers, a live
/// update keeping the scroll, and a 420 px window. Each test starts its own `quakes serve`; the
/// screenshots go to `.build/page-SCENARIO.png`.
@Suite(.serialized, .enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"))
struct PageBrowserTests {
    /// The real feeds, loaded once per process for the scenarios that only read the store.
    static let shared: String? = try? ServeTests.store("browser")

    static let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_browser.py").path
    static let shots: String = {
        let d = CLI.packageRoot.appendingPathComponent(".build").path
        // `make test` builds in .build-test: on a fresh clone .build may not exist yet
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    /// Every scenario needs the browser (and, by the suite's trait, the real feeds); without them it
    /// is skipped, out loud.
    static let needsBrowser = Testing.ConditionTrait.enabled(
        if: ServeTests.hasSelenium, "needs selenium in the venv and Debian's chromium and chromium-driver")

    /// Runs one scenario of `script` (check_browser.py's by default) against a server of `store`
    /// started with `extra` arguments.
    static func check(_ scenario: String, store: String?, _ extra: [String] = [], script: String = Self.script) throws {
        let store = try #require(store, "the store of the real feeds could not be built")
        let server = try ServeTests.Server(store: store, extra)
        try withExtendedLifetime(server) {
            let r = try CLI.exec(ServeTests.python,
                                 [script, scenario, String(server.port), store, CLI.binary, shots],
                                 env: ["SE_OFFLINE": "true"])
            #expect(r.status == 0 && r.stdout.hasPrefix("ok "), "\(scenario): \(r.stdout)\(r.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: shots + "/page-\(scenario).png"))
    }

    @Test(Self.needsBrowser)
    func theMapFitsAcross180AndWraps() throws {
        try Self.check("wrap", store: Self.shared)
    }

    @Test(Self.needsBrowser)
    func theSelectionIsRingedAndMovesWithTheKeys() throws {
        try Self.check("selection", store: Self.shared)
    }

    @Test(Self.needsBrowser)
    func aTypedDateCommitsOnce() throws {
        try Self.check("datefield", store: Self.shared)
    }

    @Test(Self.needsBrowser)
    func anEmptyDaySaysSoAndLinksTheNearestDays() throws {
        try Self.check("empty", store: Self.shared)
    }

    @Test(Self.needsBrowser)
    func downloadsHoldEverythingListedPastTheCap() throws {
        try Self.check("downloads", store: Self.shared, ["--max-events", "500"])
    }

    @Test(Self.needsBrowser)
    func rangesAndRegionsListWhatTheCLIDoes() throws {
        try Self.check("range_region", store: Self.shared)
    }

    /// The live scenario loads three events into its store, so it has a store of its own.
    @Test(Self.needsBrowser)
    func aLiveUpdateKeepsTheScrollAndTheSelection() throws {
        try Self.check("live", store: try ServeTests.store("browserlive"))
    }

    @Test(Self.needsBrowser)
    func aNarrowWindowStacksTheMapAboveTheList() throws {
        try Self.check("narrow", store: Self.shared)
    }
}
