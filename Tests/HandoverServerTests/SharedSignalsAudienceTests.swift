import DeviceSimulator
import Foundation
import HandoverServer
import Testing

/// Issue 63, finding 9: a stream carries only what its receiver may see. An app's backend (a
/// client registered with `software_id`, RFC 7591 §2) is told of the sessions of its own app; an
/// admin may grant a client the whole fleet. SSF 1.0 §7.1 (`default_subjects` "ALL": the subjects
/// *appropriate for the stream* are in it by default), §8.1.3.2 and §8.1.3.3 (add and remove a
/// subject), §9.2 (Information Harvesting: the transmitter checks that it may share an event
/// with the receiver, whatever subjects it added).
@Suite("Shared Signals: what each receiver may see", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SharedSignalsAudienceTests {
    static let revoked = SharedSignalsPeers.caep + "session-revoked"

    /// A person signed in to the app `clientID` with an email link (read from the mail drop);
    /// returns the session's access token.
    static func signIn(_ test: TestServer, inbox: MailDropInbox, email: String, app clientID: String, seen: inout Set<URL>) async throws -> String {
        #expect(try await test.request(.POST, "/auth/email/start", json: ["email": email]).status == 202)
        let link = try await inbox.signInLink(to: email, excluding: seen)
        seen.insert(link)
        let token = try #require(URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value)
        let redeemed = try await test.request(.POST, "/auth/email/redeem", json: ["token": token, "clientID": clientID])
        #expect(redeemed.status == 200, "\(redeemed.text)")
        return redeemed.json["accessToken"] as? String ?? ""
    }

    /// The emails of the people the stream's SETs name (RFC 8936 §2.3: `sets` by `jti`), acknowledged.
    static func poll(_ test: TestServer, stream: String, token: String) async throws -> [String] {
        let reply = try await test.request(.POST, "/ssf/poll/\(stream)", json: ["returnImmediately": true, "maxEvents": 50], key: token)
        #expect(reply.status == 200, "\(reply.text)")
        let sets = reply.json["sets"] as? [String: String] ?? [:]
        if !sets.isEmpty {
            _ = try await test.request(.POST, "/ssf/poll/\(stream)", json: ["returnImmediately": true, "maxEvents": 0, "ack": Array(sets.keys)], key: token)
        }
        return sets.values.flatMap { set -> [String] in
            let payload = set.split(separator: ".").dropFirst().first.map(String.init) ?? ""
            var text = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            let claims = Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
            let user = (claims["sub_id"] as? [String: Any])?["user"] as? [String: Any]
            return (user?["identifiers"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
        }.sorted()
    }

    @Test func anAppsBackendHearsOfItsOwnAppsSessionsUnlessAnAdminGrantsItTheFleet() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        try await TestServer.with(.sqlite, publicURL: "https://handover.example.org", configure: { $0.mailDropDirectory = folder }) { test in
            let inbox = MailDropInbox(folder: folder)
            var seen: Set<URL> = []
            try await test.registerTarget("Mail")     // ABCDE12345.com.example.mail
            try await test.registerTarget("Notes")    // ABCDE12345.com.example.notes
            // The Mail app's backend (RFC 7591 with software_id), and its stream by poll (RFC 8936).
            let backend = try await OpenIDConnectTests.register(test, ["client_name": "Mail backend", "software_id": "com.example.mail"])
            #expect(backend.id == "com.example.mail")
            let grant = try await OpenIDConnectTests.form(test, "/oauth/token", ["grant_type": "client_credentials"], basic: (backend.id, backend.secret))
            let token = try #require(grant.json["access_token"] as? String, "\(grant.text)")
            let created = try await test.request(.POST, "/ssf/stream", json: [
                "delivery": ["method": "urn:ietf:rfc:8936"], "events_requested": [Self.revoked]], key: token)
            #expect(created.status == 201, "\(created.text)")
            let stream = try #require(created.json["stream_id"] as? String)
            let metadata = try await test.request(.GET, "/.well-known/ssf-configuration")
            #expect(metadata.json["default_subjects"] as? String == "ALL", "SSF 1.0 §7.1: \(metadata.text)")

            // Ada uses Mail, Bob only Notes: both sign out; the Mail backend hears of Ada alone.
            let ada = try await Self.signIn(test, inbox: inbox, email: "ada@hospital.example", app: "com.example.mail", seen: &seen)
            let bob = try await Self.signIn(test, inbox: inbox, email: "bob@hospital.example", app: "com.example.notes", seen: &seen)
            #expect(try await test.request(.POST, "/auth/logout", key: ada).status == 204)
            #expect(try await test.request(.POST, "/auth/logout", key: bob).status == 204)
            #expect(try await Self.poll(test, stream: stream, token: token) == ["ada@hospital.example"],
                    "a person who never used Mail is not the Mail backend's to hear of (SSF 1.0 §9.2)")

            // An admin grants the Mail backend the whole fleet: then it hears of Bob too.
            let refused = try await test.request(.PUT, "/api/v1/signals/clients/com.example.mail", json: ["subjects": "fleet"],
                                                 key: try await test.server.createAPIKey(name: "operator", scope: .operator))
            #expect(refused.status == 403, "an admin's grant: \(refused.text)")
            let granted = try await test.request(.PUT, "/api/v1/signals/clients/com.example.mail", json: ["subjects": "fleet"], key: test.adminKey)
            #expect(granted.status == 200 && granted.json["subjects"] as? String == "fleet", "\(granted.text)")
            let bobAgain = try await Self.signIn(test, inbox: inbox, email: "bob@hospital.example", app: "com.example.notes", seen: &seen)
            #expect(try await test.request(.POST, "/auth/logout", key: bobAgain).status == 204)
            #expect(try await Self.poll(test, stream: stream, token: token) == ["bob@hospital.example"])

            // SSF 1.0 §8.1.3.3: Bob removed, his events stop; §8.1.3.2: added back, they come again.
            let bobSubject: [String: Any] = ["format": "email", "email": "bob@hospital.example"]
            let removed = try await test.request(.POST, "/ssf/subjects:remove", json: ["stream_id": stream, "subject": bobSubject], key: token)
            #expect(removed.status == 204, "\(removed.text)")
            let third = try await Self.signIn(test, inbox: inbox, email: "bob@hospital.example", app: "com.example.notes", seen: &seen)
            #expect(try await test.request(.POST, "/auth/logout", key: third).status == 204)
            #expect(try await Self.poll(test, stream: stream, token: token).isEmpty, "a removed subject's events stop")
            let added = try await test.request(.POST, "/ssf/subjects:add", json: ["stream_id": stream, "subject": bobSubject, "verified": true], key: token)
            #expect(added.status == 200, "\(added.text)")

            // The grant withdrawn: back to the Mail app's own sessions, whatever subjects were added.
            let withdrawn = try await test.request(.PUT, "/api/v1/signals/clients/com.example.mail", json: ["subjects": "app"], key: test.adminKey)
            #expect(withdrawn.status == 200 && withdrawn.json["subjects"] as? String == "app", "\(withdrawn.text)")
            let adaAgain = try await Self.signIn(test, inbox: inbox, email: "ada@hospital.example", app: "com.example.mail", seen: &seen)
            let carol = try await Self.signIn(test, inbox: inbox, email: "carol@hospital.example", app: "com.example.notes", seen: &seen)
            #expect(try await test.request(.POST, "/auth/logout", key: adaAgain).status == 204)
            #expect(try await test.request(.POST, "/auth/logout", key: carol).status == 204)
            #expect(try await Self.poll(test, stream: stream, token: token) == ["ada@hospital.example"])
            let bad = try await test.request(.PUT, "/api/v1/signals/clients/com.example.mail", json: ["subjects": "everyone"], key: test.adminKey)
            #expect(bad.status == 400 && bad.json["field"] as? String == "subjects", "\(bad.text)")
            let unknown = try await test.request(.PUT, "/api/v1/signals/clients/com.example.nobody", json: ["subjects": "fleet"], key: test.adminKey)
            #expect(unknown.status == 404, "\(unknown.text)")

            // Each grant is in the audit log.
            let size = try await test.server.signAuditCheckpoint() ?? 0
            let entries = try await test.request(.GET, "/api/v1/audit/entries?start=0&end=\(min(size, 1_000))", key: test.adminKey)
            #expect(entries.text.contains("signals_grant") || entries.text.contains("signals.grant"), "\(entries.text.suffix(1500))")
        }
    }
}
