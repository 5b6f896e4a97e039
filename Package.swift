// swift-tools-version: 6.1
import PackageDescription
import Foundation

let package = Package(
    name: "quakes",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "QuakeStore", targets: ["QuakeStore"]),
        .executable(name: "quakes", targets: ["quakes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        .target(
            name: "QuakeStore",
            dependencies: [
                "CZstd",
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "quakes",
            dependencies: [
                "QuakeStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "QuakeStoreTests", dependencies: ["QuakeStore"]),
        .testTarget(name: "quakesTests", dependencies: ["quakes", "QuakeStore"]),
    ]
)

// libFuzzer harnesses, built only by `make fuzz` (QUAKES_FUZZ=1 with -sanitize=fuzzer,address):
// without the sanitizer the target has no main, so ordinary builds leave it out.
if ProcessInfo.processInfo.environment["QUAKES_FUZZ"] == "1" {
    package.products.append(.executable(name: "quakes-fuzz", targets: ["quakes-fuzz"]))
    package.targets.append(.executableTarget(
        name: "quakes-fuzz",
        dependencies: ["QuakeStore"],
        path: "Fuzz/Harness",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    ))
}
