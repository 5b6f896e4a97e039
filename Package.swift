// swift-tools-version: 6.1
import PackageDescription
import Foundation

/// Every library target: `any` spelled out for existentials.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "quakes",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "QuakeStore", targets: ["QuakeStore"]),
        .library(name: "QuakeSync", targets: ["QuakeSync"]),
        .executable(name: "quakes", targets: ["quakes"]),
    ],
    // A client that links QuakeStore alone depends with `traits: []` and resolves swift-collections
    // only: the server's, the sync's and the CLI's packages are each behind a trait (on by default).
    traits: [
        .trait(name: "Server", description: "QuakeServer, for quakes serve: Hummingbird, swift-nio, swift-log"),
        .trait(name: "Sync", description: "QuakeSync, for quakes sync: AsyncHTTPClient"),
        .trait(name: "CLI", description: "the quakes command: swift-argument-parser, and the server and sync",
               enabledTraits: ["Server", "Sync"]),
        .default(enabledTraits: ["CLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // the server only: Hummingbird without its default traits (no swift-configuration, no full Foundation)
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // quakes sync only: the HTTPS client (see Benchmarks/RESULTS.md, "The HTTP client for quakes sync")
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // support: locks through ThreadSanitizer, per-thread slots, the malloc policy and radix sort.
        .target(
            name: "QuakeSupport",
            swiftSettings: strict
        ),
        // format: the model, codecs, partition/manifest/history files and the one I/O layer.
        .target(
            name: "QuakeFormat",
            dependencies: ["QuakeSupport", "CZstd", "CZlib"],
            swiftSettings: strict
        ),
        // engine: the filter IR, planning, execution, ingest, history and observers; the public API.
        .target(
            name: "QuakeStore",
            dependencies: [
                "QuakeFormat",
                "QuakeSupport",
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // interchange: CSV/GeoJSON/text/Arrow/Parquet writers, history output, the SVG map.
        .target(
            name: "QuakeInterchange",
            dependencies: ["QuakeStore", "QuakeFormat", "QuakeSupport"],
            swiftSettings: strict
        ),
        // server: the FDSN event service and the quake browser page, on Hummingbird (`quakes serve`).
        .target(
            name: "QuakeServer",
            dependencies: [
                "QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
            ],
            exclude: ["Assets/README.md"],
            resources: [.embedInCode("Assets/index.html"), .embedInCode("Assets/app.js"), .embedInCode("Assets/map.js"),
                        .embedInCode("Assets/stats.js"), .embedInCode("Assets/app.css")],
            swiftSettings: strict
        ),
        // sync: keeps a store current from an FDSN event service or a summary feed, over AsyncHTTPClient.
        .target(
            name: "QuakeSync",
            dependencies: [
                "QuakeStore", "QuakeFormat", "QuakeSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Sync"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Sync"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Sync"])),
            ],
            swiftSettings: strict
        ),
        // the feed generator and the bench cases: `quakes generate` and `quakes bench` (the CLI links it).
        .target(
            name: "QuakeGenerator",
            dependencies: ["QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport"],
            swiftSettings: strict
        ),
        // test support, for the test targets and the fuzz harness only (never the CLI): the naive
        // reference, the fuzz harnesses and scratch folders.
        .target(
            name: "QuakeTestSupport",
            dependencies: ["QuakeGenerator", "QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "quakes",
            dependencies: [
                "QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeGenerator", "QuakeServer",
                "QuakeSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
            ],
            // A position-dependent executable: the loader applies 11 relocations instead of about
            // 106,000, which is a fifth of a one-shot query's start-up (see Benchmarks/RESULTS.md).
            linkerSettings: [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux]))]
        ),
        // one test target per library target, and the CLI's end-to-end tests
        .testTarget(name: "QuakeSupportTests", dependencies: ["QuakeSupport"]),
        .testTarget(name: "QuakeFormatTests", dependencies: [
            "QuakeFormat", "QuakeSupport", "QuakeStore", "QuakeInterchange", "QuakeGenerator", "QuakeTestSupport",
        ]),
        .testTarget(name: "QuakeStoreTests", dependencies: [
            "QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeInterchange", "QuakeGenerator", "QuakeTestSupport",
        ]),
        .testTarget(name: "QuakeInterchangeTests", dependencies: [
            "QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeGenerator", "QuakeTestSupport",
        ]),
        .testTarget(name: "QuakeServerTests", dependencies: [
            "QuakeServer", "QuakeInterchange", "QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeGenerator", "QuakeTestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
        ]),
        .testTarget(name: "QuakeSyncTests", dependencies: [
            "QuakeSync", "QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeGenerator", "QuakeTestSupport",
        ]),
        .testTarget(name: "quakesTests",
                    dependencies: ["quakes", "QuakeGenerator", "QuakeTestSupport", "QuakeSupport"],
                    // the client scripts the tests run by path, not resources of the target
                    exclude: ["Python"]),
    ]
)

// documentation only: `swift package generate-documentation` (.ci/docs and `make docs` set QUAKES_DOCS=1),
// so that no client resolves the plugin
if ProcessInfo.processInfo.environment["QUAKES_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"))
}

// libFuzzer harnesses, built only by `make fuzz` (QUAKES_FUZZ=1 with -sanitize=fuzzer,address):
// without the sanitizer the target has no main, so ordinary builds leave it out.
if ProcessInfo.processInfo.environment["QUAKES_FUZZ"] == "1" {
    package.products.append(.executable(name: "quakes-fuzz", targets: ["quakes-fuzz"]))
    package.targets.append(.executableTarget(
        name: "quakes-fuzz",
        dependencies: ["QuakeStore", "QuakeFormat", "QuakeSupport", "QuakeTestSupport"],
        path: "Fuzz/Harness",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    ))
}
