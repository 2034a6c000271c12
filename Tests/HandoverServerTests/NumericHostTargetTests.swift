import Foundation
import HandoverServer
import Testing

/// Issue 63, finding 13: a Shared Signals push endpoint of `https://0xa9fea9fe/` (169.254.169.254,
/// the cloud's metadata service, in hexadecimal) or `http://localhost:N/` was accepted when the
/// stream was made and refused only when a push was sent. A receiver's address now meets, when it
/// is registered, the policy webhooks and back-channel logout use (`WebhookTargetPolicy`), with
/// every spelling of an IPv4 address that a resolver reads (`inet_aton`: a 32-bit number in
/// decimal, hexadecimal or octal, and the dotted forms of two, three or four parts) and the name
/// `localhost` read as the address it is. Webhooks are held to the same.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct NumericHostTargetTests {
    static let refused = ["https://0xa9fea9fe/", "https://2852039166/", "https://0251.0376.0251.0376/", "https://169.254.43518/",
                          "https://0xa9.0xfe.0xa9.0xfe/", "https://169.254.169.254/", "https://[::ffff:a9fe:a9fe]/", "http://localhost:8080/",
                          "https://localhost/", "https://LOCALHOST./", "https://ward7.localhost/", "https://0x7f000001/", "https://2130706433/",
                          "https://0/", "https://10.1/", "https://0xc0a80001/"]

    @Test func aPushEndpointOrAWebhookAtAnAddressInsideIsRefusedWhenItIsMade() async throws {
        try await TestServer.with(.sqlite, publicURL: "https://handover.example.com", configure: { $0.allowsLoopbackWebhooks = false }) { test in
            let client = try await OpenIDConnectTests.register(test, ["client_name": "SIEM"])
            let token = try await OpenIDConnectTests.form(test, "/oauth/token", ["grant_type": "client_credentials"], basic: (client.id, client.secret))
            let bearer = [("Authorization", "Bearer \(token.json["access_token"] as? String ?? "")")]
            for url in Self.refused {
                let stream = try await test.request(.POST, "/ssf/stream", json: ["delivery": ["method": "urn:ietf:rfc:8935", "endpoint_url": url]],
                                                    headers: bearer)
                #expect(stream.status == 400 && stream.json["field"] as? String == "delivery.endpoint_url", "\(url): \(stream.status) \(stream.text)")
                let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": url, "events": ["run.failed"]], key: test.adminKey)
                #expect(hook.status == 422 && hook.json["field"] as? String == "url", "\(url): \(hook.status) \(hook.text)")
            }
            // A public receiver is made as before.
            let fine = try await test.request(.POST, "/ssf/stream", json: ["delivery": ["method": "urn:ietf:rfc:8935",
                                                                                            "endpoint_url": "https://receiver.example.com/events"]], headers: bearer)
            #expect((200..<300).contains(fine.status), "\(fine.text)")
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/h", "events": ["run.failed"]], key: test.adminKey)
            #expect(hook.status == 201, "\(hook.text)")
        }
    }
}
