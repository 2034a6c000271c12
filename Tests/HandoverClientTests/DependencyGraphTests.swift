import Foundation
import Testing
import TestPeers

/// An iOS app must be able to link HandoverClient without NIO, Vapor or Fluent. This reads the
/// manifest as SwiftPM evaluates it (`swift package dump-package`) and walks every target and
/// package reachable from the HandoverClient product.
@Suite(.timeLimit(.minutes(5))) struct DependencyGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Reachable { var targets: Set<String> = []; var packages: Set<String> = [] }

    static func reachable(fromProduct product: String, manifest: [String: Any]) -> Reachable {
        let products = manifest["products"] as? [[String: Any]] ?? []
        return reachable(fromTargets: (products.first { $0["name"] as? String == product }?["targets"] as? [String]) ?? [],
                         manifest: manifest)
    }

    static func reachable(fromTargets start: [String], manifest: [String: Any]) -> Reachable {
        let targets = manifest["targets"] as? [[String: Any]] ?? []
        var byName: [String: [String: Any]] = [:]
        for target in targets { if let name = target["name"] as? String { byName[name] = target } }
        var result = Reachable()
        var queue = start
        while let name = queue.popLast() {
            guard result.targets.insert(name).inserted, let target = byName[name] else { continue }
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let local = (dependency["byName"] ?? dependency["target"]) as? [Any], let name = local.first as? String {
                    queue.append(name)
                } else if let external = dependency["product"] as? [Any], external.count > 1, let package = external[1] as? String {
                    result.packages.insert(package.lowercased())
                }
            }
        }
        return result
    }

    /// Nothing built only for tests ships in the `handover` binary: no loopback peer of Apple's
    /// or an SMTP server's protocol, no developer tool.
    @Test func theHandoverExecutableLinksNoTestPeer() async throws {
        let reachable = Self.reachable(fromProduct: "handover", manifest: try await Self.manifest())
        #expect(reachable.targets.contains("HandoverServer"))
        for target in reachable.targets {
            #expect(!target.contains("TestServer") && target != "apns-loopback" && target != "ReceiverCrashHarness", "handover links \(target)")
        }
        #expect(!reachable.packages.contains("swift-nio-http2") && !reachable.packages.contains("swift-certificates"))
    }

    /// The domain core knows nothing of HTTP serving: no Vapor, no Fluent's Vapor integration, no
    /// server target; only the contract and the Vapor-free protocol targets beneath it (issue 38).
    @Test func theDomainCoreDoesNotReachVapor() async throws {
        let reachable = Self.reachable(fromTargets: ["HandoverCore"], manifest: try await Self.manifest())
        let (packages, local) = (reachable.packages, reachable.targets.subtracting(["HandoverCore"]))
        #expect(!packages.contains("vapor") && !packages.contains("fluent"), "\(packages)")
        #expect(local.isSubset(of: ["HandoverProtocol", "LinkCallbacks", "SessionTokens", "AppleSignIn", "OutOfBand", "APNs",
                                    "UniversalLinks", "QRCode", "OutboundHTTP", "MDMConnectors", "TransparencyLog", "SCIM", "HandoverSchema"]), "\(local)")
    }

    /// Mail (SMTP and the drop folder) is an adapter beneath the server, above the domain: no Vapor.
    @Test func mailDoesNotReachVaporOrTheServer() async throws {
        let reachable = Self.reachable(fromTargets: ["Mail"], manifest: try await Self.manifest())
        #expect(!reachable.packages.contains("vapor") && !reachable.packages.contains("fluent"), "\(reachable.packages)")
        #expect(!reachable.targets.contains("HandoverServer"), "\(reachable.targets)")
    }

    /// The domain's own tests run it without the server (issue 38): no Vapor, no Fluent's Vapor
    /// integration, no HandoverServer.
    @Test func theDomainsTestsDoNotLinkVaporOrTheServer() async throws {
        let reachable = Self.reachable(fromTargets: ["HandoverCoreTests"], manifest: try await Self.manifest())
        #expect(reachable.targets.contains("HandoverCore"))
        #expect(!reachable.packages.contains("vapor") && !reachable.packages.contains("fluent"), "\(reachable.packages)")
        #expect(!reachable.targets.contains("HandoverServer"), "\(reachable.targets)")
    }

    /// The MDM vendors' connectors and the outbound exchange are Vapor-free targets of their own,
    /// as APNs is (issue 38).
    @Test func theMDMConnectorsAndTheOutboundExchangeDoNotReachVapor() async throws {
        let manifest = try await Self.manifest()
        for target in ["MDMConnectors", "OutboundHTTP"] {
            let reachable = Self.reachable(fromTargets: [target], manifest: manifest)
            #expect(!reachable.packages.contains("vapor") && !reachable.packages.contains("fluent") && !reachable.packages.contains("fluent-kit"),
                    "\(target): \(reachable.packages)")
            #expect(reachable.targets.isSubset(of: ["MDMConnectors", "OutboundHTTP", "HandoverProtocol"]), "\(target): \(reachable.targets)")
        }
    }

    /// The manifest as SwiftPM evaluates it, read once for the suite: `dump-package` compiles
    /// the manifest, which takes many seconds on a loaded 2-core machine. It runs on a thread of
    /// its own (``ChildProcess``): seven of these waits on Swift's two cooperative threads held
    /// every other test of the run for 88 seconds on CI.
    static func manifest() async throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try await dumped.value) as? [String: Any] ?? [:]
    }

    private static let dumped = Task<Data, any Error> {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("handover-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await ChildProcess.run(["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        guard result.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "swift package dump-package exited \(result.status): \(result.errorText)"])
        }
        return result.output
    }

    @Test func handoverClientProductReachesNoNIOVaporOrFluent() async throws {
        let manifest = try await Self.manifest()
        let reachable = Self.reachable(fromProduct: "HandoverClient", manifest: manifest)
        #expect(reachable.targets == ["HandoverClient", "HandoverProtocol", "LinkCallbacks", "OutOfBand"])
        // swift-crypto, and the runtime of the generated fleet client over URLSession.
        #expect(reachable.packages == ["swift-crypto", "swift-http-types", "swift-openapi-runtime", "swift-openapi-urlsession"])
        // Their own dependencies, from their checkouts' manifests (swift-openapi-urlsession names
        // swift-nio for its test target only, which a consumer does not resolve: check-sdk-graph.sh).
        for package in ["swift-crypto", "swift-http-types", "swift-openapi-runtime"] {
            let manifest = Self.root.appendingPathComponent(".build/checkouts/\(package)/Package.swift")
            guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { continue }
            for forbidden in ["swift-nio", "vapor", "fluent"] {
                #expect(!text.lowercased().contains("/\(forbidden)"), "\(package) depends on \(forbidden)")
            }
        }
        for forbidden in ["nio", "vapor", "fluent", "async-http-client"] {
            #expect(!reachable.packages.contains { $0.contains(forbidden) })
            #expect(!reachable.targets.contains { $0.lowercased().contains(forbidden) })
        }
    }
}
