// swift-tools-version: 6.1
// Benchmarks live in their own package (as in swift-collections) so that CI and users of
// quakes never build package-benchmark. Run with: swift package benchmark
import PackageDescription

let package = Package(
    name: "QuakesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "quakes", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "QuakeBenchmarks",
            dependencies: [
                .product(name: "QuakeStore", package: "quakes"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/QuakeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
