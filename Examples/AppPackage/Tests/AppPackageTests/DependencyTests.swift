import Foundation
import Testing

/// An app that links QuakeStore alone resolves only what QuakeStore needs (issue 69): the
/// server's, the sync's and the CLI's packages sit behind the quakes package's traits, and this
/// package depends on it with `traits: []`.
@Suite struct DependencyTests {
    @Test func theLibraryAloneResolvesOnlySwiftCollections() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let resolved = package.appendingPathComponent("Package.resolved")
        let data = try Data(contentsOf: resolved)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let pins = try #require(object?["pins"] as? [[String: Any]])
        let identities = pins.compactMap { $0["identity"] as? String }.sorted()
        #expect(identities == ["swift-collections"], "resolved \(identities)")
    }
}
