import Foundation
import Testing

/// The README's library code is compiled by the ReadmeSnippet target (warnings are errors); this
/// keeps that copy and the README from drifting apart.
@Suite("README")
struct ReadmeTests {
    /// The text of the first ```swift block after `## Library`, each line with its newline.
    static func librarySnippet(_ readme: String) -> String? {
        guard let section = readme.range(of: "\n## Library\n") else { return nil }
        let rest = readme[section.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        let body = rest[..<end]
        guard let open = body.range(of: "\n```swift\n") else { return nil }
        let code = body[open.upperBound...]
        guard let close = code.range(of: "\n```\n") ?? code.range(of: "\n```") else { return nil }
        return String(code[..<close.lowerBound]) + "\n"
    }

    @Test("Sources/ReadmeSnippet/main.swift is the README's library code, byte for byte")
    func snippetMatches() throws {
        let readme = try String(contentsOf: Paths.readme, encoding: .utf8)
        let snippet = try #require(Self.librarySnippet(readme), "no ```swift block in README's ## Library")
        let copy = try Data(contentsOf: Paths.snippet)
        #expect(Data(snippet.utf8) == copy, "README's library code and ReadmeSnippet/main.swift differ")
    }
}
