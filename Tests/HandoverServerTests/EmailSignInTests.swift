import DeviceSimulator
import Foundation
import Mail
import TestPeers
import HandoverServer
import Testing

/// A server that mails sign-in links through a real SMTP server on loopback (aiosmtpd).
private func startWithMail(_ database: TestDatabase = .sqlite, tls: Bool = false) async throws -> (TestServer, SMTPTestServer)? {
    guard await PythonPeer.canImport("aiosmtpd", skipping: "the email sign-in test") else { return nil }
    let smtp = try await SMTPTestServer.start(tls: tls)
    let test = try await TestServer.start(database) { configuration in
        var mail = SMTPConfiguration(host: tls ? "localhost" : "127.0.0.1", port: smtp.port, from: "Handover <no-reply@handover.test>",
                                     security: tls ? .startTLS : .none)
        mail.trustedCertificatesPEMFile = smtp.certificateFile?.path
        configuration.smtp = mail
    }
    return (test, smtp)
}

@Suite("Email-link sign-in through a real SMTP server", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct EmailSignInTests {
    @Test(arguments: TestDatabase.available)
    func theAppRedeemsTheMailedLinkOnce(_ database: TestDatabase) async throws {
        guard let (test, smtp) = try await startWithMail(database) else { return }
        defer { smtp.stop() }
        let start = try await test.request(.POST, "/auth/email/start", json: ["email": "Nurse.Ada@Example.com"])
        #expect(start.status == 202, "\(start.text)")
        let link = try #require(smtp.link(to: "nurse.ada@example.com"), "the message arrived with a link")
        #expect(link.path == "/auth/email/verify")
        #expect(link.absoluteString.hasPrefix(test.server.publicURL.absoluteString))
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        let redeemed = try await test.request(.POST, "/auth/email/redeem", json: ["token": token])
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let access = redeemed.json["accessToken"] as? String ?? ""
        let me = try await test.request(.GET, "/api/v1/me", key: access)
        #expect(me.json["email"] as? String == "nurse.ada@example.com")
        let replay = try await test.request(.POST, "/auth/email/redeem", json: ["token": token])
        #expect(replay.status == 401)
        #expect(replay.json["error"] as? String == "invalid_link")
        // The link is a universal link: the generated association file claims its path.
        try await test.registerTarget("Notes")
        let aasa = try await test.request(.GET, "/.well-known/apple-app-site-association")
        #expect(aasa.text.contains("/auth/email/verify"))
        try await test.stop()
    }

    /// Custody (issue 40): a link asked for on a fleet device checks the device out to the person.
    @Test func aLinkAskedForOnAFleetDeviceChecksItOut() async throws {
        guard let (test, smtp) = try await startWithMail() else { return }
        defer { smtp.stop() }
        let device = try await test.registerDevice("ward-7-phone-1")
        let start = try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example", "deviceID": device.id])
        #expect(start.status == 202, "\(start.text)")
        let link = try #require(smtp.link(to: "ada@hospital.example"))
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(try await test.request(.POST, "/auth/email/redeem", json: ["token": token]).status == 200)
        let custody = try await test.request(.GET, "/api/v1/custody?device=\(device.id)", key: test.adminKey)
        let record = try #require((custody.json["custodies"] as? [[String: Any]])?.first, "\(custody.text)")
        #expect(record["checkedOutBy"] as? String == "email_link" && record["personEmail"] as? String == "ada@hospital.example"
                && record["checkedInAt"] == nil, "\(record)")
        try await test.stop()
    }

    @Test func inABrowserThePageCompletesTheSignInAndSaysSo() async throws {
        guard let (test, smtp) = try await startWithMail() else { return }
        defer { smtp.stop() }
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "porter@example.com"]).status == 202)
        let link = try #require(smtp.link(to: "porter@example.com"))
        let page = try await test.request(.GET, link.absoluteString)
        #expect(page.status == 200)
        #expect(page.text.contains("Sign in as porter@example.com"))
        #expect(page.text.contains("<form method=\"post\" action=\"/auth/email/verify\">"))
        // Opening the page (as a mail scanner would) used nothing up; the click does.
        let token = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value ?? ""
        let done = try await test.request(.POST, "/auth/email/verify", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                          body: "token=\(token)")
        #expect(done.status == 200)
        #expect(done.text.contains("You are signed in on this browser as porter@example.com"))
        let cookie = done.headers.first(name: "Set-Cookie") ?? ""
        #expect(cookie.contains("handover_web_session=") && cookie.contains("HttpOnly"))
        let again = try await test.request(.GET, link.absoluteString)
        #expect(again.status == 410)
        #expect(again.text.contains("no longer works"))
        try await test.stop()
    }

    @Test func anExpiredLinkFails() async throws {
        guard let (test, smtp) = try await startWithMail() else { return }
        defer { smtp.stop() }
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "late@example.com"]).status == 202)
        let link = try #require(smtp.link(to: "late@example.com"))
        let token = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value ?? ""
        test.clock.advance(by: 15 * 60 + 1)
        let late = try await test.request(.POST, "/auth/email/redeem", json: ["token": token])
        #expect(late.status == 401)
        #expect(try await test.request(.GET, link.absoluteString).status == 410)
        try await test.stop()
    }

    @Test func malformedAddressesAre400AndStartsAreRateLimited() async throws {
        guard let (test, smtp) = try await startWithMail() else { return }
        defer { smtp.stop() }
        for bad in ["", "no-at-sign", "a@b", "two@@example.com", "spaced out@example.com", "x@-bad-.com"] {
            let reply = try await test.request(.POST, "/auth/email/start", json: ["email": bad])
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.json["field"] as? String == "email")
        }
        for _ in 0..<3 {
            #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "busy@example.com"]).status == 202)
        }
        let limited = try await test.request(.POST, "/auth/email/start", json: ["email": "busy@example.com"])
        #expect(limited.status == 429)
        #expect(Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
        #expect(smtp.messages().count == 3)
        test.clock.advance(by: 15 * 60)
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "busy@example.com"]).status == 202)
        try await test.stop()
    }

    /// A link is 256 random bits: wrong ones slow their sender (429 past 20 in 15 minutes), and a
    /// right one from the same address (a ward's phones share one) still signs its person in.
    @Test func aRightLinkIsRedeemedWhileWrongOnesFromItsAddressAre429() async throws {
        guard let (test, smtp) = try await startWithMail() else { return }
        defer { smtp.stop() }
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example"]).status == 202)
        let link = try #require(smtp.link(to: "ada@hospital.example"))
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        for attempt in 1...20 {
            #expect(try await test.request(.POST, "/auth/email/redeem", json: ["token": "guess-\(attempt)"]).status == 401)
        }
        let wrong = try await test.request(.POST, "/auth/email/redeem", json: ["token": "guess-21"])
        #expect(wrong.status == 429 && Int(wrong.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(wrong.status)")
        #expect(try await test.request(.GET, link.absoluteString).status == 200, "the link's page opens")
        let redeemed = try await test.request(.POST, "/auth/email/redeem", json: ["token": token])
        #expect(redeemed.status == 200, "\(redeemed.status) \(redeemed.text)")
        #expect(try await test.request(.POST, "/auth/email/redeem", json: ["token": token]).status == 429, "used now, so wrong")
        try await test.stop()
    }

    @Test func mailGoesThroughSTARTTLSWithAVerifiedCertificate() async throws {
        guard let (test, smtp) = try await startWithMail(tls: true) else { return }
        defer { smtp.stop() }
        let reply = try await test.request(.POST, "/auth/email/start", json: ["email": "secure@example.com"])
        #expect(reply.status == 202, "\(reply.text)")
        #expect(smtp.link(to: "secure@example.com") != nil)
        try await test.stop()
    }

    /// `clientID` names the app the session is for: only an app in the registry, and a bad one
    /// is refused with 400 before the link is used up, so the right app can still redeem it.
    /// (The mail goes to a folder here, so this runs without an SMTP server.)
    @Test(arguments: TestDatabase.available)
    func aClientIDOutsideTheRegistryIsRefusedBeforeTheLinkIsSpent(_ database: TestDatabase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        let test = try await TestServer.start(database) { $0.mailDropDirectory = folder }
        try await test.registerTarget("Notes")     // ABCDE12345.com.example.notes
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example"]).status == 202)
        let link = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example")
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        let refusals: [(String, String, String)] = [
            ("com.othercorp.notes", "", "not an app in this server's registry"),
            ("com.othercorp.notes", "openid device_sso", "not an app in this server's registry"),
            // Past openapi.yaml's maxLength: refused at the edge (`out_of_bounds`), before the route reads it.
            (String(repeating: "a", count: 100_000), "", "at most 255 characters"),
            ("com.example.notes\u{0}", "", "control characters"),
            ("com.example.\u{1B}[31mnotes", "openid", "control characters"),
            ("", "", "at most 255"),
        ]
        for (clientID, scope, expected) in refusals {
            var body: [String: Any] = ["token": token, "clientID": clientID]
            if !scope.isEmpty { body["scope"] = scope }
            let reply = try await test.request(.POST, "/auth/email/redeem", json: body)
            #expect(reply.status == 400, "\(clientID.prefix(30).debugDescription): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.json["field"] as? String == "clientID")
            #expect(reply.json["error"] as? String == (clientID.count > 255 ? "out_of_bounds" : "invalid_client_id"), "\(reply.text.prefix(200))")
            #expect((reply.json["reason"] as? String ?? "").contains(expected), "\(reply.text.prefix(300))")
            #expect(reply.body.count < 2048, "the answer does not echo the whole id")
        }
        let redeemed = try await test.request(.POST, "/auth/email/redeem", json: ["token": token, "clientID": "com.example.notes"])
        #expect(redeemed.status == 200, "the link still works for a registered app: \(redeemed.text)")
        #expect(try await test.request(.GET, "/api/v1/me", key: redeemed.json["accessToken"] as? String ?? "").status == 200)
        try await test.stop()
    }

    /// Issue 63, finding 13: the link's universal link opens the first installed app that claims
    /// it, of any team, and `/auth/email/redeem` took any registered app's `clientID`: a link asked
    /// for in one team's app gave a session to another team's. An app that names itself when it
    /// asks (`clientID` at start) binds the link to its Apple team: only an app of that team may
    /// redeem it (Native SSO's same-team rule, docs/shared-device-sessions.md), and a refusal
    /// leaves the link for the right app.
    @Test(arguments: TestDatabase.available)
    func aLinkAskedForByOneTeamsAppIsRedeemedOnlyByAnAppOfThatTeam(_ database: TestDatabase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        let test = try await TestServer.start(database) { $0.mailDropDirectory = folder }
        try await test.registerTarget("Notes")     // ABCDE12345.com.example.notes
        try await test.registerTarget("Pharmacy")  // ABCDE12345.com.example.pharmacy
        let other = try await test.request(.POST, "/api/v1/apps", json: ["name": "Chart", "appIDs": ["ZZZZZ99999.org.other.chart"],
                                                                          "logoutAction": "https://chart.other.example/logout"], key: test.adminKey)
        #expect(other.status == 201, "\(other.text)")
        let unknown = try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example", "clientID": "com.nowhere.app"])
        #expect(unknown.status == 400 && unknown.json["field"] as? String == "clientID", "only a registered app: \(unknown.text)")
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example", "clientID": "com.example.notes"]).status == 202)
        let link = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example")
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        for (clientID, scope) in [("org.other.chart", "openid device_sso"), ("org.other.chart", ""), ("", "")] {
            var body: [String: Any] = ["token": token]
            if !clientID.isEmpty { body["clientID"] = clientID }
            if !scope.isEmpty { body["scope"] = scope }
            let refused = try await test.request(.POST, "/auth/email/redeem", json: body)
            #expect(refused.status == 400 && refused.json["error"] as? String == "wrong_team" && refused.json["field"] as? String == "clientID"
                    && refused.text.contains("ABCDE12345"), "\(clientID) \(scope): \(refused.status) \(refused.text)")
        }
        // A sibling of the team that asked may redeem it (Native SSO's rule); the link still works.
        let redeemed = try await test.request(.POST, "/auth/email/redeem", json: ["token": token, "clientID": "com.example.pharmacy"])
        #expect(redeemed.status == 200, "\(redeemed.text)")
        try await test.stop()
    }

    @Test func withoutSMTPTheStartSaysSo() async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.POST, "/auth/email/start", json: ["email": "a@example.com"])
        #expect(reply.status == 404)
        #expect(reply.json["error"] as? String == "not_configured")
        try await test.stop()
    }
}
