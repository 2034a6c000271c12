import AsyncHTTPClient
import DeviceSimulator
import Foundation
import HandoverClient
import HandoverServer
import NIOCore
import OutOfBand
import Testing

/// Out-of-band operations end to end: a real server on loopback, a phone with its own keys
/// (``OutOfBandClient`` over URLSession), and for push a local APNs-protocol server.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct OutOfBandOperationTests {
    @Test("enroll by link, then sign in by link with the right number", arguments: TestDatabase.available)
    func enrollThenAuthenticateByLink(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let devices = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=alice", key: rig.test.adminKey)
            #expect(devices.array.map { $0["id"] as? String } == [phone.deviceID])

            let operation = try await rig.created("authentication")
            let id = try #require(operation["id"] as? String)
            let number = try #require(operation["number"] as? Int)
            #expect(operation["status"] as? String == "dispatched")
            let link = try #require(OutOfBandRig.link(operation))
            #expect(link.absoluteString.hasPrefix(rig.test.server.publicURL.absoluteString + "/oob/open#p=v1.e."), "sealed to the phone")

            let pending = try phone.client.receive(link: link)
            #expect(pending.type == .authentication)
            #expect(pending.asksForCode && pending.numberChoices == nil, "the phone offers no numbers to tap: the person types the code")
            let result = try await pending.approve(number: number)
            guard case .approved = result else { Issue.record("\(result)"); return }
            let final = try await rig.status(id)
            #expect(final["status"] as? String == "succeeded")
            #expect(final["answeredBy"] as? String == phone.deviceID)

            // The event stream of a finished operation sends the final state and ends.
            let events = try await rig.test.request(.GET, "/api/v1/operations/\(id)/events", key: rig.test.adminKey)
            #expect(events.headers.first(name: "content-type") == "text/event-stream")
            #expect(events.text.contains("event: operation"))
            #expect(events.text.contains(#""status":"succeeded""#))
        }
    }

    @Test("QR: the served PNG, decoded by zbarimg, drives the phone", arguments: TestDatabase.available)
    func qrCodeDecodedByZbar(_ database: TestDatabase) async throws {
        guard let zbarimg = Zbar.path else {
            print("SKIP QR decoding: zbarimg is not installed (apt-get install zbar-tools; bash .ci/run does)")
            return
        }
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            // Enrollment by QR code too: the plain registration payload.
            let registration = try await rig.created("registration", dispatcher: "qr")
            let registrationText = try await Zbar.decode(rig: rig, operation: registration, zbarimg: zbarimg)
            guard case .approved = try await phone.client.receive(qrText: registrationText).approve() else {
                Issue.record("registration by QR was not approved"); return
            }

            let operation = try await rig.created("authentication", dispatcher: "qr")
            let svg = try await rig.test.request(.GET, "/api/v1/operations/\(operation["id"] as? String ?? "")/qr.svg", key: rig.test.adminKey)
            #expect(svg.status == 200)
            #expect(svg.headers.first(name: "content-type") == "image/svg+xml")
            let text = try await Zbar.decode(rig: rig, operation: operation, zbarimg: zbarimg)
            #expect(text.hasPrefix(rig.test.server.publicURL.absoluteString + "/oob/open#p=v1.e."))
            let pending = try phone.client.receive(qrText: text)
            #expect(pending.channel == .qrCode)
            _ = try await pending.approve(number: operation["number"] as? Int)
            #expect(try await rig.status(operation["id"] as? String ?? "")["status"] as? String == "succeeded")

            // Once answered, the QR code is gone.
            let after = try await rig.test.request(.GET, "/api/v1/operations/\(operation["id"] as? String ?? "")/qr.png", key: rig.test.adminKey)
            #expect(after.status == 410)
        }
    }

    @Test("x-callback link: a denial is cancelled and opens x-cancel at once", arguments: TestDatabase.available)
    func xCallbackDenial(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let refused = try await rig.create("transaction-confirmation", dispatcher: "x-callback-link", message: "Pay 25.00 EUR to Ward 7 kiosk",
                                               callbacks: ["success": "https://shop.example/done", "cancel": "shop://x-callback-url/cancelled"])
            #expect(refused.status == 422, "nothing is allowlisted yet")
            #expect(refused.json["field"] as? String == "callbacks.success")

            let allow = try await rig.test.request(.PUT, "/api/v1/operations/callback-allowlist",
                                                   json: ["hosts": ["shop.example"], "schemes": ["shop"]], key: rig.test.adminKey)
            #expect(allow.status == 200, "\(allow.text)")
            let operation = try await rig.created("transaction-confirmation", dispatcher: "x-callback-link", message: "Pay 25.00 EUR to Ward 7 kiosk",
                                                  callbacks: ["success": "https://shop.example/done", "cancel": "shop://x-callback-url/cancelled"])
            let link = try #require(OutOfBandRig.link(operation))
            #expect(link.scheme == "handover")
            #expect(link.absoluteString.contains("x-cancel=shop%3A%2F%2Fx-callback-url%2Fcancelled"))
            let pending = try phone.client.receive(link: link)
            #expect(pending.message == "Pay 25.00 EUR to Ward 7 kiosk")
            let result = try await pending.deny()
            guard case .denied(let target, true, true) = result else { Issue.record("\(result)"); return }
            #expect(target?.absoluteString == "shop://x-callback-url/cancelled")
            #expect(phone.opener.urls.map(\.absoluteString) == ["shop://x-callback-url/cancelled"])
            #expect(try await rig.status(operation["id"] as? String ?? "")["status"] as? String == "cancelled")
            let events = try await rig.test.request(.GET, "/api/v1/operations/\(operation["id"] as? String ?? "")/events", key: rig.test.adminKey)
            #expect(events.text.contains(#""status":"cancelled""#))
        }
    }

    @Test("push: delivered through the APNs protocol, approved from the push's userInfo; 410 turns the token off", arguments: TestDatabase.available)
    func pushDispatch(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database, push: true) { rig in
            let apns = try #require(rig.apns)
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let noToken = try await rig.create("authentication", dispatcher: "push")
            #expect(noToken.status == 422)
            #expect(noToken.json["error"] as? String == "no_push_token")

            let token = String(repeating: "ab", count: 32)
            let registered = try await rig.registerPushToken(phone, token: token)
            #expect(registered.status == 200, "\(registered.text)")
            #expect(registered.json["pushTokenActive"] as? Bool == true)

            let operation = try await rig.created("authentication", dispatcher: "push")
            #expect(operation["status"] as? String == "dispatched")
            #expect((operation["dispatch"] as? [String: Any]).flatMap { $0["push"] as? [String: Any] }?["outcome"] as? String == "delivered")
            let push = try #require(apns.requests(for: token).last)
            #expect(push.headers["apns-topic"] == OutOfBandRig.topic)
            #expect(push.headers["apns-push-type"] == "alert")
            #expect(push.payload.count <= 4096)
            let userInfo = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [AnyHashable: Any])
            let pending = try phone.client.receive(pushUserInfo: userInfo)
            #expect(pending.channel == .push)
            _ = try await pending.approve(number: operation["number"] as? Int)
            #expect(try await rig.status(operation["id"] as? String ?? "")["status"] as? String == "succeeded")

            // APNs says the token is dead: the operation stays undispatched and the token is off.
            apns.script(deviceToken: token, [.status(410, reason: "Unregistered")])
            let second = try await rig.created("authentication", dispatcher: "push")
            #expect(second["status"] as? String == "created")
            #expect((second["dispatch"] as? [String: Any]).flatMap { $0["push"] as? [String: Any] }?["outcome"] as? String == "unregistered")
            let devices = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=alice", key: rig.test.adminKey)
            #expect(devices.array.first?["pushTokenActive"] as? Bool == false)
            let third = try await rig.create("authentication", dispatcher: "push")
            #expect(third.json["error"] as? String == "no_push_token")
        }
    }

    @Test("a wrong code leaves tries, the third fails the operation for good", arguments: TestDatabase.available)
    func wrongNumber(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let operation = try await rig.created("authentication")
            let id = operation["id"] as? String ?? ""
            let number = try #require(operation["number"] as? Int)
            let pending = try phone.client.receive(link: try #require(OutOfBandRig.link(operation)))
            let wrong = number == 99 ? 10 : number + 1
            for left in [2, 1] {
                let result = try await pending.approve(number: wrong)
                guard case .failed(.rejected(422, "wrong_code", let reason), _) = result else { Issue.record("\(result)"); return }
                #expect(reason.contains("\(left) tr"), "\(reason)")
                #expect(try await rig.status(id)["status"] as? String == "dispatched")
            }
            let result = try await pending.approve(number: wrong)
            guard case .failed(.rejected(403, "wrong_number", _), _) = result else { Issue.record("\(result)"); return }
            let final = try await rig.status(id)
            #expect(final["status"] as? String == "failed")
            #expect((final["failure"] as? [String: Any])?["code"] as? String == "wrong_number")
            let events = try await rig.test.request(.GET, "/api/v1/operations/\(id)/events", key: rig.test.adminKey)
            #expect(events.text.contains(#""status":"failed""#))

            // The right number afterwards changes nothing.
            let answer = try RedeemRequest(signing: OperationAnswer(envelope: pending.envelope, deviceID: phone.deviceID, decision: .approve,
                                                                    number: number, keys: nil), with: phone.keys)
            let late = try await rig.redeem(id, body: answer.json())
            #expect(late.status == 409)
            #expect(try await rig.status(id)["status"] as? String == "failed")
        }
    }

    /// Alice's phone, Bob's phone, and a transaction confirmation addressed to Alice's phone.
    struct Hostile {
        let rig: OutOfBandRig
        let phone: TestPhone
        let other: TestPhone
        let id: String
        let envelope: OperationEnvelope

        static func run(_ database: TestDatabase, _ body: (Hostile) async throws -> Void) async throws {
            try await OutOfBandRig.run(database) { rig in
                let phone = try rig.phone()
                let other = try rig.phone()
                try await rig.enroll(phone)
                try await rig.enroll(other, user: "bob")
                let operation = try await rig.created("transaction-confirmation", message: "Release 3 units of morphine to Ward 7")
                let envelope = try phone.client.receive(link: try #require(OutOfBandRig.link(operation))).envelope
                try await body(Hostile(rig: rig, phone: phone, other: other, id: operation["id"] as? String ?? "", envelope: envelope))
            }
        }

        func signed(_ keys: DeviceKeys, as device: String, decision: OperationDecision = .approve, message: String? = nil) throws -> RedeemRequest {
            var answer = OperationAnswer(envelope: envelope, deviceID: device, decision: decision, number: nil, keys: nil)
            if let message { answer.messageDigest = OperationAnswer.digest(message) }
            return try RedeemRequest(signing: answer, with: keys)
        }

        func status() async throws -> String? { try await rig.status(id)["status"] as? String }
    }

    @Test("a tampered answer never succeeds and leaves the operation open", arguments: TestDatabase.available)
    func tamperedAnswer(_ database: TestDatabase) async throws {
        try await Hostile.run(database) { h in
            // A flipped decision under the denial's signature, another challenge, a signature over another message.
            var flipped = try h.signed(h.phone.keys, as: h.phone.deviceID, decision: .deny)
            flipped.decision = .approve
            var otherChallenge = try h.signed(h.phone.keys, as: h.phone.deviceID)
            otherChallenge.challenge = .random()
            let otherMessage = try h.signed(h.phone.keys, as: h.phone.deviceID, message: "Release 30 units of morphine to Ward 7")
            for (body, code) in [(flipped, "bad_signature"), (otherChallenge, "challenge_mismatch"), (otherMessage, "bad_signature")] {
                let reply = try await h.rig.redeem(h.id, body: body.json())
                #expect(reply.status == 403)
                #expect(reply.json["error"] as? String == code)
            }
            let garbage = try await h.rig.redeem(h.id, body: Data(#"{"operation":1}"#.utf8))
            #expect(garbage.status == 400)
            #expect(garbage.json["field"] as? String != nil)
            #expect(try await h.status() == "dispatched", "refusals leave the operation open")
            // The untampered answer still goes through.
            #expect(try await h.rig.redeem(h.id, body: try h.signed(h.phone.keys, as: h.phone.deviceID).json()).status == 200)
        }
    }

    @Test("an answer from another device never succeeds", arguments: TestDatabase.available)
    func wrongDeviceAnswer(_ database: TestDatabase) async throws {
        try await Hostile.run(database) { h in
            // Bob's phone signs with its own enrolled key, or claims Alice's id with its key.
            let wrongDevice = try await h.rig.redeem(h.id, body: try h.signed(h.other.keys, as: h.other.deviceID).json())
            #expect(wrongDevice.status == 403)
            #expect(wrongDevice.json["error"] as? String == "wrong_device")
            let impostor = try await h.rig.redeem(h.id, body: try h.signed(h.other.keys, as: h.phone.deviceID).json())
            #expect(impostor.status == 403)
            #expect(impostor.json["error"] as? String == "bad_signature")
            let stranger = DeviceKeys.generate()
            let unknown = try await h.rig.redeem(h.id, body: try h.signed(stranger, as: stranger.publicKeys.fingerprint).json())
            #expect(unknown.status == 403)
            #expect(try await h.status() == "dispatched")
        }
    }

    @Test("a replayed answer is refused and changes nothing", arguments: TestDatabase.available)
    func replayedAnswer(_ database: TestDatabase) async throws {
        try await Hostile.run(database) { h in
            let deny = try h.signed(h.phone.keys, as: h.phone.deviceID, decision: .deny).json()
            #expect(try await h.rig.redeem(h.id, body: deny).status == 200)
            #expect(try await h.status() == "cancelled")
            for body in [deny, try h.signed(h.phone.keys, as: h.phone.deviceID).json()] {
                let replay = try await h.rig.redeem(h.id, body: body)
                #expect(replay.status == 409)
                #expect(replay.json["error"] as? String == "already_answered")
            }
            #expect(try await h.status() == "cancelled", "an approval replayed after the denial does not succeed")
        }
    }

    @Test("a late answer is refused and the operation expires", arguments: TestDatabase.available)
    func lateAnswer(_ database: TestDatabase) async throws {
        try await Hostile.run(database) { h in
            let short = try await h.rig.created("authentication", expiresIn: 30)
            let envelope = try h.phone.client.receive(link: try #require(OutOfBandRig.link(short))).envelope
            h.rig.clock.advance(by: 31)
            let answer = try RedeemRequest(signing: OperationAnswer(envelope: envelope, deviceID: h.phone.deviceID, decision: .approve,
                                                                    number: short["number"] as? Int, keys: nil), with: h.phone.keys)
            let late = try await h.rig.redeem(short["id"] as? String ?? "", body: answer.json())
            #expect(late.status == 410)
            #expect(late.json["error"] as? String == "expired")
            #expect(try await h.rig.status(short["id"] as? String ?? "")["status"] as? String == "expired")
        }
    }

    @Test("expiry: the scheduler expires unanswered operations and the stream shows it", arguments: TestDatabase.available)
    func expiryReachesTheStream(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let operation = try await rig.created("authentication", expiresIn: 5)
            let id = operation["id"] as? String ?? ""
            let events = try await EventStream.open(rig.test, "/api/v1/operations/\(id)/events", key: rig.test.adminKey)
            #expect(try await events.next()["status"] as? String == "dispatched")
            rig.clock.advance(by: 6)
            #expect(try await rig.test.server.expireOperations() == 1)
            let expired = try await events.next()
            #expect(expired["status"] as? String == "expired")
            #expect((expired["failure"] as? [String: Any])?["code"] as? String == "expired")
            // The phone refuses it too, before showing it.
            #expect(throws: OutOfBandClientError.self) { _ = try phone.client.receive(link: try #require(OutOfBandRig.link(operation))) }
        }
    }

    @Test("deregistration is an operation; after it the phone gets nothing", arguments: TestDatabase.available)
    func deregistration(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let operation = try await rig.created("deregistration")
            _ = try await phone.client.receive(link: try #require(OutOfBandRig.link(operation))).approve()
            #expect(try await rig.status(operation["id"] as? String ?? "")["status"] as? String == "succeeded")
            let next = try await rig.create("authentication")
            #expect(next.status == 422)
            #expect(next.json["error"] as? String == "no_enrolled_device")
        }
    }

    @Test("every bad field of a new operation is named", arguments: TestDatabase.available)
    func inputValidation(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            try await rig.enroll(try rig.phone())
            let cases: [([String: Any], String)] = [
                (["type": "login", "user": "alice", "dispatcher": "link"], "type"),
                (["type": "authentication", "user": "", "dispatcher": "link"], "user"),
                (["type": "authentication", "user": "alice", "dispatcher": "fax"], "dispatcher"),
                (["type": "registration", "user": "alice", "dispatcher": "push"], "dispatcher"),
                (["type": "authentication", "user": "alice", "dispatcher": "link", "expiresIn": 0], "expiresIn"),
                (["type": "authentication", "user": "alice", "dispatcher": "link", "expiresIn": 601], "expiresIn"),
                (["type": "authentication", "user": "alice", "dispatcher": "link", "message": "hi"], "message"),
                (["type": "transaction-confirmation", "user": "alice", "dispatcher": "link"], "message"),
                (["type": "authentication", "user": "alice", "dispatcher": "link", "callbacks": ["success": "javascript:alert(1)"]], "callbacks.success"),
                (["type": "authentication", "user": "alice", "dispatcher": "push"], "dispatcher"),
                (["type": "authentication", "user": "nobody", "dispatcher": "link"], "user"),
            ]
            // A value past a bound openapi.yaml declares (user's length, expiresIn's range) is a 400
            // at the edge (`out_of_bounds`); the rest are the service's 422.
            let declared: Set<String> = ["user:", "expiresIn:0", "expiresIn:601"]
            for (body, field) in cases {
                let reply = try await rig.test.request(.POST, "/api/v1/operations", json: body, key: rig.test.adminKey)
                let bound = "\(field):" + (field == "user" ? (body["user"] as? String ?? "") : "\(body[field] ?? "")")
                #expect(reply.status == (declared.contains(bound) ? 400 : 422), "\(body): \(reply.text)")
                #expect(reply.json["field"] as? String == field, "\(body): \(reply.text)")
            }
            let defaults = try await rig.created("authentication")
            let created = try #require((defaults["createdAt"] as? String).flatMap(ISO8601DateFormatter().date))
            let expires = try #require((defaults["expiresAt"] as? String).flatMap(ISO8601DateFormatter().date))
            #expect(expires.timeIntervalSince(created).rounded() == 120)
            let anonymous = try await rig.test.request(.POST, "/api/v1/operations", json: ["type": "authentication"])
            #expect(anonymous.status == 401)
        }
    }

    /// Found by schemathesis on PostgreSQL, which refuses text with NUL: such input must be
    /// answered before it reaches a query, never with a 500.
    @Test("a NUL or control character in a user or device id is answered, not passed to the database", arguments: TestDatabase.available)
    func controlCharactersNeverReachTheDatabase(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone)
            let list = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=a%00b", key: rig.test.adminKey)
            #expect(list.status == 200, "\(list.text)")
            #expect(list.array.isEmpty)
            let escape = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=%1B%5B2J", key: rig.test.adminKey)
            #expect(escape.status == 200, "\(escape.text)")

            var registration = try PushTokenRegistration(deviceID: phone.deviceID, token: String(repeating: "ab", count: 32),
                                                         keys: phone.keys, now: rig.clock.now())
            registration.deviceID = "dev\u{0}1"
            let token = try await rig.test.request(.PUT, "/oob/devices/dev%001/push-token",
                                                   body: String(decoding: registration.json(), as: UTF8.self))
            #expect(token.status == 400, "\(token.text)")
            #expect(token.json["field"] as? String == "deviceID")
        }
    }

    @Test("the web page signs the browser in when the phone approves", arguments: TestDatabase.available)
    func webSignInWithPhone(_ database: TestDatabase) async throws {
        try await OutOfBandRig.run(database) { rig in
            let phone = try rig.phone()
            try await rig.enroll(phone, user: "nurse.ada")
            let start = try await rig.test.request(.POST, "/oob/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   body: "user=nurse.ada")
            #expect(start.status == 303)
            let location = try #require(start.headers.first(name: "location"))
            let cookie = try #require(start.headers.first(name: "set-cookie")?.split(separator: ";").first.map(String.init))
            let page = try await rig.test.request(.GET, location, headers: [("Cookie", cookie)])
            #expect(page.status == 200)
            #expect(page.text.contains("Sign in on this computer with your phone"))
            #expect(page.text.contains("<svg"))
            let number = try #require(Self.capture(#"id="number"[^>]*>(\d+)<"#, in: page.text).flatMap { Int($0) })
            let href = try #require(Self.capture(#"id="link" href="([^"]+)""#, in: page.text))
            let stranger = try await rig.test.request(.GET, location)
            #expect(stranger.status == 404, "only the browser that started it may follow it")

            let pending = try phone.client.receive(link: try #require(URL(string: href.replacingOccurrences(of: "&amp;", with: "&"))))
            _ = try await pending.approve(number: number)
            let events = try await rig.test.request(.GET, location + "/events", headers: [("Cookie", cookie)])
            #expect(events.text.contains(#""status":"succeeded""#))
            let session = try await rig.test.request(.POST, location + "/session", headers: [("Cookie", cookie)])
            #expect(session.status == 200, "\(session.text)")
            #expect(session.json["user"] as? String == "nurse.ada")
            #expect(session.headers.first(name: "set-cookie")?.hasPrefix("handover_web_session=") == true)
            let again = try await rig.test.request(.POST, location + "/session", headers: [("Cookie", cookie)])
            #expect(again.status == 409, "the session is collected once")
        }
    }

    @Test("a user signed in with Apple enrolls a phone from the session, then signs a browser in with it", arguments: TestDatabase.available)
    func enrollmentFromASession(_ database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        do {
            let session = try await rig.signIn()
            let access = try #require(session["accessToken"] as? String)
            let userID = try #require((session["user"] as? [String: Any])?["id"] as? String).lowercased()
            #expect(try await rig.test.request(.POST, "/auth/oob/enroll", json: [:]).status == 401)

            let enroll = try await rig.test.request(.POST, "/auth/oob/enroll", json: ["dispatcher": "link"], key: access)
            #expect(enroll.status == 201, "\(enroll.text)")
            #expect(enroll.json["type"] as? String == "registration")
            #expect(enroll.json["user"] as? String == userID)
            let phone = try TestPhone(clock: rig.test.clock)
            _ = try await phone.client.receive(link: try #require(OutOfBandRig.link(enroll.json))).approve()
            let devices = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=\(userID)", key: rig.test.adminKey)
            #expect(devices.array.map { $0["id"] as? String } == [phone.deviceID])

            // The browser signs in as that same user.
            let collected = try await Self.signInOnThisComputer(rig, userID: userID, phone: phone)
            let webToken = try #require(collected.headers.first(name: "set-cookie")?.split(separator: ";").first?
                .replacingOccurrences(of: "handover_web_session=", with: ""))
            let me = try await rig.me(webToken)
            #expect(me.status == 200, "\(me.text)")
            #expect((me.json["id"] as? String)?.lowercased() == userID, "the browser's session is the Apple user's")
        } catch {
            try? await rig.stop()
            throw error
        }
        try await rig.stop()
    }

    @Test("a hand-over stops the enrolled phone's pushes and ends the browser sessions it approved", arguments: TestDatabase.available)
    func aHandOverEndsWhatThePhoneOfThePreviousUserStarted(_ database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        do {
            let appID = try await rig.test.registerTarget("handover")
            let device = try await rig.test.registerDevice()
            let session = try await rig.signIn(extra: ["deviceID": device.id])
            let access = try #require(session["accessToken"] as? String)
            let userID = try #require((session["user"] as? [String: Any])?["id"] as? String).lowercased()
            let enroll = try await rig.test.request(.POST, "/auth/oob/enroll", json: ["dispatcher": "link"], key: access)
            let phone = try TestPhone(clock: rig.test.clock)
            _ = try await phone.client.receive(link: try #require(OutOfBandRig.link(enroll.json))).approve()
            let registration = try PushTokenRegistration(deviceID: phone.deviceID, token: String(repeating: "ab", count: 32), keys: phone.keys,
                                                         now: rig.test.clock.now())
            let pushToken = try await rig.test.request(.PUT, "/oob/devices/\(phone.deviceID)/push-token",
                                                       body: String(decoding: registration.json(), as: UTF8.self))
            #expect(pushToken.status == 200, "\(pushToken.text)")

            // "Sign in on this computer with your phone": the browser's session hangs off the phone.
            let collected = try await Self.signInOnThisComputer(rig, userID: userID, phone: phone)
            let webToken = try #require(collected.headers.first(name: "set-cookie")?.split(separator: ";").first?
                .replacingOccurrences(of: "handover_web_session=", with: ""))
            #expect(try await rig.me(webToken).status == 200)
            let before = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=\(userID)", key: rig.test.adminKey)
            #expect(before.array.first?["pushTokenActive"] as? Bool == true, "\(before.text)")

            let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
            #expect(run.status == 201, "\(run.text)")
            #expect(try await rig.me(access).status == 401, "the app's session ended")
            #expect(try await rig.me(webToken).status == 401, "the browser session the phone approved ended with the device")
            let after = try await rig.test.request(.GET, "/api/v1/enrolled-devices?user=\(userID)", key: rig.test.adminKey)
            #expect(after.array.first?["pushTokenActive"] as? Bool == false, "the phone no longer gets this user's pushes: \(after.text)")
        } catch {
            try? await rig.stop()
            throw error
        }
        try await rig.stop()
    }

    /// Custody (issue 40): the phone approving a browser's sign-in checks out the fleet device it
    /// was enrolled on, here after the hand-over that checked the person's first custody in.
    @Test func thePhoneApprovingASignInChecksItsFleetDeviceOut() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let appID = try await rig.test.registerTarget("handover")
        let device = try await rig.test.registerDevice()
        let session = try await rig.signIn(extra: ["deviceID": device.id])
        let access = try #require(session["accessToken"] as? String)
        let userID = try #require((session["user"] as? [String: Any])?["id"] as? String).lowercased()
        let enroll = try await rig.test.request(.POST, "/auth/oob/enroll", json: ["dispatcher": "link"], key: access)
        let phone = try TestPhone(clock: rig.test.clock)
        _ = try await phone.client.receive(link: try #require(OutOfBandRig.link(enroll.json))).approve()
        #expect(try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key).status == 201)
        rig.advance(60)  // the next shift: the report lists the newest custody first

        #expect(try await Self.signInOnThisComputer(rig, userID: userID, phone: phone).status == 200)
        let custody = try await rig.test.request(.GET, "/api/v1/custody?device=\(device.id)", key: rig.test.adminKey)
        let records = try #require(custody.json["custodies"] as? [[String: Any]], "\(custody.text)")
        #expect(records.map { $0["checkedOutBy"] as? String } == ["out_of_band", "sign_in_with_apple"], "\(records)")
        #expect(records.first?["checkedInAt"] == nil && records.last?["runID"] != nil, "\(records)")
        try await rig.stop()
    }

    /// "Sign in on this computer with your phone": the browser starts it for `userID`, `phone`
    /// approves it with the page's number, and the browser collects its session (the answer).
    static func signInOnThisComputer(_ rig: AppleRig, userID: String, phone: TestPhone) async throws -> TestServer.Reply {
        let start = try await rig.test.request(.POST, "/oob/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                               body: "user=\(userID)")
        let location = try #require(start.headers.first(name: "location"))
        let cookie = try #require(start.headers.first(name: "set-cookie")?.split(separator: ";").first.map(String.init))
        let page = try await rig.test.request(.GET, location, headers: [("Cookie", cookie)])
        let number = try #require(Self.capture(#"id="number"[^>]*>(\d+)<"#, in: page.text).flatMap { Int($0) })
        let href = try #require(Self.capture(#"id="link" href="([^"]+)""#, in: page.text))
        _ = try await phone.client.receive(link: try #require(URL(string: href))).approve(number: number)
        return try await rig.test.request(.POST, location + "/session", headers: [("Cookie", cookie)])
    }

    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }
}

/// Runs `zbarimg` on a served QR code PNG.
enum Zbar {
    static var path: String? { Zbarimg.path }

    static func decode(rig: OutOfBandRig, operation: [String: Any], zbarimg: String) async throws -> String {
        let png = try await rig.test.request(.GET, "/api/v1/operations/\(operation["id"] as? String ?? "")/qr.png", key: rig.test.adminKey)
        #expect(png.status == 200)
        #expect(png.headers.first(name: "content-type") == "image/png")
        return try Zbarimg.decode(png.body, with: zbarimg)
    }
}
