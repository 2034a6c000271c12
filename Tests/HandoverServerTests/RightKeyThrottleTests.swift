import Foundation
import HandoverConfiguration
import HandoverServer
import Testing

/// Throttle the guesser, never the right key (issue 63, finding 4). Keys, client secrets and
/// bearer values are 256-bit random values: a right one tells a guesser nothing it could have
/// reached, so an address past its limit for wrong ones still has its right ones served, and only
/// the wrong ones answer 429 with `Retry-After`. OWASP's Authentication Cheat Sheet warns that a
/// lockout turns into a denial of service against the legitimate user: behind a ward's NAT, one
/// phone with a stale key must not stop every other phone's hand-over.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct RightKeyThrottleTests {
    @Test func wrongAPIKeysAre429ButTheRightKeysFromTheSameAddressAreServed() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await test.registerDevice("ward-7-phone-3")
            for attempt in 1...30 {
                #expect(try await test.request(.GET, "/api/v1/apps", key: "hov_stale\(attempt)").status == 401, "attempt \(attempt)")
            }
            for attempt in 31...35 {
                let wrong = try await test.request(.GET, "/api/v1/apps", key: "hov_stale\(attempt)")
                #expect(wrong.status == 429 && wrong.json["error"] as? String == "rate_limited", "attempt \(attempt): \(wrong.status)")
                #expect(Int(wrong.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
                // The right keys from the same address, between the wrong ones: served.
                let admin = try await test.request(.GET, "/api/v1/apps", key: test.adminKey)
                #expect(admin.status == 200, "the admin key after \(attempt) wrong ones: \(admin.status) \(admin.text)")
                let own = try await test.request(.GET, "/api/v1/devices/\(device.id)/logout-runs", key: device.key)
                #expect(own.status != 429, "the device key after \(attempt) wrong ones: \(own.status) \(own.text)")
            }
            // No key at all is not a guess: 401, never 429.
            #expect(try await test.request(.GET, "/api/v1/apps").status == 401)
        }
    }

    /// RFC 8935 §2: the push endpoint takes the exact `Authorization` it was configured with; wrong
    /// ones slow their sender, the right one is taken. Global Token Revocation's bearer likewise.
    @Test func wrongPushAuthorizationsAre429ButTheRightOneIsTaken() async throws {
        let secret = "Bearer handover-push-0123456789abcdef"
        try await TestServer.with(.sqlite, configure: { configuration in
            try? ServerConfiguration.applySharedSignals(.init(issuer: "https://idp.example", jwksURL: "https://idp.example/jwks",
                                                              pushAuthorization: secret), to: &configuration, flags: false)
        }) { test in
            let set = [("Content-Type", "application/json")]
            for attempt in 1...30 {
                let wrong = try await test.request(.POST, "/ssf/push", headers: set + [("Authorization", "Bearer guess-\(attempt)")], body: "{}")
                #expect(wrong.status == 401, "attempt \(attempt): \(wrong.text)")
            }
            let wrong = try await test.request(.POST, "/ssf/push", headers: set + [("Authorization", "Bearer guess-31")], body: "{}")
            #expect(wrong.status == 429 && Int(wrong.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(wrong.status) \(wrong.text)")
            // The right Authorization passes: the body is then checked (RFC 8935 §2.1 wants application/secevent+jwt).
            let right = try await test.request(.POST, "/ssf/push", headers: set + [("Authorization", secret)], body: "{}")
            #expect(right.status == 400 && right.json["err"] as? String == "invalid_request", "\(right.status) \(right.text)")
            // A bearer that is not even a JWT, at Global Token Revocation: the same count, 429.
            let revocation = try await test.request(.POST, "/oauth/global-token-revocation", headers: set + [("Authorization", "Bearer not-a-jwt")],
                                                    body: #"{"sub_id": {"format": "email", "email": "a@example.com"}}"#)
            #expect(revocation.status == 429 && revocation.headers.first(name: "Retry-After") != nil, "\(revocation.status) \(revocation.text)")
        }
    }
}
