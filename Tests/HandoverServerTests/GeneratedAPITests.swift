import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The edges of the API generated from openapi.yaml (served by APIRoutes under our middleware):
/// who is refused before the body is read, bodies sent chunked or left out, content types.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct GeneratedAPITests {
    @Test func aKeylessRequestIsRefusedBeforeItsBodyIsRead() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/api/v1/devices", headers: [("Content-Type", "application/json")], body: "{")
            #expect(reply.status == 401, "\(reply.text)")
            #expect(reply.json["error"] as? String == "unauthorized")
        }
    }

    @Test func aDeviceKeyOnAnAdminOperationIsRefusedBeforeItsBodyIsRead() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await test.registerDevice()
            let reply = try await test.request(.POST, "/api/v1/apps", key: device.key, headers: [("Content-Type", "application/json")], body: "{")
            #expect(reply.status == 403, "\(reply.text)")
        }
    }

    @Test func aChunkedBodyIsRead() async throws {
        try await TestServer.with(.sqlite) { test in
            var request = HTTPClientRequest(url: test.server.baseURL.absoluteString + "/api/v1/devices")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(test.adminKey)")
            request.headers.add(name: "Content-Type", value: "application/json")
            let chunks = [ByteBuffer(string: #"{"name":"#), ByteBuffer(string: #""chunked-phone"}"#)]
            request.body = .stream(chunks.async, length: .unknown)
            let response = try await test.client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(response.status.code == 201, "\(String(buffer: body))")
            #expect(String(buffer: body).contains("chunked-phone"))
        }
    }

    @Test func aMissingRequiredBodyAndAWrongContentTypeAreNamed() async throws {
        try await TestServer.with(.sqlite) { test in
            let missing = try await test.request(.POST, "/api/v1/devices", key: test.adminKey)
            #expect(missing.status == 400)
            #expect(missing.json["error"] as? String == "invalid_request")
            #expect((missing.json["reason"] as? String)?.contains("body") == true, "\(missing.text)")
            let plain = try await test.request(.POST, "/api/v1/devices", key: test.adminKey, headers: [("Content-Type", "text/plain")], body: "name")
            #expect(plain.status == 415)
            #expect(plain.json["error"] as? String == "unsupported_media_type")
            #expect((plain.json["reason"] as? String)?.contains("application/json") == true, "\(plain.text)")
        }
    }

    @Test func anOptionalBodyMayBeLeftOut() async throws {
        try await TestServer.with(.sqlite) { test in
            _ = try await test.registerTarget("Mail")
            let device = try await test.registerDevice()
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
            #expect(run.status == 201, "\(run.text)")
            let webhook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/hooks", "events": ["run.completed"]],
                                                 key: test.adminKey)
            let id = webhook.json["webhook"].flatMap { ($0 as? [String: Any])?["id"] as? String } ?? ""
            let rotated = try await test.request(.POST, "/api/v1/webhooks/\(id)/rotate-secret", key: test.adminKey)
            #expect(rotated.status == 200, "\(rotated.text)")
        }
    }
}
