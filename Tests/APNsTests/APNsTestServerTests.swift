import APNs
import APNsTestServer
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The test server's own checks, by raw requests the client would never send.
@Suite(.serialized, .timeLimit(.minutes(5))) struct APNsTestServerTests {
    func post(_ h: Harness, path: String = "/3/device/\(Harness.deviceToken)", headers: [(String, String)],
              body: Data = Harness.payload) async throws -> (Int, String?) {
        var request = HTTPClientRequest(url: h.server.baseURL.absoluteString + path)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await h.httpClient.execute(request, timeout: .seconds(10))
        #expect(response.version == .http2)
        let data = Data(try await response.body.collect(upTo: 1 << 16).readableBytesView)
        let reason = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["reason"] as? String
        return (Int(response.status.code), reason)
    }

    @Test func eachMissingOrWrongPieceGetsApplesReason() async throws {
        try await Harness.run { h in
            let jwt = try h.token.current()
            let good = [("authorization", "bearer \(jwt)"), ("apns-topic", Harness.topic), ("apns-push-type", "alert")]
            func without(_ name: String) -> [(String, String)] { good.filter { $0.0 != name } }
            #expect(try await post(h, headers: good) == (200, nil))
            #expect(try await post(h, headers: without("authorization")) == (403, "MissingProviderToken"))
            #expect(try await post(h, headers: without("authorization") + [("authorization", "bearer a.b.c")]) == (403, "InvalidProviderToken"))
            #expect(try await post(h, headers: without("apns-topic")) == (400, "MissingTopic"))
            #expect(try await post(h, headers: without("apns-push-type")) == (400, "InvalidPushType"))
            #expect(try await post(h, headers: good + [("apns-priority", "7")]) == (400, "BadPriority"))
            #expect(try await post(h, headers: good + [("apns-id", "not-a-uuid")]) == (400, "BadMessageId"))
            #expect(try await post(h, path: "/3/device/abc", headers: good) == (400, "BadDeviceToken"))
            #expect(try await post(h, path: "/2/device/\(Harness.deviceToken)", headers: good) == (404, "BadPath"))
            #expect(try await post(h, headers: good, body: Data(count: 4097)) == (413, "PayloadTooLarge"))
            #expect(try await post(h, headers: good, body: Data()) == (400, "PayloadEmpty"))
        }
    }

    @Test func aTokenOlderThanAnHourIsExpiredAndAnotherTeamsIsInvalid() async throws {
        try await Harness.run { h in
            let jwt = try h.token.current()
            let headers = [("authorization", "bearer \(jwt)"), ("apns-topic", Harness.topic), ("apns-push-type", "alert")]
            h.time.advance(minutes: 61)
            #expect(try await post(h, headers: headers) == (403, "ExpiredProviderToken"))
            let otherTeam = try APNsProviderToken(privateKey: h.key, keyID: Harness.keyID, teamID: "OTHER12345", now: h.time.read)
            let forged = [("authorization", "bearer \(try otherTeam.current())"), ("apns-topic", Harness.topic), ("apns-push-type", "alert")]
            #expect(try await post(h, headers: forged) == (403, "InvalidProviderToken"))
        }
    }

    @Test func renewingTheTokenWithinTwentyMinutesIsTooManyUpdates() async throws {
        try await Harness.run { h in
            let first = try APNsProviderToken(privateKey: h.key, keyID: Harness.keyID, teamID: Harness.teamID, now: h.time.read)
            _ = try await h.send(client: h.client(token: first))
            h.time.advance(minutes: 5)
            // A second provider process with its own token for the same key.
            let second = try APNsProviderToken(privateKey: h.key, keyID: Harness.keyID, teamID: Harness.teamID, now: h.time.read)
            let error = await #expect(throws: APNsError.self) { _ = try await h.send(client: h.client(attempts: 1, token: second)) }
            #expect(error == .gaveUp(attempts: 1, lastFailure: .status(429, .tooManyProviderTokenUpdates)))
        }
    }
}
