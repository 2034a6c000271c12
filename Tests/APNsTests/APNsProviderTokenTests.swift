import APNs
import Crypto
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct APNsProviderTokenTests {
    let key = P256.Signing.PrivateKey()

    @Test func theJWTIsES256WithKidIssAndIatOnly() throws {
        let time = TestTime()
        let token = try APNsProviderToken(privateKeyPEM: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", now: time.read)
        let jwt = try token.current()
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3)
        #expect(try jwtPart(jwt, 0) as NSDictionary == ["alg": "ES256", "kid": "ABC123DEFG"] as NSDictionary)
        #expect(try jwtPart(jwt, 1) as NSDictionary == ["iss": "DEF123GHIJ", "iat": 1_750_000_000] as NSDictionary)
        var signature = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        let raw = try #require(Data(base64Encoded: signature))
        #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: raw), for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(token.issuedAt == time.now)
    }

    @Test func manyTasksAtOnceGetOneToken() async throws {
        let token = try APNsProviderToken(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { try? token.current() } }
            var all: Set<String?> = []
            for await token in group { all.insert(token) }
            return all
        }
        #expect(tokens.count == 1)
        #expect(tokens.first! != nil)
    }

    @Test func renewalOfARejectedTokenHappensOnceAcrossTasks() throws {
        let time = TestTime()
        let token = try APNsProviderToken(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", now: time.read)
        let rejected = try token.current()
        let renewed = try token.renew(replacing: rejected)
        #expect(renewed != rejected)
        // A second task that saw the same rejection gets the renewed token, not a third one.
        #expect(try token.renew(replacing: rejected) == renewed)
        #expect(try token.current() == renewed)
    }

    @Test func aClockSetBackRenewsSoIatIsNeverInTheFuture() throws {
        let time = TestTime()
        let token = try APNsProviderToken(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", now: time.read)
        let first = try token.current()
        time.advance(minutes: -0.5)
        #expect(try token.current() == first)
        time.advance(minutes: -5)
        #expect(try token.current() != first)
    }

    @Test func argumentsOutsideApplesRulesAreRefusedWithASentence() {
        #expect(throws: APNsProviderTokenError.invalidKeyID("short")) {
            _ = try APNsProviderToken(privateKey: key, keyID: "short", teamID: "DEF123GHIJ")
        }
        #expect(throws: APNsProviderTokenError.invalidTeamID("DEF 123GHI")) {
            _ = try APNsProviderToken(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF 123GHI")
        }
        for seconds in [19.0 * 60, 60.0 * 60] {
            let error = #expect(throws: APNsProviderTokenError.self) {
                _ = try APNsProviderToken(privateKey: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", refreshInterval: seconds)
            }
            #expect(error?.description.contains("20 to 59 minutes") == true)
        }
        #expect(throws: APNsProviderTokenError.self) {
            _ = try APNsProviderToken(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        }
    }

    @Test func reasonsReadApplesSpellingWithAFallback() {
        #expect(APNsReason("BadDeviceToken") == .badDeviceToken)
        #expect(APNsReason("Unregistered") == .unregistered)
        #expect(APNsReason("TooManyProviderTokenUpdates") == .tooManyProviderTokenUpdates)
        #expect(APNsReason("SomethingNew") == .other("SomethingNew"))
        #expect(APNsReason.unrelatedKeyIDInToken.text == "UnrelatedKeyIdInToken")
    }

    @Test func backoffGrowsAndIsCapped() {
        let policy = APNsRetryPolicy(maximumAttempts: 10, initialBackoff: .seconds(1), multiplier: 2, maximumBackoff: .seconds(5))
        #expect((1...5).map(policy.backoff(after:)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
    }
}
