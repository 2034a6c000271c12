import Foundation
import HandoverClient
import Testing

/// Push fatigue: a sign-in asks the person to type the code the other screen shows (no numbers to
/// tap), and "this was not me" marks the request suspicious, alerts the IT team by webhook, and
/// locks out-of-band sign-in for the user until an admin clears it.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct PushFatigueTests {
    @Test("this was not me: suspicious, a webhook, and sign-in locked until an admin clears it", arguments: TestDatabase.available)
    func reportingLocksSignIn(_ database: TestDatabase) async throws {
        let receiver = try await WebhookReceiver.start()
        try await OutOfBandRig.run(database) { rig in
            let hook = try await rig.test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["operation.suspicious"]],
                                                  key: rig.test.adminKey)
            let secret = try #require(hook.json["secret"] as? String)
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let operation = try await rig.created("authentication")
            let id = try #require(operation["id"] as? String)
            let pending = try phone.client.receive(link: try #require(OutOfBandRig.link(operation)))
            guard case .denied(_, _, recorded: true) = try await pending.reportNotMe() else { Issue.record("not recorded"); return }
            #expect(try await rig.status(id)["status"] as? String == "cancelled")

            // The IT team hears of it, signed.
            #expect(try await rig.test.server.deliverWebhooks() == 1)
            let delivery = try #require(receiver.deliveries.first)
            #expect(delivery.event == "operation.suspicious")
            #expect(delivery.isSigned(with: secret))
            let payload = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
            let reported = try #require(payload["operation"] as? [String: Any])
            #expect(reported["id"] as? String == id && reported["user"] as? String == "alice" && reported["deviceID"] as? String == phone.deviceID)

            // The user's out-of-band sign-in is locked: no new request reaches the phone.
            let locks = try await rig.test.request(.GET, "/api/v1/oob-locks", key: rig.test.adminKey).array
            #expect(locks.map { $0["user"] as? String } == ["alice"])
            let refused = try await rig.create("authentication")
            #expect(refused.status == 409 && refused.json["error"] as? String == "user_locked", "\(refused.text)")
            // The web page answers as for anyone, without sending anything.
            let page = try await rig.test.request(.POST, "/oob/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "user=alice")
            #expect(page.status == 303)

            // An admin clears it; sign-in works again.
            #expect(try await rig.test.request(.DELETE, "/api/v1/oob-locks/alice", key: rig.test.adminKey).status == 204)
            #expect(try await rig.test.request(.DELETE, "/api/v1/oob-locks/alice", key: rig.test.adminKey).status == 404)
            let again = try await rig.created("authentication")
            let number = try #require(again["number"] as? Int)
            let next = try phone.client.receive(link: try #require(OutOfBandRig.link(again)))
            guard case .approved = try await next.approve(number: number) else { Issue.record("not approved"); return }
        }
        try await receiver.stop()
    }
}
