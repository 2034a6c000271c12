// swift-tools-version: 6.1
//
// Handover: sign users in and out of iOS apps through links, on shared devices.
//
// Layers (arrows point down only):
//   handover (CLI)  ->  HandoverServer, HandoverClient, DeviceSimulator
//   HandoverClient  ->  LinkCallbacks, UniversalLinks        (no Vapor, no NIO: an iOS app links it)
//   LinkCallbacks, UniversalLinks, QRCode                    (pure: Foundation only)
import PackageDescription

let package = Package(
    name: "Handover",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "LinkCallbacks", targets: ["LinkCallbacks"]),
        .library(name: "UniversalLinks", targets: ["UniversalLinks"]),
        .executable(name: "handover", targets: ["handover"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
    ],
    targets: [
        // Pure modules: Foundation only.
        .target(name: "LinkCallbacks"),
        .target(name: "UniversalLinks"),

        // The command-line tool.
        .executableTarget(
            name: "handover",
            dependencies: [
                "LinkCallbacks",
                "UniversalLinks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .testTarget(name: "HandoverCLITests", dependencies: ["handover"]),
    ]
)
