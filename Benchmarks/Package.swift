// swift-tools-version: 6.1
// Benchmarks for Handover, kept out of the main package so `swift test` does not build them.
import Foundation
import PackageDescription

/// SwiftPM names a package referenced by path after its folder, so read the checkout's folder
/// name rather than assuming one.
let handover = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "HandoverBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
    ],
    targets: [
        // The shared workload: a 50-component file, a URL mix, and the NSRegularExpression baseline.
        .target(name: "AASAWorkload", dependencies: [.product(name: "UniversalLinks", package: handover)]),
        // Times both matchers in one run and prints decisions/s and the ratio (used by scripts/bench-aasa.sh).
        .executableTarget(name: "aasa-bench", dependencies: ["AASAWorkload"]),
        .executableTarget(
            name: "AASAMatching",
            dependencies: ["AASAWorkload", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/AASAMatching",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Sign in with Apple: one RS256 identity token, key cached, verified by AppleSignIn and by jwt-kit.
        .target(
            name: "AppleWorkload",
            dependencies: [
                .product(name: "AppleSignIn", package: handover),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Our access tokens: SessionTokens' full verification and a bare ES256 verify of the same bytes.
        .target(
            name: "SessionWorkload",
            dependencies: [
                .product(name: "SessionTokens", package: handover),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(name: "session-bench", dependencies: ["SessionWorkload"]),
        .executableTarget(
            name: "AccessTokenVerification",
            dependencies: ["SessionWorkload", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/AccessTokenVerification",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A local Apple-protocol server that signs a user in, for the wrk run on GET /api/v1/me.
        .executableTarget(
            name: "apple-signin-peer",
            dependencies: [
                .product(name: "AppleIDTestServer", package: handover),
                .product(name: "AppleSignIn", package: handover),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // Complete out-of-band operations/s against a running server, and memory per pending one (scripts/bench-oob.sh).
        .executableTarget(
            name: "oob-bench",
            dependencies: [
                .product(name: "OutOfBand", package: handover),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // A bare SwiftNIO server answering one file: read beside handover and nginx in scripts/bench-server.sh.
        .executableTarget(
            name: "nio-file-server",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "OutOfBandCrypto",
            dependencies: [.product(name: "OutOfBand", package: handover), .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/OutOfBandCrypto",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Times both verifiers in one run and prints verifications/s (used by scripts/bench-apple.sh).
        .executableTarget(name: "apple-bench", dependencies: ["AppleWorkload"]),
        .executableTarget(
            name: "AppleIdentityTokenVerification",
            dependencies: ["AppleWorkload", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/AppleIdentityTokenVerification",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
