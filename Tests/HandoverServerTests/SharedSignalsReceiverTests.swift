import Foundation
import HandoverConfiguration
import HandoverServer
import Testing

/// Handover as a Shared Signals receiver (issue 43): the organisation's identity provider, played
/// by a transmitter written on joserfc (`Tests/Peers/ssf_transmitter.py`), pushes RISC
/// account-disabled (RISC 1.0 §2.3) for a person who holds a device; the device hands over, every
/// session of the person ends, and a replayed SET does nothing. Refusals carry RFC 8935 §2.4's
/// codes. Global Token Revocation (draft-parecki-oauth-global-token-revocation) does the same.
@Suite("Shared Signals: receiver", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SharedSignalsReceiverTests {
    static let pushSecret = "Bearer handover-push-0123456789abcdef"

    /// A server that takes `transmitter`'s SETs, with Sign in with Apple for the sessions.
    static func rig(_ database: TestDatabase, transmitter: SharedSignalsPeers.Transmitter, polling: Bool = false) async throws -> (AppleRig, String) {
        let issuer = transmitter.issuer, jwks = transmitter.jwksURL
        let rig = try await AppleRig.startOnFreePort(database) { configuration, port in
            configuration.publicURL = try? ServerConfiguration.parsePublicURL("http://127.0.0.1:\(port)", setting: "test")
            try? ServerConfiguration.applySharedSignals(.init(issuer: issuer, jwksURL: jwks.absoluteString, pushAuthorization: pushSecret,
                                                              pollURL: polling ? issuer + "/poll" : nil, pollAuthorization: polling ? "Bearer poll-secret" : nil),
                                                        to: &configuration, flags: false)
        }
        return (rig, rig.test.server.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
    }

    /// A person signed in on a device they hold (custody), with a target app: what a hand-over needs.
    static func heldDevice(_ rig: AppleRig) async throws -> (device: (id: String, key: String), accessToken: String, refreshToken: String) {
        _ = try await rig.test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let device = try await rig.test.registerDevice()
        let grant = try await rig.signIn(extra: ["deviceID": device.id])
        return (device, grant["accessToken"] as? String ?? "", grant["refreshToken"] as? String ?? "")
    }

    static func runs(_ rig: AppleRig, device: String) async throws -> [[String: Any]] {
        try await rig.test.request(.GET, "/api/v1/devices/\(device)/history", key: rig.test.adminKey).array.filter { $0["event"] as? String == "run_started" }
    }

    @Test(arguments: TestDatabase.available) func accountDisabledHandsTheDeviceOverAndEndsEverySessionOnceOnly(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await Self.rig(database, transmitter: transmitter)
        let held = try await Self.heldDevice(rig)
        let backend = try await OpenIDConnectTests.register(rig.test, ["client_name": "a backend"])
        let iat = Int(rig.test.clock.now().timeIntervalSince1970)
        let set = try await transmitter.control(rig.test, "set", [
            "event_type": SharedSignalsPeers.risc + "account-disabled", "event": ["reason": "hijacking"],
            "sub_id": ["format": "email", "email": "Ward7@example.com"], "aud": issuer, "iat": iat,
        ])
        let push = try await transmitter.control(rig.test, "push", ["url": issuer + "/ssf/push", "authorization": Self.pushSecret, "set": set.json["set"] ?? ""])
        #expect(push.json["status"] as? Int == 202, "\(push.text)")
        // The run started before the 202 was sent: well within the 2 seconds asked.
        let started = try await Self.runs(rig, device: held.device.id)
        #expect(started.count == 1 && (started.first?["actor"] as? String)?.contains("account-disabled") == true, "\(started)")
        #expect(try await rig.me(held.accessToken).status == 401, "the person's session ended")
        #expect(try await rig.refresh(held.refreshToken).status == 401)
        let introspection = try await OpenIDConnectTests.form(rig.test, "/oauth/introspect", ["token": held.refreshToken], basic: (backend.id, backend.secret))
        #expect(introspection.status == 200 && introspection.json["active"] as? Bool == false, "\(introspection.text)")

        // The same SET again (RFC 8935 §2.3 lets a transmitter retry): acknowledged, nothing done.
        let replay = try await transmitter.control(rig.test, "push", ["url": issuer + "/ssf/push", "authorization": Self.pushSecret, "set": set.json["set"] ?? ""])
        #expect(replay.json["status"] as? Int == 202, "\(replay.text)")
        #expect(try await Self.runs(rig, device: held.device.id).count == 1, "a repeated jti does nothing")

        // Recorded in the audit log with its jti.
        let size = try await rig.test.server.signAuditCheckpoint() ?? 0
        let entries = try await rig.test.request(.GET, "/api/v1/audit/entries?start=0&end=\(size)", key: rig.test.adminKey)
        #expect(entries.text.contains("signals.received") && entries.text.contains(set.json["jti"] as? String ?? "?"), "\(entries.text.prefix(400))")

        // The dashboard's audit page shows what the provider sent and what it did.
        let browser = DashboardBrowser(rig.test)
        _ = try await browser.signIn(key: rig.test.adminKey)
        let page = try await browser.get("/dashboard/audit")
        #expect(page.text.contains("From the identity provider") && page.text.contains("account-disabled")
                && page.text.contains(set.json["jti"] as? String ?? "?") && page.text.contains("runs started 1"), "\(page.text.suffix(1500))")

        // An event type this receiver does not act on is acknowledged and ignored.
        let unknown = try await transmitter.control(rig.test, "push", ["url": issuer + "/ssf/push", "authorization": Self.pushSecret,
                                                                       "event_type": "https://example.com/event-type/weather", "aud": issuer, "iat": iat,
                                                                       "sub_id": ["format": "email", "email": "ward7@example.com"]])
        #expect(unknown.json["status"] as? Int == 202, "\(unknown.text)")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func refusalsCarryTheRFC8935Codes(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await Self.rig(database, transmitter: transmitter)
        let held = try await Self.heldDevice(rig)
        let now = Int(rig.test.clock.now().timeIntervalSince1970)
        let base: [String: Any] = ["url": issuer + "/ssf/push", "authorization": Self.pushSecret, "event_type": SharedSignalsPeers.risc + "account-disabled",
                                   "sub_id": ["format": "email", "email": "ward7@example.com"], "aud": issuer, "iat": now]
        let cases: [(String, [String: Any], Int, String)] = [
            ("a bad signature", ["sign_with": "unpublished"], 400, "invalid_key"),
            ("a wrong aud", ["aud": "https://someone-else.example.com"], 400, "invalid_audience"),
            ("an unknown issuer", ["iss": "https://evil.example.com"], 400, "invalid_issuer"),
            ("a stale iat", ["iat": now - 3600], 400, "invalid_request"),
            ("an iat in the future", ["iat": now + 3600], 400, "invalid_request"),
            ("a sub claim", ["claims": ["sub": "ward7"]], 400, "invalid_request"),
            ("the wrong Authorization", ["authorization": "Bearer guessed-0123456789abcdef"], 401, "authentication_failed"),
            ("no Authorization", ["authorization": NSNull()], 401, "authentication_failed"),
            ("the wrong Content-Type", ["content_type": "application/json"], 400, "invalid_request"),
        ]
        for (what, change, status, err) in cases {
            let reply = try await transmitter.control(rig.test, "push", base.merging(change) { $1 })
            let body = reply.json["body"] as? [String: Any]
            #expect(reply.json["status"] as? Int == status && body?["err"] as? String == err, "\(what): \(reply.text)")
            #expect(body?["description"] is String, "\(what): RFC 8935 §2.3's description")
        }
        #expect(try await Self.runs(rig, device: held.device.id).isEmpty, "no refused SET started a run")
        #expect(try await rig.me(held.accessToken).status == 200, "no refused SET ended a session")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func globalTokenRevocationEndsThePersonsSessions(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await Self.rig(database, transmitter: transmitter)
        let held = try await Self.heldDevice(rig)
        let url = issuer + "/oauth/global-token-revocation"
        let now = Int(rig.test.clock.now().timeIntervalSince1970)
        let forged = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": ["format": "email", "email": "ward7@example.com"],
                                                                     "sign_with": "unpublished", "iat": now, "exp": now + 300])
        #expect(forged.json["status"] as? Int == 401, "\(forged.text)")
        let nobody = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": ["format": "email", "email": "nobody@example.com"],
                                                                     "iat": now, "exp": now + 300, "claims": ReplayTests.scope])
        #expect(nobody.json["status"] as? Int == 404, "\(nobody.text)")
        #expect(try await rig.me(held.accessToken).status == 200)
        let revoked = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": ["format": "email", "email": "ward7@example.com"],
                                                                      "iat": now, "exp": now + 300, "claims": ReplayTests.scope])
        #expect(revoked.json["status"] as? Int == 204, "\(revoked.text)")
        #expect(try await rig.me(held.accessToken).status == 401)
        #expect(try await Self.runs(rig, device: held.device.id).count == 1, "the device they held hands over")
        try await rig.stop()
    }

    /// RFC 8936 the other way: this server polls the provider's endpoint, acts on what it gets,
    /// acknowledges it in the next poll, and reports a SET it refused in `setErrs`.
    @Test(arguments: TestDatabase.available) func pollingTheProviderActsAcknowledgesAndReportsRefusals(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await Self.rig(database, transmitter: transmitter, polling: true)
        let held = try await Self.heldDevice(rig)
        let iat = Int(rig.test.clock.now().timeIntervalSince1970)
        let good = try await transmitter.control(rig.test, "queue", ["event_type": SharedSignalsPeers.caep + "session-revoked", "aud": issuer, "iat": iat,
                                                                     "sub_id": ["format": "complex", "user": ["format": "email", "email": "ward7@example.com"]]])
        let forged = try await transmitter.control(rig.test, "queue", ["event_type": SharedSignalsPeers.risc + "account-purged", "aud": issuer, "iat": iat,
                                                                       "sub_id": ["format": "email", "email": "ward7@example.com"], "sign_with": "unpublished"])
        #expect(try await rig.test.server.pollIdentityProvider() == 2)
        #expect(try await Self.runs(rig, device: held.device.id).count == 1, "the session-revoked SET handed the device over")
        #expect(try await rig.me(held.accessToken).status == 401)
        #expect(try await rig.test.server.pollIdentityProvider() == 0, "nothing more is waiting")
        let acks = try await transmitter.control(rig.test, "acks")
        #expect(acks.json["acked"] as? [String] == [good.json["jti"] as? String ?? "?"], "\(acks.text)")
        let errors = acks.json["setErrs"] as? [String: [String: Any]] ?? [:]
        #expect(errors[forged.json["jti"] as? String ?? "?"]?["err"] as? String == "invalid_key", "\(acks.text)")
        #expect((acks.json["pending"] as? [Any])?.isEmpty == true)
        try await rig.stop()
    }

    @Test func withoutATransmitterThePushEndpointSaysSo() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/ssf/push", headers: [("Content-Type", "application/secevent+jwt")], body: "a.b.c")
            #expect(reply.status == 404 && reply.json["error"] as? String == "not_configured" && reply.text.contains("HANDOVER_SSF_TRANSMITTER_ISSUER"),
                    "\(reply.text)")
        }
    }
}
