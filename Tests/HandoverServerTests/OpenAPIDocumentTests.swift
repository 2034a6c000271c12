import Foundation
@testable import HandoverServer
import HandoverProtocol
import Testing
import Vapor
import Yams

/// Keeps `/openapi.yaml` exact: every route the server registers is described, and every
/// operation described is a registered route.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct OpenAPIDocumentTests {
    /// `METHOD /path/{param}` for every operation in the document's `paths`.
    ///
    /// The document is written in a fixed layout (two spaces before a path, four before a
    /// method), so reading it line by line is enough; openapi-spec-validator checks the rest.
    static func operations(inDocument yaml: String) -> Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                path = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = String(line.dropFirst(4).dropLast())
                if methods.contains(key) { operations.insert("\(key.uppercased()) \(path)") }
            }
        }
        return operations
    }

    /// `METHOD /path/{param}` for every route registered in the Vapor application.
    static func operations(registeredIn application: Application) -> Set<String> {
        Set(application.routes.all.filter { $0.method != .HEAD }.map { route in
            let path = route.path.map { component -> String in
                let text = component.description
                return text.hasPrefix(":") ? "{\(text.dropFirst())}" : text
            }.joined(separator: "/")
            return "\(route.method.rawValue) /\(path)"
        })
    }

    @Test func theDocumentIsServedAsYAMLWithoutAKey() async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.GET, "/openapi.yaml")
        #expect(reply.status == 200)
        #expect(reply.headers.first(name: "Content-Type") == "application/yaml")
        #expect(reply.text.hasPrefix("openapi: 3.0.3\n"))
        #expect(reply.text.contains("bearerAuth:"))
        try await test.stop()
    }

    /// The served document is the YAML file, byte for byte (less its final newline): the file is
    /// the one description, and the Swift that embeds it is generated (scripts/embed-openapi.sh).
    @Test func theServedDocumentIsTheYAMLFile() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("Sources/HandoverServer/openapi.yaml"), encoding: .utf8)
        try await TestServer.with(.sqlite) { test in
            let served = try await test.request(.GET, "/openapi.yaml").text
            #expect(served + "\n" == file, "run scripts/embed-openapi.sh after editing Sources/HandoverServer/openapi.yaml")
        }
    }

    @Test func everyRegisteredRouteIsInTheDocumentAndEveryDocumentedOperationIsARoute() async throws {
        let test = try await TestServer.start(.sqlite)
        let document = Self.operations(inDocument: try await test.request(.GET, "/openapi.yaml").text)
        // The dashboard and the tester are HTML pages for a signed-in browser (a session cookie and
        // CSRF tokens, not API keys): DashboardTests, TesterTests and the browser test cover them.
        // SCIM describes itself (RFC 7644 §4: /scim/v2/Schemas, /ResourceTypes), which scim2-tester
        // checks (scripts/check-scim.sh).
        let registered = Self.operations(registeredIn: test.server.application)
            .filter { !$0.contains(" /dashboard") && !$0.contains(" /tester") && !$0.contains(" /scim/v2") }
        #expect(registered.contains { $0.hasPrefix("POST /api/v1/") }, "routes were read: \(registered)")
        #expect(document.contains("GET /api/v1/logout-runs/{runID}/events"), "the document was read: \(document)")
        let undocumented = registered.subtracting(document).sorted()
        let unregistered = document.subtracting(registered).sorted()
        #expect(undocumented.isEmpty, "routes missing from /openapi.yaml: \(undocumented)")
        #expect(unregistered.isEmpty, "operations in /openapi.yaml with no route: \(unregistered)")
        let api = registered.filter { $0.contains(" /api/v1/") }
        #expect(api.count >= 14)
        try await test.stop()
    }

    @Test func everyAPIOperationNeedsABearerKeyAndEveryPublicOneSaysItDoesNot() async throws {
        let test = try await TestServer.start(.sqlite)
        let yaml = try await test.request(.GET, "/openapi.yaml").text
        // The document applies bearerAuth to every operation unless it sets `security: []`.
        var openOperations: [String] = []
        var current: String?
        var path = ""
        for line in yaml.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  /"), !line.hasPrefix("   ") { path = String(line.dropFirst(2).dropLast()) }
            if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") { current = "\(line.dropFirst(4).dropLast()) \(path)" }
            if line == "      security: []", let current { openOperations.append(current) }
        }
        #expect(yaml.contains("\nsecurity:\n  - bearerAuth: []\n"))
        #expect(!openOperations.isEmpty)
        #expect(openOperations.allSatisfy { !$0.contains(" /api/v1/") }, "\(openOperations)")
        try await test.stop()
    }

    @Test func responseDatesAreISO8601StringsAsTheDocumentSays() async throws {
        let test = try await TestServer.start(.sqlite)
        // The manual clock starts at 1_800_000_000 s after 1970: 2027-01-15T08:00:00Z.
        let device = try await test.request(.POST, "/api/v1/devices", json: ["name": "ward-7-phone-3"], key: test.adminKey)
        let createdAt = (device.json["device"] as? [String: Any])?["createdAt"]
        #expect(createdAt as? String == "2027-01-15T08:00:00Z", "\(device.text)")
        let list = try await test.request(.GET, "/api/v1/devices", key: test.adminKey)
        #expect(list.array.first?["createdAt"] as? String == "2027-01-15T08:00:00Z", "\(list.text)")
        try await test.stop()
    }
}

/// The document's enums that name a shared contract list every case of it: a client generated
/// from the document must be able to read every answer (issue 63: `key_revoked` and
/// `key_replaced`, and the MDM events before them, were answered but not declared).
@Suite struct DocumentedEnumTests {
    /// The values of `components.schemas.<schema>.properties.<property>.enum` in the served document.
    static func declared(_ schema: String, _ property: String) throws -> Set<String> {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.yaml) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let properties = (schemas?[schema] as? [String: Any])?["properties"] as? [String: Any]
        let values = try #require((properties?[property] as? [String: Any])?["enum"] as? [Any], "\(schema).\(property) declares an enum")
        return Set(values.map { "\($0)" })
    }

    @Test func aDeviceHistoryEntrysEventIsEveryDeviceHistoryEvent() throws {
        #expect(try Self.declared("DeviceHistoryEntry", "event") == Set(DeviceHistoryEvent.allCases.map(\.rawValue)))
    }
}
