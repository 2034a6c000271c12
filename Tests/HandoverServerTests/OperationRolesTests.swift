@testable import HandoverServer
import Foundation
import NIOHTTP1
import Testing

/// Each API operation declares the role it needs in `openapi.yaml` (`x-handover-role`, and
/// `x-handover-device: true` where a device key may call it for its own device), and the server
/// checks that role before the body is read (issue 39).
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct OperationRolesTests {
    struct Declared: Hashable {
        var method: String
        var path: String
        var operationID: String
        var role: AdminRole
        var device: Bool
    }

    /// Every operation of the document that declares a role.
    static func declared(in yaml: String) -> [Declared] {
        var result: [Declared] = []
        var path = "", method = "", operationID = ""
        for line in yaml.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  /"), !line.hasPrefix("   ") { path = String(line.dropFirst(2).dropLast()) }
            if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") { method = String(line.dropFirst(4).dropLast()).uppercased() }
            if line.hasPrefix("      operationId: ") { operationID = String(line.dropFirst(19)) }
            if line.hasPrefix("      x-handover-role: "), let role = AdminRole(rawValue: String(line.dropFirst(23))) {
                result.append(Declared(method: method, path: path, operationID: operationID, role: role, device: false))
            }
            if line == "      x-handover-device: true", !result.isEmpty { result[result.count - 1].device = true }
        }
        return result
    }

    @Test func theServersTableIsWhatTheDocumentDeclares() throws {
        let yaml = OpenAPIDocument.yaml
        let declared = Self.declared(in: yaml)
        #expect(declared.count == 47, "\(declared.count) operations declare a role")
        for operation in declared where OperationScopes.roles[operation.operationID] != nil {
            #expect(OperationScopes.roles[operation.operationID] == operation.role, "\(operation.operationID)")
            #expect(OperationScopes.deviceOperations.contains(operation.operationID) == operation.device, "\(operation.operationID)")
        }
        // Every generated operation is declared.
        let generated = Set(OperationScopes.roles.keys)
        #expect(generated.isSubset(of: Set(declared.map(\.operationID))), "\(generated.subtracting(declared.map(\.operationID)))")
    }

    /// A request to `operation` with `key` and no body, its path parameters filled in.
    static func call(_ test: TestServer, _ operation: Declared, key: String) async throws -> Int {
        var path = operation.path
        while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
            path.replaceSubrange(open...close, with: UUID().uuidString.lowercased())
        }
        let method = HTTPMethod(rawValue: operation.method)
        return try await test.request(method, path, key: key).status
    }

    @Test func aViewerKeyIsRefusedEveryWriteAndAnOperatorKeyTheRegistry() async throws {
        try await TestServer.with(.sqlite) { test in
            let viewer = try await test.server.createAPIKey(name: "wall screen", scope: .viewer)
            let operatorKey = try await test.server.createAPIKey(name: "ward desk", scope: .operator)
            let device = try await test.registerDevice()
            for operation in Self.declared(in: OpenAPIDocument.yaml) {
                let asViewer = try await Self.call(test, operation, key: viewer)
                let asOperator = try await Self.call(test, operation, key: operatorKey)
                let asDevice = try await Self.call(test, operation, key: device.key)
                if operation.role == .viewer {
                    #expect(asViewer != 403 && asViewer != 401, "\(operation.operationID) as viewer: \(asViewer)")
                } else {
                    #expect(asViewer == 403, "\(operation.operationID) as viewer: \(asViewer)")
                }
                #expect((asOperator == 403) == (operation.role == .admin), "\(operation.operationID) as operator: \(asOperator)")
                // A device key reaches only its own runs (another run or device answers 403 or 404 there).
                if !operation.device { #expect(asDevice == 403, "\(operation.operationID) as device: \(asDevice)") }
            }
            // The refusal names the role held and the role needed.
            let refused = try await test.request(.POST, "/api/v1/apps", json: ["name": "x"], key: viewer)
            #expect(refused.text.contains("'viewer' role") && refused.text.contains("needs admin"), "\(refused.text)")
        }
    }
}
