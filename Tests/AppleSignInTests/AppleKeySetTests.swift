import AppleIDTestServer
import AppleSignIn
import Foundation
import Testing

@Suite("AppleKeySet", .timeLimit(.minutes(5)))
struct AppleKeySetTests {
    @Test("an unknown kid refetches once (rotation), and another unknown kid within 5 minutes does not")
    func unknownKidRotation() async throws {
        try await Fixture.with { f in
            _ = try await f.verifier.verify(try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID), rawNonce: nil)
            #expect(f.keyFetches == 1)

            // Apple rotates: a new key is published and tokens start using it.
            let rotated = try await f.server.addSigningKey()
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: rotated)
            _ = try await f.verifier.verify(token, rawNonce: nil)
            #expect(f.keyFetches == 2)

            // A second unknown kid two minutes later: no refetch, refused.
            f.clock.advance(by: 120)
            let later = try await f.server.addSigningKey()
            let second = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: later)
            #expect(await jwtError { try await f.verifier.verify(second, rawNonce: nil) } == .unknownKeyID(later))
            #expect(f.keyFetches == 2)

            // Once 5 minutes have passed since the last refetch, it may refetch again.
            f.clock.advance(by: 181)
            let fresh = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: later)
            _ = try await f.verifier.verify(fresh, rawNonce: nil)
            #expect(f.keyFetches == 3)
        }
    }

    @Test("a kid Apple never publishes is refused after the one allowed refetch")
    func neverPublished() async throws {
        try await Fixture.with { f in
            _ = try await f.keySet.key(id: f.server.publishedKeyIDs[0])
            let forgedKid = try await f.server.addSigningKey(published: false)
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: forgedKid)
            #expect(await jwtError { try await f.verifier.verify(token, rawNonce: nil) } == .unknownKeyID(forgedKid))
            #expect(await jwtError { try await f.verifier.verify(token, rawNonce: nil) } == .unknownKeyID(forgedKid))
            #expect(f.keyFetches == 2)
        }
    }

    @Test("concurrent verifications with an unknown kid share one fetch")
    func concurrentUnknownKid() async throws {
        try await Fixture.with { f in
            _ = try await f.keySet.key(id: f.server.publishedKeyIDs[0])
            #expect(f.keyFetches == 1)
            let rotated = try await f.server.addSigningKey()
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: rotated)
            let verifier = f.verifier
            let subjects = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<32 { group.addTask { try await verifier.verify(token, rawNonce: nil).subject } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(subjects.count == 32)
            #expect(f.keyFetches == 2)
        }
    }

    @Test("concurrent verifications on a cold cache share one fetch")
    func concurrentColdStart() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID)
            let verifier = f.verifier
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<32 { group.addTask { _ = try await verifier.verify(token, rawNonce: nil) } }
                try await group.waitForAll()
            }
            #expect(f.keyFetches == 1)
        }
    }

    @Test("when a fetch fails the keys already held are used")
    func fetchFailureKeepsKeys() async throws {
        try await Fixture.with { f in
            _ = try await f.verifier.verify(try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID), rawNonce: nil)
            f.server.setOverride("/auth/keys", .respond(status: 503, body: "down"))
            f.clock.advance(by: 25 * 3600) // past the 24 h max-age: the set must be refetched
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID)
            _ = try await f.verifier.verify(token, rawNonce: nil)
            #expect(f.keyFetches == 2)
            // Within the failure back-off it does not ask again.
            _ = try await f.verifier.verify(token, rawNonce: nil)
            #expect(f.keyFetches == 2)
        }
    }

    @Test("with no key held, a failed fetch is reported as keySetUnavailable")
    func fetchFailureWithoutKeys() async throws {
        try await Fixture.with { f in
            f.server.setOverride("/auth/keys", .respond(status: 500, body: ""))
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID)
            guard case .keySetUnavailable = await jwtError({ try await f.verifier.verify(token, rawNonce: nil) }) else {
                Issue.record("expected keySetUnavailable")
                return
            }
            // After the back-off, and with Apple back, it recovers.
            f.server.setOverride("/auth/keys", nil)
            f.clock.advance(by: 61)
            _ = try await f.verifier.verify(try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID), rawNonce: nil)
        }
    }

    @Test("Cache-Control max-age is honoured")
    func maxAge() async throws {
        try await Fixture.with { f in
            f.server.setKeysMaxAge(120)
            let kid = f.server.publishedKeyIDs[0]
            _ = try await f.keySet.key(id: kid)
            f.clock.advance(by: 100)
            _ = try await f.keySet.key(id: kid)
            #expect(f.keyFetches == 1)
            f.clock.advance(by: 30)
            _ = try await f.keySet.key(id: kid)
            #expect(f.keyFetches == 2)
        }
    }

    @Test("without Cache-Control the set is kept 24 hours")
    func fallbackMaxAge() async throws {
        try await Fixture.with { f in
            f.server.setKeysMaxAge(nil)
            let kid = f.server.publishedKeyIDs[0]
            _ = try await f.keySet.key(id: kid)
            f.clock.advance(by: 23 * 3600)
            _ = try await f.keySet.key(id: kid)
            #expect(f.keyFetches == 1)
            f.clock.advance(by: 3600 + 1)
            _ = try await f.keySet.key(id: kid)
            #expect(f.keyFetches == 2)
        }
    }

    @Test("a key removed from Apple's set is no longer accepted after the set is refreshed")
    func removedKey() async throws {
        try await Fixture.with { f in
            let old = f.server.publishedKeyIDs[0]
            let new = try await f.server.addSigningKey()
            f.server.setKeysMaxAge(60)
            _ = try await f.keySet.key(id: old)
            f.server.unpublishSigningKey(kid: old)
            f.clock.advance(by: 61)
            _ = try await f.keySet.key(id: new)
            #expect(await f.keySet.keyIDs == [new])
            #expect(await jwtError { try await f.keySet.key(id: old) } == .unknownKeyID(old))
        }
    }
}
