import AppleIDTestServer
import AppleSignIn
import Foundation
import Testing

@Suite("ServerNotificationVerifier", .timeLimit(.minutes(5)))
struct ServerNotificationTests {
    @Test("each event type decodes", arguments: [
        ("email-disabled", ServerNotificationEvent.Kind.emailDisabled),
        ("email-enabled", .emailEnabled),
        ("consent-revoked", .consentRevoked),
        ("account-delete", .accountDelete),
        ("something-new", .other("something-new")),
    ])
    func eventTypes(type: String, kind: ServerNotificationEvent.Kind) async throws {
        try await Fixture.with { f in
            let eventTime = Date(timeIntervalSince1970: 1_749_999_000.123)
            let jwt = try await f.server.makeNotificationJWT(type: type, sub: "001.user", aud: Fixture.clientID, jti: "jti-\(type)",
                                                            eventTime: eventTime, email: "r@privaterelay.appleid.com",
                                                            isPrivateEmail: "true")
            let notification = try await f.notifications.verify(jwt: jwt)
            #expect(notification.jwtID == "jti-\(type)")
            #expect(notification.audience == Fixture.clientID)
            #expect(notification.event.kind == kind)
            #expect(notification.event.kind.rawValue == type)
            #expect(notification.event.subject == "001.user")
            #expect(notification.event.email == "r@privaterelay.appleid.com")
            #expect(notification.event.isPrivateEmail == true)
            #expect(abs(notification.event.eventTime.timeIntervalSince(eventTime)) < 0.001)
        }
    }

    @Test("the POSTed body {\"payload\": JWT} verifies")
    func postedBody() async throws {
        try await Fixture.with { f in
            let jwt = try await f.server.makeNotificationJWT(type: "consent-revoked", sub: "u", aud: Fixture.clientID)
            // Deliver to the test server itself (404) to capture exactly what Apple's POST looks like.
            let status = try await f.server.postNotification(jwt, to: f.server.baseURL.appendingPathComponent("apple/notifications"), httpClient: f.http)
            #expect(status == 404)
            let request = try #require(f.server.requests(to: "/apple/notifications").last)
            #expect(request.headers["content-type"] == "application/json")
            let notification = try await f.notifications.verify(requestBody: Data(request.body.utf8))
            #expect(notification.event.kind == .consentRevoked)
        }
    }

    @Test("a notification with a bad signature is refused")
    func badSignature() async throws {
        try await Fixture.with { f in
            let jwt = try await f.server.makeNotificationJWT(type: "account-delete", sub: "u", aud: Fixture.clientID)
            var parts = jwt.split(separator: ".").map(String.init)
            let other = try await f.server.makeNotificationJWT(type: "account-delete", sub: "someone-else", aud: Fixture.clientID)
            parts[1] = String(other.split(separator: ".")[1])
            #expect(await jwtError { try await f.notifications.verify(jwt: parts.joined(separator: ".")) } == .badSignature)
        }
    }

    @Test("a notification for another client id, or expired, is refused")
    func claims() async throws {
        try await Fixture.with { f in
            let other = try await f.server.makeNotificationJWT(type: "account-delete", sub: "u", aud: "com.other")
            #expect(await jwtError { try await f.notifications.verify(jwt: other) } == .audienceMismatch(found: ["com.other"], expected: [Fixture.clientID]))
            let jwt = try await f.server.makeNotificationJWT(type: "account-delete", sub: "u", aud: Fixture.clientID)
            f.clock.advance(by: 700)
            guard case .expired = await jwtError({ try await f.notifications.verify(jwt: jwt) }) else {
                Issue.record("expected expired")
                return
            }
        }
    }

    @Test("a body that is not {\"payload\": …} is malformed")
    func badBody() async throws {
        try await Fixture.with { f in
            guard case .malformed = await jwtError({ try await f.notifications.verify(requestBody: Data("{}".utf8)) }) else {
                Issue.record("expected malformed")
                return
            }
        }
    }
}
