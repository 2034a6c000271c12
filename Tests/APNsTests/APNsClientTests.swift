import APNs
import APNsTestServer
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import OutOfBand
import Testing

/// The client against a local APNs over HTTP/2 and TLS: serialized, since each test starts a server.
@Suite(.serialized, .timeLimit(.minutes(5))) struct APNsClientTests {
    @Test func headersAndProviderTokenPassTheServersChecks() async throws {
        try await Harness.run { h in
            let apnsID = UUID()
            let outcome = try await h.client().send(deviceToken: Harness.deviceToken, payload: Harness.payload, topic: Harness.topic,
                                                    pushType: .alert, priority: .immediate,
                                                    expiration: .at(Date(timeIntervalSince1970: 1_750_000_300.9)),
                                                    collapseID: "op_123", apnsID: apnsID)
            #expect(outcome == .delivered(apnsID: apnsID.uuidString.lowercased()))
            let request = try #require(h.server.requests.first)
            #expect(h.server.requests.count == 1)
            #expect(request.status == 200)
            #expect(request.httpVersion == "HTTP/2")
            #expect(request.method == "POST")
            #expect(request.path == "/3/device/\(Harness.deviceToken)")
            #expect(request.headers["apns-topic"] == Harness.topic)
            #expect(request.headers["apns-push-type"] == "alert")
            #expect(request.headers["apns-priority"] == "10")
            #expect(request.headers["apns-expiration"] == "1750000300")
            #expect(request.headers["apns-collapse-id"] == "op_123")
            #expect(request.headers["apns-id"] == apnsID.uuidString.lowercased())
            #expect(request.headers["authorization"]?.hasPrefix("bearer ") == true)
            #expect(request.payload == Harness.payload)
            let jwt = try #require(request.providerToken)
            let header = try jwtPart(jwt, 0), claims = try jwtPart(jwt, 1)
            #expect(header["alg"] as? String == "ES256")
            #expect(header["kid"] as? String == Harness.keyID)
            #expect(claims["iss"] as? String == Harness.teamID)
            #expect((claims["iat"] as? NSNumber)?.int64Value == 1_750_000_000)
            #expect(claims.count == 2)
        }
    }

    @Test func providerTokenIsReusedAcrossSendsThenRenewedAfterTheReuseWindow() async throws {
        try await Harness.run { h in
            _ = try await h.send()
            h.time.advance(minutes: 20)
            _ = try await h.send()
            h.time.advance(minutes: 29)      // 49 minutes old: still reused
            _ = try await h.send()
            h.time.advance(minutes: 2)       // 51 minutes old: renewed
            _ = try await h.send()
            h.time.advance(minutes: 30)
            _ = try await h.send()
            let tokens = h.server.requests.map(\.providerToken)
            #expect(h.server.requests.allSatisfy { $0.status == 200 })
            #expect(tokens[0] == tokens[1] && tokens[1] == tokens[2])
            #expect(tokens[3] != tokens[2])
            #expect(tokens[4] == tokens[3])
            #expect((try jwtPart(try #require(tokens[3]), 1)["iat"] as? NSNumber)?.int64Value == 1_750_000_000 + 51 * 60)
        }
    }

    @Test func unregisteredTokenIsReportedForDeactivationWithAppleTimestamp() async throws {
        try await Harness.run { h in
            let since = Date(timeIntervalSince1970: 1_749_990_000.123)
            h.server.script(deviceToken: Harness.deviceToken, [.unregistered(since: since)])
            let outcome = try await h.send()
            guard case .unregistered(let reported, let apnsID) = outcome else { Issue.record("\(outcome)"); return }
            #expect(abs((reported?.timeIntervalSince1970 ?? 0) - since.timeIntervalSince1970) < 0.001)
            #expect(apnsID != nil)
            #expect(h.server.requests.count == 1)
            #expect(h.sleeper.sleeps.isEmpty)
            // Apple keeps answering 410 for the token; the client never retries it.
            _ = try await h.send()
            #expect(h.server.requests.map(\.status) == [410, 410])
        }
    }

    @Test func badDeviceTokenIsNeverRetried() async throws {
        try await Harness.run { h in
            let error = await #expect(throws: APNsError.self) { _ = try await h.send("abcd") }
            guard case .rejected(400, .badDeviceToken, _) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(h.server.requests.count == 1)
            #expect(h.sleeper.sleeps.isEmpty)
        }
    }

    @Test func tooManyRequestsAndServerErrorsAreRetriedWithExponentialBackoff() async throws {
        try await Harness.run { h in
            h.server.script(deviceToken: Harness.deviceToken, [.tooManyRequests, .internalServerError])
            let outcome = try await h.send()
            guard case .delivered = outcome else { Issue.record("\(outcome)"); return }
            #expect(h.server.requests.map(\.status) == [429, 500, 200])
            #expect(h.sleeper.sleeps == [.seconds(1), .seconds(2)])
            #expect(Set(h.server.requests.compactMap { $0.headers["apns-id"] }).count == 1)
        }
    }

    @Test func retriesStopAtTheConfiguredAttemptsWithATypedError() async throws {
        try await Harness.run { h in
            h.server.script(deviceToken: Harness.deviceToken, Array(repeating: .serviceUnavailable, count: 5))
            let error = await #expect(throws: APNsError.self) { _ = try await h.send(client: h.client(attempts: 4)) }
            #expect(error == .gaveUp(attempts: 4, lastFailure: .status(503, .serviceUnavailable)))
            #expect(h.server.requests.count == 4)
            #expect(h.sleeper.sleeps == [.seconds(1), .seconds(2), .seconds(4)])
        }
    }

    @Test func expiredProviderTokenIsRenewedOnceAndTheSendRetried() async throws {
        try await Harness.run { h in
            _ = try await h.send()
            h.server.script(deviceToken: Harness.deviceToken, [.expiredProviderToken])
            let outcome = try await h.send()
            guard case .delivered = outcome else { Issue.record("\(outcome)"); return }
            let requests = h.server.requests
            #expect(requests.map(\.status) == [200, 403, 200])
            #expect(requests[1].providerToken == requests[0].providerToken)
            #expect(requests[2].providerToken != requests[1].providerToken)
            #expect(h.sleeper.sleeps.isEmpty)
        }
    }

    @Test func aTokenTheServerStillFindsExpiredAfterOneRenewalIsATypedRejection() async throws {
        // The server's clock is two hours ahead: every token the client signs is too old for it.
        try await Harness.run(serverClockOffsetMinutes: 120) { h in
            let error = await #expect(throws: APNsError.self) { _ = try await h.send() }
            guard case .rejected(403, .expiredProviderToken, _) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(h.server.requests.count == 2)
        }
    }

    @Test func aKeyTheServerDoesNotKnowIsRejectedWithoutRenewal() async throws {
        try await Harness.run { h in
            let stranger = try APNsProviderToken(privateKey: P256.Signing.PrivateKey(), keyID: Harness.keyID, teamID: Harness.teamID,
                                                 now: h.time.read)
            let error = await #expect(throws: APNsError.self) { _ = try await h.send(client: h.client(token: stranger)) }
            guard case .rejected(403, .invalidProviderToken, _) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(h.server.requests.count == 1)
        }
    }

    @Test func payloadOverTheLimitIsRefusedBeforeSending() async throws {
        try await Harness.run { h in
            let payload = Data(repeating: UInt8(ascii: "x"), count: 4097)
            let error = await #expect(throws: APNsError.self) { _ = try await h.send(payload: payload) }
            #expect(error == .payloadTooLarge(bytes: 4097, limit: 4096))
            #expect(h.server.requests.isEmpty)
            _ = try await h.send(payload: Data(repeating: UInt8(ascii: "x"), count: 4096))
            #expect(h.server.requests.map(\.status) == [200])
        }
    }

    @Test func invalidArgumentsAreRefusedBeforeSending() async throws {
        try await Harness.run { h in
            for (token, topic, type, priority) in [("xyz", Harness.topic, APNsPushType.alert, APNsPriority.immediate),
                                                   (Harness.deviceToken, "", .alert, .immediate),
                                                   (Harness.deviceToken, "com.example app", .alert, .immediate),
                                                   (Harness.deviceToken, Harness.topic, .background, .immediate)] {
                await #expect(throws: APNsError.self) {
                    _ = try await h.client().send(deviceToken: token, payload: Harness.payload, topic: topic, pushType: type, priority: priority)
                }
            }
            #expect(h.server.requests.isEmpty)
        }
    }

    /// AsyncHTTPClient keeps trying to connect until the request's deadline, so each attempt takes the timeout.
    @Test func noAnswerIsRetriedThenReportedAsATransportFailure() async throws {
        try await Harness.run { h in
            let closed = try await APNsTestServer.start()
            let url = closed.baseURL
            try await closed.shutdown()
            let error = await #expect(throws: APNsError.self) { _ = try await h.send(client: h.client(attempts: 2, baseURL: url, timeout: .seconds(1))) }
            guard case .gaveUp(2, .transport) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(h.sleeper.sleeps == [.seconds(1)])
        }
    }

    @Test func anOutOfBandPushTravelsSealedAndOpensOnTheDevice() async throws {
        try await Harness.run { h in
            let device = DeviceKeys.generate()
            let envelope = try OperationEnvelope(
                operation: "op_1", type: .transactionConfirmation, redeemURL: URL(string: "https://handover.example.com/oob/op_1/redeem")!,
                challenge: .random(), expiresAt: h.time.now.addingTimeInterval(300), message: "Pay 25.00 EUR to Example Shop")
            let body = try OperationPush(payload: try .sealed(envelope, to: device.publicKeys), title: "Approve payment?").json()
            let outcome = try await h.client().send(deviceToken: Harness.deviceToken, payload: body, topic: Harness.topic,
                                                    expiration: .at(envelope.expiresAt), collapseID: envelope.operation)
            guard case .delivered = outcome else { Issue.record("\(outcome)"); return }
            let received = try #require(h.server.requests.first)
            #expect(received.headers["apns-expiration"] == String(Int(envelope.expiresAt.timeIntervalSince1970)))
            let userInfo = try #require(try JSONSerialization.jsonObject(with: received.payload) as? [String: Any])
            #expect(try OperationDelivery(pushUserInfo: userInfo).payload.open(with: device) == envelope)
            #expect(!String(decoding: received.payload, as: UTF8.self).contains("Example Shop"))
        }
    }
}
