// swift-tools-version: 6.1
//
// Handover: sign users in and out of iOS apps through links, on shared devices.
//
// Layers (arrows point down only):
//   handover (CLI)  ->  HandoverServer, HandoverClient, DeviceSimulator
//   HandoverClient  ->  LinkCallbacks, OutOfBand             (no Vapor, no NIO: an iOS app links it)
//   OutOfBand                                                (pure: Foundation and swift-crypto)
//   LinkCallbacks, UniversalLinks, QRCode                    (pure: Foundation only)
import PackageDescription

let package = Package(
    name: "Handover",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "LinkCallbacks", targets: ["LinkCallbacks"]),
        .library(name: "UniversalLinks", targets: ["UniversalLinks"]),
        .library(name: "HandoverServer", targets: ["HandoverServer"]),
        .library(name: "HandoverClient", targets: ["HandoverClient"]),
        .library(name: "DeviceSimulator", targets: ["DeviceSimulator"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "AppleSignIn", targets: ["AppleSignIn"]),
        .library(name: "SessionTokens", targets: ["SessionTokens"]),
        .library(name: "AppleIDTestServer", targets: ["AppleIDTestServer"]),
        .library(name: "OutOfBand", targets: ["OutOfBand"]),
        .library(name: "APNs", targets: ["APNs"]),
        .executable(name: "handover", targets: ["handover"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.0"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.30.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
    ],
    targets: [
        // Pure modules: Foundation only.
        .target(name: "LinkCallbacks"),
        .target(name: "UniversalLinks"),
        .target(name: "QRCode"),
        // Out-of-band operations (push, QR code, link): envelope, sealed payload, signed answer,
        // link parsing. Shared by the server and the SDK, so Foundation and swift-crypto only.
        .target(name: "OutOfBand", dependencies: ["LinkCallbacks", .product(name: "Crypto", package: "swift-crypto")]),

        // The server: Vapor and Fluent, over SQLite by default and PostgreSQL when configured.
        .target(
            name: "HandoverServer",
            dependencies: [
                "LinkCallbacks",
                "UniversalLinks",
                "QRCode",
                "AppleSignIn",
                "SessionTokens",
                "OutOfBand",
                "APNs",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The SDK an iOS app links: Foundation, LinkCallbacks, OutOfBand and Crypto only (no NIO, no Vapor).
        .target(
            name: "HandoverClient",
            dependencies: ["LinkCallbacks", "OutOfBand", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A simulated phone for tests and `handover simulate`: may use NIO for its loopback server.
        .target(
            name: "DeviceSimulator",
            dependencies: [
                "HandoverClient",
                "OutOfBand",
                "LinkCallbacks",
                "UniversalLinks",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Sign in with Apple for any server: identity tokens, client secret, token endpoints,
        // server-to-server notifications (jwt-kit, swift-crypto, async-http-client; no Vapor).
        .target(
            name: "AppleSignIn",
            dependencies: [
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The server's own short-lived sessions: ES256 access tokens from a rotating key ring,
        // verified without a database read; AES-GCM for secrets at rest (jwt-kit, swift-crypto).
        .target(
            name: "SessionTokens",
            dependencies: [
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Test support only (never linked by the server or the CLI): Apple's protocol on loopback.
        .target(
            name: "AppleIDTestServer",
            dependencies: [
                "AppleSignIn",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // An APNs provider client (HTTP/2 through async-http-client, ES256 provider tokens with
        // swift-crypto; no Vapor).
        .target(
            name: "APNs",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Test support only: Apple's provider API over HTTP/2 and TLS on loopback (self-signed
        // certificate made at start, scripted answers, every request recorded).
        .target(
            name: "APNsTestServer",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // A child process for the crash-consistency test: a receiver that is SIGKILLed at random.
        .executableTarget(name: "ReceiverCrashHarness", dependencies: ["HandoverClient", "LinkCallbacks"]),

        // The command-line tool.
        .executableTarget(
            name: "handover",
            dependencies: [
                "LinkCallbacks",
                "UniversalLinks",
                "HandoverServer",
                "DeviceSimulator",
                "QRCode",
                "OutOfBand",
                "APNsTestServer",
                "HandoverClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Tests: one target per module, plus end-to-end tests of the built `handover` binary.
        .testTarget(
            name: "LinkCallbacksTests",
            dependencies: ["LinkCallbacks", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "UniversalLinksTests",
            dependencies: ["UniversalLinks", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "OutOfBandTests",
            dependencies: ["OutOfBand", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "QRCodeTests",
            dependencies: ["QRCode", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "HandoverServerTests",
            dependencies: [
                "HandoverServer",
                "LinkCallbacks",
                "HandoverClient",
                "DeviceSimulator",
                "AppleSignIn",
                "AppleIDTestServer",
                "SessionTokens",
                "OutOfBand",
                "APNsTestServer",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(name: "HandoverCLITests", dependencies: ["handover"]),
        .testTarget(
            name: "AppleSignInTests",
            dependencies: [
                "AppleSignIn",
                "AppleIDTestServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "SessionTokensTests",
            dependencies: ["SessionTokens", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "APNsTests",
            dependencies: [
                "APNs",
                "APNsTestServer",
                "OutOfBand",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "HandoverClientTests",
            dependencies: ["HandoverClient", "LinkCallbacks", "OutOfBand", "ReceiverCrashHarness",
                           .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(
            name: "DeviceSimulatorTests",
            dependencies: ["DeviceSimulator", "HandoverClient", "LinkCallbacks", "UniversalLinks",
                           .product(name: "Clocks", package: "swift-clocks")]
        ),
    ]
)
