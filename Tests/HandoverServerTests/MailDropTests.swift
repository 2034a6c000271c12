import DeviceSimulator
import Foundation
import TestPeers
import Mail
import HandoverClient
import HandoverServer
import Testing

/// Email-link sign-in with the mail written to a folder (`handover serve --mail-drop`), as
/// development machines and `handover demo` use it, and the SDK's `EmailLinkSignIn`.
@Suite("Mail drop and EmailLinkSignIn", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct MailDropTests {
    static func start() async throws -> (TestServer, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        let test = try await TestServer.start(.sqlite) { $0.mailDropDirectory = folder }
        return (test, folder)
    }

    /// Python's own `email` parser (not ours) reads the dropped file: its headers, and the link in
    /// the quoted-printable body.
    @Test func theDroppedFileIsAMessagePythonsEmailParserReads() async throws {
        let (test, folder) = try await Self.start()
        let start = try await test.request(.POST, "/auth/email/start", json: ["email": "night.porter@hospital.example"])
        #expect(start.status == 202, "\(start.text)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".eml") }
        #expect(files.count == 1, "one message, no partial file left: \(files)")
        let file = folder.appendingPathComponent(try #require(files.first))
        let raw = try Data(contentsOf: file)
        #expect(String(decoding: raw, as: UTF8.self).contains("\r\n"), "RFC 5322 lines end in CRLF")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            print("SKIP the Python check of the dropped mail: no /usr/bin/python3")
            try await test.stop()
            return
        }
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import email, email.policy, sys
            m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
            print(m["To"]); print(m["Subject"]); print(m.get_content())
            """, file.path])
        let text = result.outputText
        #expect(result.status == 0)
        #expect(text.hasPrefix("night.porter@hospital.example\n"), "\(text)")
        let link = text.split(whereSeparator: \.isWhitespace).first { $0.contains("/auth/email/verify?token=") }.flatMap { URL(string: String($0)) }
        #expect(link?.absoluteString.hasPrefix(test.server.publicURL.absoluteString + "/auth/email/verify?token=") == true, "\(text)")
        #expect(link == (try await MailDropInbox(folder: folder).signInLink(to: "night.porter@hospital.example")),
                "the simulator's reader finds the same link")
        try await test.stop()
    }

    /// The SDK asks for a link, redeems it on a fleet device with Native SSO, and the device's
    /// hand-over ends the session.
    @Test func theSDKSignsInOnADeviceAndTheHandOverEndsIt() async throws {
        let (test, folder) = try await Self.start()
        let appID = try await test.registerTarget("Pharmacy")
        let device = try await test.registerDevice()
        let signIn = EmailLinkSignIn(server: test.server.baseURL)
        try await signIn.requestLink(for: "ada@hospital.example")
        let link = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example")
        let grant = try await signIn.redeem(link: link, clientID: "com.example.pharmacy", deviceID: UUID(uuidString: device.id), deviceSSO: true)
        #expect(grant.deviceSecret != nil && grant.idToken != nil && grant.user.email == "ada@hospital.example")
        #expect(try await test.request(.GET, "/api/v1/me", key: grant.accessToken).status == 200)
        await #expect(throws: FleetServerError.self, "a link works once") {
            try await signIn.redeem(link: link)
        }
        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await test.request(.GET, "/api/v1/me", key: grant.accessToken).status == 401, "the hand-over ended the session")
        do {
            _ = try await signIn.redeem(link: URL(string: "https://handover.example.com/somewhere?token=x")!)
            Issue.record("a URL that is not a sign-in link was redeemed")
        } catch {
            #expect(error.description.contains("is not a sign-in link"))
        }
        try await test.stop()
    }

    /// A link asked for by an app on a fleet device, opened in a browser: the browser's session
    /// hangs off the device and ends with its hand-over (before, it was tied to no device).
    @Test func aLinkAskedForOnADeviceAndOpenedInABrowserEndsWithTheHandOver() async throws {
        let (test, folder) = try await Self.start()
        let appID = try await test.registerTarget("Pharmacy")
        let device = try await test.registerDevice()
        let signIn = EmailLinkSignIn(server: test.server.baseURL)
        let unknown = try await test.request(.POST, "/auth/email/start", json: ["email": "ada@hospital.example", "deviceID": UUID().uuidString])
        #expect(unknown.json["field"] as? String == "deviceID", "\(unknown.status) \(unknown.text)")
        try await signIn.requestLink(for: "ada@hospital.example", deviceID: UUID(uuidString: device.id))
        let link = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example")
        let token = try #require(EmailLinkSignIn.token(in: link))
        let page = try await test.request(.POST, "/auth/email/verify", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                          body: "token=\(token)")
        #expect(page.status == 200 && page.text.contains("You are signed in on this browser"), "\(page.text)")
        let cookie = try #require(page.headers.first(name: "Set-Cookie"))
        let session = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        #expect(try await test.request(.GET, "/api/v1/me", key: session).status == 200)

        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await test.request(.GET, "/api/v1/me", key: session).status == 401, "the browser session ended with the device's hand-over")
        try await test.stop()
    }

    @Test func aMailDropAndAnSMTPRelayTogetherAreRefusedAtStart() async throws {
        do {
            let test = try await TestServer.start(.sqlite) { configuration in
                configuration.mailDropDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
                configuration.smtp = SMTPConfiguration(host: "127.0.0.1", port: 2525, from: "Handover <no-reply@handover.test>", security: .none)
            }
            try await test.stop()
            Issue.record("the server started with two mail transports")
        } catch {
            #expect("\(error)".contains("HANDOVER_MAIL_DROP_DIR") && "\(error)".contains("HANDOVER_SMTP_HOST"), "\(error)")
        }
    }
}
