// swift-tools-version: 6.1
// An app's own package, built against QuakeStore as a SwiftData developer's package would be:
// it links the library product alone and uses only its public API. `run.sh` builds and tests it.
import PackageDescription

let quakeStore: Target.Dependency = .product(name: "QuakeStore", package: "quakes")

let package = Package(
    name: "AppPackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        // QuakeStore alone: no trait, so the server's, the sync's and the CLI's packages are not resolved
        .package(name: "quakes", path: "../..", traits: []),
    ],
    targets: [
        // One named scenario per process (argv[1]): a trap in one fails one test, not the run.
        .executableTarget(name: "Probe", dependencies: [quakeStore]),
        // main.swift is the README's "## Library" code, verbatim; it must compile without warnings.
        .executableTarget(
            name: "ReadmeSnippet",
            dependencies: [quakeStore],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        // Every ```swift block of README.md and of the DocC articles, compiled as written:
        // snippets.py writes them into Sources/DocSnippets/Generated (see it for the rules).
        .target(
            name: "DocSnippets",
            dependencies: [quakeStore, .target(name: "SwiftUIStandIn", condition: .when(platforms: [.linux]))]
        ),
        // SwiftUI's shapes, for the articles' SwiftUI code where there is no SwiftUI.
        .target(name: "SwiftUIStandIn"),
        .testTarget(name: "AppPackageTests", dependencies: [quakeStore, "Probe"]),
    ],
    swiftLanguageModes: [.v6]
)
