// swift-tools-version: 6.1
// Benchmarks for Handover, kept out of the main package so `swift test` does not build them.
import PackageDescription

let package = Package(
    name: "HandoverBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The shared workload: a 50-component file, a URL mix, and the NSRegularExpression baseline.
        .target(name: "AASAWorkload", dependencies: [.product(name: "UniversalLinks", package: "wt-aasa")]),
        // Times both matchers in one run and prints decisions/s and the ratio (used by scripts/bench-aasa.sh).
        .executableTarget(name: "aasa-bench", dependencies: ["AASAWorkload"]),
        .executableTarget(
            name: "AASAMatching",
            dependencies: ["AASAWorkload", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/AASAMatching",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
