// swift-tools-version: 6.1
//
// Handover: sign users in and out of iOS apps through links, on shared devices.
//
// Layers (arrows point down only):
//   handover (CLI)  ->  HandoverServer, HandoverClient, DeviceSimulator
//   HandoverClient  ->  HandoverProtocol, LinkCallbacks, OutOfBand, OpenAPIURLSession
//                                                            (no Vapor, no NIO: an iOS app links it)
//   OutOfBand                                                (pure: Foundation and swift-crypto)
//   LinkCallbacks, UniversalLinks, QRCode                    (pure: Foundation only)
//
// The `Server` trait (on by default) carries everything the server, the CLI and the tests need:
// Vapor, Fluent, SwiftNIO, the database drivers, jwt-kit and the rest. An iOS app that wants only
// the SDK turns it off, and then resolves swift-crypto and the OpenAPI runtime over URLSession
// (with swift-asn1, swift-http-types and swift-collections under them) and nothing else:
//
//     .package(url: "https://github.com/<owner>/handover.git", from: "0.9.0", traits: [])
//
// `scripts/check-sdk-graph.sh` builds such an app package and lists what it resolved (CI runs it).
import PackageDescription

/// A product used only with the `Server` trait: a package that only such products use is not
/// resolved at all, for this package or for an app that depends on it, while the trait is off.
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "Handover",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .library(name: "LinkCallbacks", targets: ["LinkCallbacks"]),
        .library(name: "HandoverProtocol", targets: ["HandoverProtocol"]),
        .library(name: "UniversalLinks", targets: ["UniversalLinks"]),
        .library(name: "HandoverServer", targets: ["HandoverServer"]),
        .library(name: "HandoverClient", targets: ["HandoverClient"]),
        .library(name: "DeviceSimulator", targets: ["DeviceSimulator"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "AppleSignIn", targets: ["AppleSignIn"]),
        .library(name: "SessionTokens", targets: ["SessionTokens"]),
        .library(name: "AppleIDTestServer", targets: ["AppleIDTestServer"]),
        .library(name: "OutOfBand", targets: ["OutOfBand"]),
        .library(name: "TransparencyLog", targets: ["TransparencyLog"]),
        .library(name: "APNs", targets: ["APNs"]),
        .executable(name: "handover", targets: ["handover"]),
    ],
    traits: [
        .trait(name: "Server", description: "The server, the command-line tool, the simulator and the tests (Vapor, Fluent, SwiftNIO, jwt-kit, ...). Turn it off (traits: []) to resolve only what the HandoverClient SDK needs."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        // `handover serve --config FILE` (YAML): one set of keys with the environment and the flags.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        // The tests read openapi.yaml with it (swift-configuration's YAML trait resolves it already).
        .package(url: "https://github.com/jpsim/Yams", "5.4.0"..<"7.0.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.0"),
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.52.0"),
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
        // The database pools' time-out (ConnectionPoolTimeoutError), an outage to wait out (DatabaseOutage).
        .package(url: "https://github.com/vapor/async-kit.git", from: "1.20.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        // The API code generated from openapi.yaml (scripts/generate-openapi.sh) runs on these.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.7.0"),
        // Structured Field Values (RFC 9651): the run start's `Idempotency-Key` is an sf-string.
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.2.0"),
        // `swift package generate-documentation` (scripts/build-docs.sh); used by no target.
        .package(url: "https://github.com/apple/swift-docc-plugin.git", from: "1.4.0"),
    ],
    targets: [
        // Pure modules: Foundation only.
        .target(name: "LinkCallbacks"),
        .target(name: "UniversalLinks"),
        .target(name: "QRCode"),
        // SCIM 2.0's messages (RFC 7643, RFC 7644): values, schemas, filters, PATCH. Foundation only.
        .target(name: "SCIM"),
        // The contract the server, the SDK and the simulator share: states and their names (one
        // mapping), the callback URL, the wire types of runs. Foundation only.
        .target(name: "HandoverProtocol"),
        // Out-of-band operations (push, QR code, link): envelope, sealed payload, signed answer,
        // link parsing. Shared by the server and the SDK, so Foundation and swift-crypto only.
        .target(name: "OutOfBand", dependencies: ["LinkCallbacks", .product(name: "Crypto", package: "swift-crypto")]),
        // The audit log's tree (RFC 9162), its proofs and its signed checkpoints (C2SP). Foundation
        // and swift-crypto only, so an auditor's tool can verify without the server.
        .target(name: "TransparencyLog", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),

        // The database schema: every table's record (a FluentKit model: its columns, nothing of
        // what is done with it) and every migration, oldest first (SchemaHistory). FluentKit and
        // SQL only; nothing of the domain, which depends on it.
        .target(
            name: "HandoverSchema",
            dependencies: ["HandoverProtocol", server("FluentKit", "fluent-kit"), server("SQLKit", "sql-kit")]
        ),

        // The domain core, without Vapor: the fleet's storage models, logout runs and their
        // deadlines, callback recording, the webhook outbox, the clock and metrics. Throws
        // DomainError; the server's routes map it to HTTP.
        .target(
            name: "HandoverCore",
            dependencies: [
                "HandoverProtocol",
                "HandoverSchema",
                "SCIM",
                "LinkCallbacks",
                "SessionTokens",
                "AppleSignIn",
                server("AsyncHTTPClient", "async-http-client"),
                "OutboundHTTP",
                "MDMConnectors",
                "OutOfBand",
                "TransparencyLog",
                "APNs",
                "UniversalLinks",
                "QRCode",
                server("NIOHTTP1", "swift-nio"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                server("FluentKit", "fluent-kit"),
                // The database's drivers (no Vapor): the core opens the server's database (DatabaseConnections).
                server("FluentSQLiteDriver", "fluent-sqlite-driver"),
                server("FluentPostgresDriver", "fluent-postgres-driver"),
                server("SQLKit", "sql-kit"),
                server("PostgresNIO", "postgres-nio"),
                server("AsyncKit", "async-kit"),
                server("Logging", "swift-log"),
                server("JWTKit", "jwt-kit"),
                server("NIOFoundationCompat", "swift-nio"),
                server("Prometheus", "swift-prometheus"),
                server("NIOConcurrencyHelpers", "swift-nio"),
            ],
            // A file sees only the members of the modules it imports (SE-0444): a file that does
            // not import FluentKit or SQLKit cannot query, whatever values it holds.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The HTTP/1.1 server under `handover serve`: SwiftNIO's parser and Vapor's responder, with
        // the connection limits Vapor's own server lacks (head and body deadlines, a cap on
        // connections). Nothing of the domain.
        .target(
            name: "HandoverTransport",
            dependencies: [
                "HandoverProtocol",
                server("Vapor", "vapor"),
                server("NIOCore", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOExtras", "swift-nio-extras"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The server's settings as values: read from the environment (and, through the CLI, a
        // configuration file), each mistake a StartupFailure that names the variable. No HTTP.
        .target(
            name: "HandoverConfiguration",
            dependencies: [
                "HandoverCore", "HandoverProtocol", "HandoverTransport", "Mail", "LinkCallbacks", "SCIM", "SessionTokens",
                server("NIOCore", "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The pages the server shows a browser, as values: HTML built in Swift (text escaped as it
        // is added), the dashboard's shell and its pages, from what the core's services return.
        // No HTTP and no database: a page is a function of its inputs, tested without a server.
        .target(
            name: "HandoverPages",
            dependencies: ["HandoverCore", "HandoverSchema", "HandoverProtocol", "LinkCallbacks", "UniversalLinks"],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The server: Vapor, over the core (which holds the database: SQLite by default, PostgreSQL when configured).
        .target(
            name: "HandoverServer",
            dependencies: [
                "HandoverCore",
                "HandoverConfiguration",
                "HandoverPages",
                "HandoverSchema",
                "HandoverTransport",
                "TransparencyLog",
                "SCIM",
                "HandoverProtocol",
                "LinkCallbacks",
                "UniversalLinks",
                "QRCode",
                "AppleSignIn",
                "SessionTokens",
                "OutOfBand",
                "APNs",
                "OutboundHTTP",
                "MDMConnectors",
                "Mail",
                server("Vapor", "vapor"),
                server("Prometheus", "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
                server("NIOExtras", "swift-nio-extras"),
                server("RawStructuredFieldValues", "swift-http-structured-headers"),
                server("JWTKit", "jwt-kit"),
                server("NIOSSL", "swift-nio-ssl"),
                server("PostgresNIO", "postgres-nio"),
                server("Logging", "swift-log"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // HTTPTypes from and to Vapor's NIO types, for serving the generated operations (APIRoutes).
                server("NIOHTTPTypesHTTP1", "swift-nio-extras"),
            ],
            // The API's one description: scripts/generate-openapi.sh generates API/Generated from
            // it and embeds it as Routes/OpenAPIDocument.swift.
            exclude: ["openapi.yaml"],
            // A file sees only the members of the modules it imports (SE-0444): a file that does
            // not import Fluent cannot reach the database through `request.db`.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The SDK an iOS app links: Foundation, LinkCallbacks, OutOfBand and Crypto, and the
        // generated fleet client over URLSession (no NIO, no Vapor).
        .target(
            name: "HandoverClient",
            dependencies: [
                "HandoverProtocol",
                "LinkCallbacks",
                "OutOfBand",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // A simulated phone for tests and `handover simulate`: may use NIO for its loopback server.
        .target(
            name: "DeviceSimulator",
            dependencies: [
                "HandoverClient",
                // The generated wire types of the admin calls (Generated/, scripts/generate-openapi.sh).
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                "HandoverProtocol",
                "OutOfBand",
                "LinkCallbacks",
                "UniversalLinks",
                server("Clocks", "swift-clocks"),
                server("NIOCore", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("AsyncHTTPClient", "async-http-client"),
            ]
        ),
        // Sign in with Apple for any server: identity tokens, client secret, token endpoints,
        // server-to-server notifications (jwt-kit, swift-crypto, async-http-client; no Vapor).
        .target(
            name: "AppleSignIn",
            dependencies: [
                "LinkCallbacks",
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("JWTKit", "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
            ]
        ),
        // The server's own short-lived sessions: ES256 access tokens from a rotating key ring,
        // verified without a database read; AES-GCM for secrets at rest (jwt-kit, swift-crypto).
        .target(
            name: "SessionTokens",
            dependencies: [
                server("NIOConcurrencyHelpers", "swift-nio"),
                "LinkCallbacks",
                server("JWTKit", "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Test support only (never linked by the server or the CLI): Apple's protocol on loopback.
        .target(
            name: "AppleIDTestServer",
            dependencies: [
                "LinkCallbacks",
                "AppleSignIn",
                server("JWTKit", "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
            ]
        ),
        // An APNs provider client (HTTP/2 through async-http-client, ES256 provider tokens with
        // swift-crypto; no Vapor).
        // Mail for sign-in links: a small SMTP client (STARTTLS or implicit TLS, AUTH PLAIN) and
        // a drop folder for development. No Vapor.
        .target(
            name: "Mail",
            dependencies: [
                "HandoverCore",
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOSSL", "swift-nio-ssl"),
            ]
        ),
        // One HTTP exchange with a peer we do not control (a webhook receiver, a backend, an
        // MDM): the reply read up to a limit, the whole exchange within a timeout. No Vapor.
        .target(
            name: "OutboundHTTP",
            dependencies: [
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
            ]
        ),
        // The MDM vendors' APIs (Jamf Pro, Microsoft Intune through Graph): send a lock, Lost
        // Mode or erase, and find one sent before a crash. No Vapor, as APNs.
        .target(
            name: "MDMConnectors",
            dependencies: [
                "HandoverProtocol",
                "OutboundHTTP",
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOFoundationCompat", "swift-nio"),
            ]
        ),
        .target(
            name: "APNs",
            dependencies: [
                "LinkCallbacks",
                .product(name: "Crypto", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
            ]
        ),
        // Test support only: Apple's provider API over HTTP/2 and TLS on loopback (self-signed
        // certificate made at start, scripted answers, every request recorded).
        .target(
            name: "APNsTestServer",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                server("X509", "swift-certificates"),
                server("SwiftASN1", "swift-asn1"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOConcurrencyHelpers", "swift-nio"),
                server("NIOSSL", "swift-nio-ssl"),
                server("NIOHTTP2", "swift-nio-http2"),
            ]
        ),
        // A developer tool, not part of `handover`: Apple's push provider API on loopback with a
        // push inbox, for trying out-of-band operations by push without Apple (`swift run apns-loopback`).
        .executableTarget(
            name: "apns-loopback",
            dependencies: [
                "APNsTestServer",
                .product(name: "Crypto", package: "swift-crypto"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("UnixSignals", "swift-service-lifecycle"),
            ]
        ),
        // A child process for the crash-consistency test: a receiver that is SIGKILLed at random.
        .executableTarget(name: "ReceiverCrashHarness", dependencies: ["HandoverClient", "LinkCallbacks"]),

        // The command-line tool.
        .executableTarget(
            name: "handover",
            dependencies: [
                "HandoverProtocol",
                "HandoverConfiguration",
                "HandoverCore",
                "HandoverSchema",
                "LinkCallbacks",
                "UniversalLinks",
                "HandoverServer",
                "DeviceSimulator",
                "QRCode",
                "OutOfBand",
                "TransparencyLog",
                "HandoverClient",
                server("ArgumentParser", "swift-argument-parser"),
                server("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                server("Logging", "swift-log"),
                server("Configuration", "swift-configuration"),
                // `bench shift-change --closed-loop` counts PostgreSQL's statements (pg_stat_statements).
                server("PostgresNIO", "postgres-nio"),
            ]
        ),

        // Tests: one target per module, plus end-to-end tests of the built `handover` binary.
        // The domain's own: its schema and services on SQLite and PostgreSQL, without Vapor.
        .testTarget(
            name: "HandoverCoreTests",
            dependencies: [
                "HandoverCore",
                "HandoverSchema",
                "HandoverProtocol",
                "LinkCallbacks",
                server("PropertyBased", "swift-property-based"),
                .product(name: "Crypto", package: "swift-crypto"),
                server("FluentKit", "fluent-kit"),
                server("SQLKit", "sql-kit"),
                server("FluentSQLiteDriver", "fluent-sqlite-driver"),
                server("FluentPostgresDriver", "fluent-postgres-driver"),
                server("PostgresNIO", "postgres-nio"),
                server("AsyncKit", "async-kit"),
                server("NIOCore", "swift-nio"),
                server("NIOPosix", "swift-nio"),
                server("Logging", "swift-log"),
            ]
        ),
        .testTarget(
            name: "LinkCallbacksTests",
            dependencies: ["LinkCallbacks", server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "HandoverProtocolTests",
            dependencies: ["HandoverProtocol", server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "UniversalLinksTests",
            dependencies: ["UniversalLinks", server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "OutOfBandTests",
            dependencies: ["OutOfBand", .product(name: "Crypto", package: "swift-crypto"),
                           server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "TransparencyLogTests",
            dependencies: ["TransparencyLog", .product(name: "Crypto", package: "swift-crypto"),
                           server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "SCIMTests",
            dependencies: ["SCIM", server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "QRCodeTests",
            dependencies: ["QRCode", "TestPeers", server("PropertyBased", "swift-property-based")]
        ),
        // The pages as values: rendered from plain inputs, no server and no database.
        .testTarget(
            name: "HandoverPagesTests",
            dependencies: ["HandoverPages", "HandoverCore", "HandoverSchema", "HandoverProtocol", "TransparencyLog", server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "HandoverServerTests",
            dependencies: [
                "HandoverServer",
                "HandoverConfiguration",
                "HandoverPages",
                "HandoverCore",
                "HandoverSchema",
                "HandoverTransport",
                "TransparencyLog",
                "Mail",
                "HandoverProtocol",
                "LinkCallbacks",
                "HandoverClient",
                "DeviceSimulator",
                "AppleSignIn",
                "AppleIDTestServer",
                "SessionTokens",
                "OutOfBand",
                "APNsTestServer",
                "TestPeers",
                server("Clocks", "swift-clocks"),
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOPosix", "swift-nio"),
                server("NIOEmbedded", "swift-nio"),
                server("Vapor", "vapor"),
                server("FluentKit", "fluent-kit"),
                server("PropertyBased", "swift-property-based"),
                server("Yams", "Yams"),
            ]
        ),
        // Starts the tests' loopback peers written in Python (Tests/Peers); linked by test targets only.
        .target(name: "TestPeers", dependencies: ["TestParallelism"], path: "Tests/TestPeers"),
        // Bounds how many tests run at once (eight per core), set before `main`, so that a test's
        // time limit is not spent waiting for the CPU behind a thousand others; linked by test targets only.
        .target(name: "TestParallelism", path: "Tests/TestParallelism"),
        .testTarget(name: "HandoverCLITests", dependencies: ["handover", "apns-loopback", "AppleIDTestServer", "AppleSignIn", "TestPeers",
                                                     server("PropertyBased", "swift-property-based")]),
        .testTarget(
            name: "AppleSignInTests",
            dependencies: [
                "AppleSignIn",
                "AppleIDTestServer",
                .product(name: "Crypto", package: "swift-crypto"),
                server("AsyncHTTPClient", "async-http-client"),
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
                server("AsyncHTTPClient", "async-http-client"),
                server("NIOCore", "swift-nio"),
                server("NIOHTTP1", "swift-nio"),
                server("NIOSSL", "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "HandoverClientTests",
            dependencies: ["HandoverClient", "LinkCallbacks", "OutOfBand", "ReceiverCrashHarness", "TestPeers", "TestParallelism",
                           server("Clocks", "swift-clocks"), server("PropertyBased", "swift-property-based")]
        ),
        .testTarget(
            name: "DeviceSimulatorTests",
            dependencies: ["DeviceSimulator", "HandoverClient", "LinkCallbacks", "UniversalLinks",
                           server("Clocks", "swift-clocks"), server("PropertyBased", "swift-property-based")]
        ),
    ]
)
