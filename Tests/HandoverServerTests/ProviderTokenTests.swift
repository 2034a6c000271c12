import AsyncHTTPClient
import Foundation
import HandoverServer
import Testing

/// The checks every token from the organisation's provider must pass, with tokens signed by
/// oidc-provider-mock's own key (or forged beside it): OpenID Connect Core 1.0 §3.1.3.7 for ID
/// tokens, Back-Channel Logout 1.0 §2.6 for logout tokens.
@Suite(.serialized) struct ProviderTokenTests {
    static let clientID = "handover-dashboard"

    static func withProvider(_ body: (IdentityProviderPeer, OrganisationProvider, HTTPClient) async throws -> Void) async throws {
        let peer = try await IdentityProviderPeer.start()
        defer { peer.stop() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let settings = try AdminSignInSettings(issuer: peer.issuer, clientID: clientID, clientSecret: "s3cret", roleMap: "admins=admin")
        do {
            try await body(peer, OrganisationProvider(settings: settings, http: client), client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func claims(_ peer: IdentityProviderPeer, _ changes: [String: Any?] = [:]) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = ["iss": peer.issuer, "sub": "ada", "aud": clientID, "iat": now, "exp": now + 300, "nonce": "n-1"]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// The refusal of `token`, or nil when it was accepted.
    static func refusal(_ provider: OrganisationProvider, _ token: String, nonce: String = "n-1") async -> ProviderTokenRefusal? {
        do {
            _ = try await provider.verifyIDToken(token, nonce: nonce)
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodIDTokenIsAcceptedAndEachForgeryIsRefusedWithItsReason() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        try await Self.withProvider { peer, provider, client in
            let good = try await peer.sign(Self.claims(peer), client: client)
            #expect(await Self.refusal(provider, good) == nil)
            let now = Int(Date().timeIntervalSince1970)

            // §3.1.3.7 item 3: aud must hold the client id.
            let wrongAudience = try await peer.sign(Self.claims(peer, ["aud": "another-app"]), client: client)
            #expect(await Self.refusal(provider, wrongAudience) == .wrongAudience(found: ["another-app"], expected: Self.clientID))
            // Items 3 to 5: another audience beside ours is trusted only with azp naming us.
            let extra = try await peer.sign(Self.claims(peer, ["aud": [Self.clientID, "another-app"]]), client: client)
            #expect(await Self.refusal(provider, extra) == .wrongAudience(found: [Self.clientID, "another-app"], expected: Self.clientID))
            let extraWithAZP = try await peer.sign(Self.claims(peer, ["aud": [Self.clientID, "another-app"], "azp": Self.clientID]), client: client)
            #expect(await Self.refusal(provider, extraWithAZP) == nil)
            let wrongAZP = try await peer.sign(Self.claims(peer, ["azp": "another-app"]), client: client)
            #expect(await Self.refusal(provider, wrongAZP) == .wrongAuthorizedParty(found: "another-app", expected: Self.clientID))
            // Item 2: iss exactly.
            let wrongIssuer = try await peer.sign(Self.claims(peer, ["iss": peer.issuer + "/"]), client: client)
            #expect(await Self.refusal(provider, wrongIssuer) == .wrongIssuer(found: peer.issuer + "/", expected: peer.issuer))
            // Item 9: exp in the future (60 s of skew allowed).
            let expired = try await peer.sign(Self.claims(peer, ["exp": now - 61, "iat": now - 400]), client: client)
            #expect(await Self.refusal(provider, expired) == .expired(Date(timeIntervalSince1970: TimeInterval(now - 61))))
            // Item 10: iat neither in the future nor too old.
            let future = try await peer.sign(Self.claims(peer, ["iat": now + 3600, "exp": now + 7200]), client: client)
            #expect(await Self.refusal(provider, future) == .issuedAt(Date(timeIntervalSince1970: TimeInterval(now + 3600))))
            // Item 11: the nonce this sign-in sent.
            #expect(await Self.refusal(provider, good, nonce: "another") == .wrongNonce)
            let noNonce = try await peer.sign(Self.claims(peer, ["nonce": nil]), client: client)
            #expect(await Self.refusal(provider, noNonce) == .wrongNonce)
            // Item 6 and 7: the provider's signature, an asymmetric algorithm, never none.
            let unsigned = try await peer.sign(Self.claims(peer), header: ["alg": "none"], client: client)
            #expect(await Self.refusal(provider, unsigned) == .algorithm("none"))
            let otherKey = try await peer.sign(Self.claims(peer), otherKey: true, client: client)
            #expect(await Self.refusal(provider, otherKey) == .badSignature)
            let unknownKey = try await peer.sign(Self.claims(peer), header: ["kid": "rotated-away"], client: client)
            #expect(await Self.refusal(provider, unknownKey) == .unknownKey("rotated-away"))
            let noSubject = try await peer.sign(Self.claims(peer, ["sub": nil]), client: client)
            #expect(await Self.refusal(provider, noSubject) == .missingClaim("sub"))
            #expect(await Self.refusal(provider, "not.a.token") == .malformed("its header is not base64url JSON"))
            #expect(await Self.refusal(provider, "two.parts") == .malformed("2 parts, not 3"))
            // Every refusal reads as a sentence that names the claim.
            #expect(ProviderTokenRefusal.wrongAudience(found: ["x"], expected: "y").description.contains("audience (aud)"))
        }
    }

    @Test func aLogoutTokenIsCheckedAsBackChannelLogoutSection2_6Says() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        try await Self.withProvider { peer, provider, client in
            let event = ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]
            func logout(_ changes: [String: Any?], typ: String = "logout+jwt") async throws -> ProviderTokenRefusal? {
                var claims = Self.claims(peer, ["nonce": nil, "jti": "j-1", "events": event])
                for (name, value) in changes { claims[name] = value }
                let token = try await peer.sign(claims, header: ["typ": typ], client: client)
                do {
                    _ = try await provider.verifyLogoutToken(token)
                    return nil
                } catch {
                    return error
                }
            }
            let cases: [([String: Any?], String, ProviderTokenRefusal?)] = [
                ([:], "logout+jwt", nil),
                (["sub": nil, "sid": "s-1"], "logout+jwt", nil),  // a sid alone names the session
                (["sub": nil], "logout+jwt", .missingClaim("sub or sid")),
                (["jti": nil], "logout+jwt", .missingClaim("jti")),  // §2.4: REQUIRED (issue 63)
                (["nonce": "n"], "logout+jwt", .notALogoutToken("it carries a nonce, which §2.4 forbids")),
                (["events": ["urn:other": [String: Any]()]], "logout+jwt",
                 .notALogoutToken("its events claim lacks http://schemas.openid.net/event/backchannel-logout")),
                ([:], "JWT", .notALogoutToken("its typ is 'JWT', not logout+jwt")),
                (["aud": "another-app"], "logout+jwt", .wrongAudience(found: ["another-app"], expected: Self.clientID)),
            ]
            for (changes, typ, expected) in cases {
                let refusal = try await logout(changes, typ: typ)
                #expect(refusal == expected, "\(changes) \(typ)")
            }
        }
    }

    @Test func theKeySetIsFetchedAgainForAnUnknownKeyAtMostOnceAMinute() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        try await Self.withProvider { peer, provider, client in
            let good = try await peer.sign(Self.claims(peer), client: client)
            #expect(await Self.refusal(provider, good) == nil)
            // Two unknown key ids in a row: the second is refused from the set held, without a fetch
            // (the peer would answer the same set; the refusal names the key either way).
            for kid in ["k-1", "k-2"] {
                let token = try await peer.sign(Self.claims(peer), header: ["kid": kid], client: client)
                #expect(await Self.refusal(provider, token) == .unknownKey(kid))
            }
            #expect(await Self.refusal(provider, good) == nil)
        }
    }
}
