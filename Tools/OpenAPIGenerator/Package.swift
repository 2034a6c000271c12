// swift-tools-version: 6.1
//
// A package of its own for swift-openapi-generator, so that neither the SDK's graph nor the
// server's build resolves the generator, OpenAPIKit or Yams. `scripts/generate-openapi.sh` runs
// it and commits the output; CI runs the same script with `--check`.
import PackageDescription

let package = Package(
    name: "OpenAPIGenerator",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3"),
    ],
    targets: [
        // Nothing to build here but the generator's executable product.
        .target(name: "OpenAPIGeneratorTool", path: "Sources"),
    ]
)
