import Foundation
import HandoverCore
@testable import HandoverServer
import Testing

/// Revocation is one event that reaches everything (issue 63, findings 2, 3 and 6): a key revoked
/// or expired, a dashboard session signed out, a device's key revoked or replaced, each ends the
/// dashboard sessions and the event streams opened with it, with a stream open while it happens.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct RevocationReachTests {
    /// The id of the key whose text is `key`, from the API's list.
    static func keyID(_ test: TestServer, of key: String, query: String = "") async throws -> String {
        let keys = try await test.request(.GET, "/api/v1/keys\(query)", key: test.adminKey)
        #expect(keys.status == 200, "\(keys.text)")
        return try #require(keys.array.first { $0["prefix"] as? String == String(key.prefix(12)) }?["id"] as? String, "\(keys.text)")
    }

    /// Finding 2: after `DELETE /api/v1/keys/{id}` the browser the key signed in kept admin rights
    /// (`/dashboard/keys` 200, `POST /dashboard/webhooks` 201) and its live stream kept sending.
    @Test(arguments: TestDatabase.available)
    func aRevokedAdminKeyLosesItsDashboardSessionAndItsLiveStream(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let ops = try await test.server.createAPIKey(name: "night ops", scope: .admin)
        let browser = DashboardBrowser(test)
        let csrf = try await browser.signIn(key: ops)
        let live = try await EventStreamReader.dashboard(browser)
        #expect(live.status == 200)
        #expect(try await live.next()?.name == "replace", "the stream is live before the revocation")

        let revoked = try await test.request(.DELETE, "/api/v1/keys/\(try await Self.keyID(test, of: ops))", key: test.adminKey)
        #expect(revoked.status == 204, "\(revoked.text)")
        let end = try await live.next(named: "revoked")
        #expect(end.event?.data.contains("revoked") == true, "the stream says why it ends: \(String(describing: end.event))")
        #expect(try await live.next() == nil, "and ends")

        #expect(try await browser.get("/dashboard/keys").status == 303, "the session ended with its key")
        let hook = try await browser.post("/dashboard/webhooks", [("csrf", csrf), ("url", "https://mdm.example.com/hook"), ("events", "run.failed")])
        #expect(hook.status == 403, "\(hook.status)")
        #expect(try await test.request(.GET, "/api/v1/webhooks", key: test.adminKey).array.isEmpty, "no webhook was made")
        #expect(try await EventStreamReader.dashboard(browser).status == 401, "a reconnecting stream is refused")
        try await test.stop()
    }

    /// Finding 2: an expired key behaved the same. The key expires before the session's idle
    /// timeout, so only the key can end it.
    @Test func anExpiredAdminKeyLosesItsDashboardSessionAndItsLiveStream() async throws {
        let test = try await TestServer.start(.sqlite)
        let now = test.clock.now()
        let temporary = try await APIKeyIssuer.create(name: "contractor", scope: .admin, expiresAt: now.addingTimeInterval(600),
                                                      on: test.server.databases.primary, now: now)
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: temporary)
        let live = try await EventStreamReader.dashboard(browser)
        #expect(try await live.next()?.name == "replace")

        test.clock.advance(by: 601)
        await test.server.revocations.streams.sweep(now: test.clock.now())  // the background pass, once a second
        #expect(try await live.next(named: "revoked").event?.data.contains("expired") == true)
        #expect(try await browser.get("/dashboard").status == 303, "10 minutes in: the session is within its idle timeout, but its key expired")
        try await test.stop()
    }

    @Test func signingOutEndsTheLiveStreamsOfThatBrowserOnly() async throws {
        let test = try await TestServer.start(.sqlite)
        let browser = DashboardBrowser(test), other = DashboardBrowser(test)
        let csrf = try await browser.signIn(key: test.adminKey)
        _ = try await other.signIn(key: test.adminKey)
        let live = try await EventStreamReader.dashboard(browser)
        let otherLive = try await EventStreamReader.dashboard(other)
        #expect(try await live.next()?.name == "replace")
        #expect(try await otherLive.next()?.name == "replace")
        #expect(try await browser.post("/dashboard/sign-out", [("csrf", csrf)]).status == 303)
        #expect(try await live.next(named: "revoked").event != nil)
        #expect(test.server.revocations.streams.count == 1, "the other browser's stream is still open")
        #expect(try await other.get("/dashboard").status == 200)
        try await test.stop()
    }

    /// Finding 6: a viewer key's run event stream kept delivering after the key was revoked.
    @Test(arguments: TestDatabase.available)
    func aRevokedViewerKeysRunEventStreamEnds(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Mail")
        let device = try await test.registerDevice()
        let run = try await LogoutRunTests.startRun(test, device: device)
        let viewer = try await test.server.createAPIKey(name: "wall screen", scope: .viewer)
        let events = try await EventStreamReader.api(test, "/api/v1/logout-runs/\(run.id)/events", key: viewer)
        #expect(events.status == 200)
        #expect(try await events.next()?.name == "run")

        #expect(try await test.request(.DELETE, "/api/v1/keys/\(try await Self.keyID(test, of: viewer))", key: test.adminKey).status == 204)
        let rest = try await events.rest()
        #expect(rest.map(\.name) == ["revoked"], "\(rest)")
        #expect(try await EventStreamReader.api(test, "/api/v1/logout-runs/\(run.id)/events", key: viewer).status == 401)
        try await test.stop()
    }

    /// Finding 3: device keys were not listed, had no id to revoke, and could not be replaced.
    @Test(arguments: TestDatabase.available)
    func deviceKeysAreListedRevokedAndReplacedThroughTheAPI(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Mail")
        let device = try await test.registerDevice("ward-7-phone-3")
        let operatorKey = try await test.server.createAPIKey(name: "IT desk", scope: .operator)
        let viewer = try await test.server.createAPIKey(name: "wall screen", scope: .viewer)
        _ = try await LogoutRunTests.startRun(test, device: device)

        // Listed, with its device and its last use; in the whole list, by scope and by device.
        let listed = try await test.request(.GET, "/api/v1/keys?device=\(device.id)", key: test.adminKey)
        #expect(listed.array.count == 1, "\(listed.text)")
        let entry = try #require(listed.array.first)
        #expect(entry["scope"] as? String == "device" && entry["deviceID"] as? String == device.id && entry["prefix"] as? String == String(device.key.prefix(12)))
        #expect(entry["lastUsedAt"] != nil, "the run start is its last use: \(entry)")
        let oldID = try #require(entry["id"] as? String)
        #expect(try await test.request(.GET, "/api/v1/keys?scope=device", key: test.adminKey).array.map { $0["id"] as? String } == [oldID])
        #expect(try await test.request(.GET, "/api/v1/keys", key: test.adminKey).array.contains { $0["id"] as? String == oldID })
        #expect(try await test.request(.GET, "/api/v1/keys?scope=everyone", key: test.adminKey).status == 400)

        // A new key: an operator may; a viewer may not.
        #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/key", key: viewer).status == 403)
        let rekeyed = try await test.request(.POST, "/api/v1/devices/\(device.id)/key", key: operatorKey)
        #expect(rekeyed.status == 201, "\(rekeyed.text)")
        let newKey = try #require(rekeyed.json["key"] as? String)
        #expect((rekeyed.json["replaced"] as? [[String: Any]])?.map { $0["id"] as? String } == [oldID])
        #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key).status == 401, "the old key is refused")
        #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: newKey).status == 403, "the new key is a device's")
        let newID = try #require((rekeyed.json["keyInfo"] as? [String: Any])?["id"] as? String)

        // Revoked like any key, by id (admin) or as the device's (operator); then none works.
        #expect(try await test.request(.DELETE, "/api/v1/keys/\(newID)", key: test.adminKey).status == 204)
        #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: newKey).status == 401)
        #expect(try await test.request(.DELETE, "/api/v1/devices/\(device.id)/key", key: operatorKey).status == 204, "idempotent")
        #expect(try await test.request(.DELETE, "/api/v1/devices/\(UUID().uuidString)/key", key: operatorKey).status == 404)

        // The device's history says who did what.
        let history = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array
        #expect(history.contains { $0["event"] as? String == "key_replaced" && ($0["actor"] as? String)?.contains("IT desk") == true }, "\(history)")
        #expect(history.contains { $0["event"] as? String == "key_revoked" }, "\(history)")
        try await test.stop()
    }

    /// Finding 6 for a device key: the launcher's own run stream ends when its key is revoked.
    @Test func aDeviceKeyRevokedEndsItsRunStream() async throws {
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("Mail")
        let device = try await test.registerDevice()
        let run = try await LogoutRunTests.startRun(test, device: device)
        let events = try await EventStreamReader.api(test, "/api/v1/logout-runs/\(run.id)/events", key: device.key)
        #expect(try await events.next()?.name == "run")
        #expect(try await test.request(.DELETE, "/api/v1/devices/\(device.id)/key", key: test.adminKey).status == 204)
        #expect(try await events.rest().map(\.name) == ["revoked"])
        try await test.stop()
    }

    /// Finding 3 on the dashboard: the device's page shows its key, revokes it and replaces it.
    @Test func theDevicePageShowsRevokesAndReplacesTheKey() async throws {
        let test = try await TestServer.start(.sqlite)
        let device = try await test.registerDevice("ward-7-phone-3")
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let page = try await browser.get("/dashboard/devices/\(device.id)")
        #expect(page.text.contains(String(device.key.prefix(12))) && page.text.contains("Revoke key"), "\(page.text)")
        let csrf = try #require(DashboardBrowser.csrf(in: page.text))

        #expect(try await browser.post("/dashboard/devices/\(device.id)/key/revoke", [("csrf", csrf)]).status == 303)
        #expect(try await test.request(.GET, "/api/v1/logout-runs/\(UUID().uuidString)", key: device.key).status == 401)
        let after = try await browser.get("/dashboard/devices/\(device.id)")
        #expect(after.text.contains("no live key") && !after.text.contains(">Revoke key<"), "\(after.text)")

        let made = try await browser.post("/dashboard/devices/\(device.id)/key/new", [("csrf", csrf)])
        #expect(made.status == 200 && made.headers.first(name: "Cache-Control") == "no-store")
        let newKey = try #require(made.text.range(of: #"hov_[A-Za-z0-9_-]{43}"#, options: .regularExpression).map { String(made.text[$0]) })
        #expect(try await test.request(.GET, "/api/v1/logout-runs/\(UUID().uuidString)", key: newKey).status == 404, "the new key works")
        let history = try await browser.get("/dashboard/devices/\(device.id)")
        #expect(history.text.contains("key revoked") && history.text.contains("key replaced"))
        try await test.stop()
    }

    /// `docs/operations.md`'s lost-phone procedure, step by step as written: revoke the key, hand
    /// the phone over from the server (its sessions end; its apps cannot answer, so the run fails
    /// and the MDM's policy puts it in Lost Mode), then, found again, a new key and back in service.
    @Test func theLostPhoneProcedureWorksAsWritten() async throws {
        let rig = try await AppleRig.start(.sqlite) { configuration in
            configuration.mdm = MDMConfiguration(connector: .webhook, action: .lostMode, message: "Return to the ward 7 desk")
        }
        let test = rig.test
        try await test.registerTarget("Mail", deadline: 20, maxReissues: 0)
        let device = try await test.registerDevice("ward-7-phone-3")
        let operatorKey = try await test.server.createAPIKey(name: "IT desk", scope: .operator)
        let grant = try await rig.signIn(extra: ["deviceID": device.id])
        let accessToken = try #require(grant["accessToken"] as? String)
        #expect(try await rig.me(accessToken).status == 200)

        // 1. Revoke the phone's key.
        #expect(try await test.request(.DELETE, "/api/v1/devices/\(device.id)/key", key: operatorKey).status == 204)
        #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key).status == 401)
        // 2. Hand it over from the server: every session signed in on it ends now.
        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: operatorKey)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await rig.me(accessToken).status == 401, "the person's session on the phone ended")
        // 3. Its apps cannot answer: the run fails at its deadline, the device goes out of
        //    service, and the MDM is asked for Lost Mode.
        rig.advance(21)
        _ = try await test.server.fireDeadlines()
        let status = try await test.request(.GET, "/api/v1/devices/\(device.id)", key: operatorKey)
        #expect(status.json["status"] as? String == "out_of_service", "\(status.text)")
        let history = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: operatorKey).array
        #expect(history.contains { $0["event"] as? String == "mdm_command_queued" && ($0["reason"] as? String)?.hasPrefix("lost mode") == true }, "\(history)")
        #expect(history.contains { $0["event"] as? String == "key_revoked" && ($0["actor"] as? String)?.contains("IT desk") == true })
        // 4. Found: a new key for its launcher, and back in service with a note.
        let rekeyed = try await test.request(.POST, "/api/v1/devices/\(device.id)/key", key: operatorKey)
        let newKey = try #require(rekeyed.json["key"] as? String)
        let back = try await test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service",
                                          json: ["note": "Found at the ward 7 desk; wiped and re-keyed, ticket 4711."], key: operatorKey)
        #expect(back.status == 200, "\(back.text)")
        #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: newKey).status == 201)
        try await rig.stop()
    }

    /// On PostgreSQL with two instances: a key revoked on one ends the stream open on the other.
    @Test func aRevocationOnOneInstanceEndsTheStreamOnTheOther() async throws {
        guard TestDatabase.postgresURL != nil else { return }
        let first = try await TestServer.start(.postgres)
        let second = try await TestServer.start(.postgres, sharing: first)
        let viewer = try await first.server.createAPIKey(name: "wall screen", scope: .viewer)
        try await first.registerTarget("Mail")
        let device = try await first.registerDevice()
        let run = try await LogoutRunTests.startRun(first, device: device)
        let events = try await EventStreamReader.api(second, "/api/v1/logout-runs/\(run.id)/events", key: viewer)
        #expect(try await events.next()?.name == "run")
        // A test server runs no background pass and its clock stands still, so the second
        // instance never checks the key again on its own: only the first's NOTIFY can end the
        // stream (the reader's deadline bounds the wait, with no timing asserted).
        #expect(try await first.request(.DELETE, "/api/v1/keys/\(try await Self.keyID(first, of: viewer))", key: first.adminKey).status == 204)
        #expect(try await events.rest().map(\.name) == ["revoked"])
        try await second.stop()
        try await first.stop()
    }
}
