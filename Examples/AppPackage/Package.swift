// swift-tools-version: 6.1
// An app's own package, built against QuakeStore as a SwiftData developer's package would be:
// it links the library product alone and uses only its public API. `run.sh` builds and tests it.
import PackageDescription

let quakeStore: Target.Dependency = .product(name: "QuakeStore", package: "quakes")

let package = Package(
    name: "AppPackage",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "quakes", path: "../.."),
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
        .testTarget(name: "AppPackageTests", dependencies: [quakeStore, "Probe"]),
    ],
    swiftLanguageModes: [.v6]
)
