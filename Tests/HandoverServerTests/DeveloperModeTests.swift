import Foundation
import HandoverConfiguration
import HandoverServer
import Testing

/// Developer mode lets the registry take logout actions on loopback with http and a port, as
/// iOS `?mode=developer` does for associated domains; without it they are refused.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DeveloperModeTests {
    static func loopbackApp(_ name: String) -> [String: Any] {
        ["name": name, "appIDs": ["ABCDE12345.com.example.\(name)"], "logoutAction": "http://127.0.0.1:9311/apps/\(name)/logout"]
    }

    @Test func withoutDeveloperModeAnHTTPLoopbackLogoutActionIsRefusedNamingTheField() async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.POST, "/api/v1/apps", json: Self.loopbackApp("notes"), key: test.adminKey)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["field"] as? String == "logoutAction", "\(reply.text)")
        try await test.stop()
    }

    @Test func inDeveloperModeAnHTTPLoopbackLogoutActionIsAccepted() async throws {
        let test = try await TestServer.start(.sqlite, developerMode: true)
        let reply = try await test.request(.POST, "/api/v1/apps", json: Self.loopbackApp("notes"), key: test.adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.json["logoutAction"] as? String == "http://127.0.0.1:9311/apps/notes/logout")
        try await test.stop()
    }

    @Test func inDeveloperModeAnHTTPActionOffLoopbackIsStillRefused() async throws {
        let test = try await TestServer.start(.sqlite, developerMode: true)
        var app = Self.loopbackApp("notes")
        app["logoutAction"] = "http://notes.example.com:8080/logout"
        let reply = try await test.request(.POST, "/api/v1/apps", json: app, key: test.adminKey)
        #expect(reply.status == 422, "\(reply.text)")
        try await test.stop()
    }

    @Test func theEnvironmentTurnsDeveloperModeOn() throws {
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_DEVELOPER_MODE": "1"]).developerMode)
        #expect(try !ServerConfiguration.fromEnvironment([:]).developerMode)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["HANDOVER_DEVELOPER_MODE": "maybe"]) }
    }
}
