import Foundation
import Testing

/// The README's library example compiles exactly as printed, as a client package would build it
/// (with no trait: QuakeStore alone, as the README says an app depends on it).
@Suite struct ReadmeSnippetTests {
    /// The first ```swift block of the README's "## Library" section.
    static func snippet() throws -> String {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let library = try #require(readme.range(of: "## Library\n"))
        let open = try #require(readme.range(of: "```swift\n", range: library.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex))
        return String(readme[open.upperBound..<close.lowerBound]) + "\n"
    }

    @Test func libraryExampleBuildsAsAClientPackage() throws {
        let code = try Self.snippet()
        #expect(code.hasPrefix("import Foundation\nimport QuakeStore\n"))
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/Sources/client", withIntermediateDirectories: true)
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "client",
                platforms: [.macOS(.v15)],
                dependencies: [.package(name: "quakes", path: "\(CLI.packageRoot.path)", traits: [])],
                targets: [.executableTarget(name: "client", dependencies: [.product(name: "QuakeStore", package: "quakes")])]
            )

            """
        try manifest.write(toFile: d + "/Package.swift", atomically: true, encoding: .utf8)
        try code.write(toFile: d + "/Sources/client/main.swift", atomically: true, encoding: .utf8)
        let build = try CLI.exec("swift", ["build", "--package-path", d, "--scratch-path", d + "/.build",
                                           "--product", "client"])
        #expect(build.status == 0, "the README's example does not build:\n\((build.stdout + build.stderr).suffix(4000))")
        try? FileManager.default.removeItem(atPath: d)
    }
}
