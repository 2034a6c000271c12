import Foundation
import HandoverCore
import HandoverSchema
import HandoverServer
import Testing

/// Keys from the dashboard (issue 66, item 1): an admin makes a key of a person or service on the
/// Keys page (name, role, lifetime), sees it once, and it works with its role; each wrong field is
/// refused with its name and what is accepted, the rules of `handover admin create-key`.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DashboardKeyTests {
    /// The key a "New key" page shows.
    static func shownKey(in page: String) -> String? {
        page.components(separatedBy: #"id="new-key">"#).dropFirst().first?.components(separatedBy: "<").first
    }

    @Test func anAdminMakesAViewerKeyOnTheKeysPageSeesItOnceAndItReadsButDoesNotChange() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let form = try await browser.get("/dashboard/keys")
            #expect(DashboardRoleTests.postForms(in: form.text).contains("/dashboard/keys"), "the Keys page offers the form")
            let made = try await browser.post("/dashboard/keys", [("csrf", csrf), ("name", "  ward-7 wall screen "), ("role", "viewer"),
                                                                  ("expiresIn", "90d")])
            #expect(made.status == 201, "\(made.text)")
            #expect(made.headers.first(name: "Cache-Control") == "no-store")
            let key = try #require(Self.shownKey(in: made.text))
            #expect(key.hasPrefix("hov_") && key.count > 40)
            // It reads, and it is refused what a viewer may not do.
            #expect(try await test.request(.GET, "/api/v1/devices", key: key).status == 200)
            #expect(try await test.request(.POST, "/api/v1/apps", json: ["name": "x"], key: key).status == 403)
            // Listed with its role and expiry (90 days on the server's clock); never shown again.
            let listed = try await test.request(.GET, "/api/v1/keys?scope=viewer", key: test.adminKey).array
            let entry = try #require(listed.first { $0["name"] as? String == "ward-7 wall screen" }, "\(listed)")
            let expires = try #require((entry["expiresAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(expires.timeIntervalSince(test.clock.now()) - 90 * 86_400) < 2)
            let page = try await browser.get("/dashboard/keys")
            #expect(page.text.contains("ward-7 wall screen") && !page.text.contains(key))
            // The People page's history names who made it.
            let history = try await browser.get("/dashboard/people").text.replacingOccurrences(of: "&quot;", with: "\"")
            #expect(history.contains("made \"ward-7 wall screen\" (viewer key"), "\(history)")
            // A key without a lifetime works until revoked.
            let forever = try await browser.post("/dashboard/keys", [("csrf", csrf), ("name", "IT on-call"), ("role", "admin"), ("expiresIn", "")])
            #expect(forever.status == 201 && forever.text.contains("working until it is revoked"), "\(forever.text)")
        }
    }

    @Test func theKeyFormRefusesEachWrongFieldWithItsNameAndWhatIsAccepted() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let cases: [(name: String, role: String, expiresIn: String, field: String, says: String)] = [
                ("", "viewer", "", "name", "give the key a name"),
                (String(repeating: "n", count: 101), "viewer", "", "name", "at most 100"),
                ("wall\u{1B}[31m", "viewer", "", "name", "control characters"),
                ("wall", "device", "", "role", "made on its page"),
                ("wall", "superuser", "", "role", "accepted: admin, operator, viewer"),
                ("wall", "viewer", "forever", "expiresIn", "from 1h to 3650d"),
                ("wall", "viewer", "0d", "expiresIn", "from 1h to 3650d"),
                ("wall", "viewer", "3651d", "expiresIn", "from 1h to 3650d"),
                ("wall", "viewer", "99999999999999999999h", "expiresIn", "from 1h to 3650d"),
            ]
            for entry in cases {
                let reply = try await browser.post("/dashboard/keys", [("csrf", csrf), ("name", entry.name), ("role", entry.role),
                                                                       ("expiresIn", entry.expiresIn)])
                #expect(reply.status == 422, "\(entry): \(reply.status)")
                let error = reply.text.components(separatedBy: #"id="form-error""#).dropFirst().first?.components(separatedBy: "</p>").first ?? ""
                #expect(error.contains("\(entry.field):") && error.contains(entry.says), "\(entry): \(error)")
                #expect(Self.shownKey(in: reply.text) == nil)
            }
            // What was sent is shown again beside the refusal.
            let refused = try await browser.post("/dashboard/keys", [("csrf", csrf), ("name", "ward-9 desk"), ("role", "operator"), ("expiresIn", "soon")])
            #expect(refused.text.contains(#"value="ward-9 desk""#) && refused.text.contains(#"value="soon""#))
            // Nothing was made.
            #expect(try await test.request(.GET, "/api/v1/keys?scope=viewer", key: test.adminKey).array.isEmpty)
            #expect(try await test.request(.GET, "/api/v1/keys?scope=operator", key: test.adminKey).array.isEmpty)
            // Without the form's token, nothing either.
            #expect(try await browser.post("/dashboard/keys", [("name", "x"), ("role", "viewer")]).status == 403)
        }
    }

    @Test func onlyAnAdminMakesKeys() async throws {
        try await TestServer.with(.sqlite) { test in
            for (name, scope) in [("viewer desk", APIKeyScope.viewer), ("operator desk", .operator)] {
                let key = try await test.server.createAPIKey(name: name, scope: scope)
                let browser = DashboardBrowser(test)
                let csrf = try await browser.signIn(key: key)
                #expect(try await browser.get("/dashboard/keys").status == 403)
                let reply = try await browser.post("/dashboard/keys", [("csrf", csrf), ("name", "mine"), ("role", "admin")])
                #expect(reply.status == 403 && reply.text.contains("needs admin"), "\(name): \(reply.status)")
            }
            #expect(try await test.request(.GET, "/api/v1/keys?scope=admin", key: test.adminKey).array.count == 1)
        }
    }

    /// A key for one site (issue 66, item 1: keys made with a site): it opens the dashboard with
    /// its role at that site only, and the API, whose operations span sites, refuses it.
    @Test func aSitesKeyOpensItsSitesDashboardAndNotTheAPI() async throws {
        try await TestServer.with(.sqlite) { test in
            let ward = try await test.registerDevice("W7-01", site: "Ward 7")
            let icu = try await test.registerDevice("ICU-01", site: "ICU")
            let admin = DashboardBrowser(test)
            let csrf = try await admin.signIn(key: test.adminKey)
            let refused = try await admin.post("/dashboard/keys", [("csrf", csrf), ("name", "wall"), ("role", "operator"), ("site", "Ward+7")])
            #expect(refused.status == 422 && refused.text.contains("site:") && refused.text.contains("has &#39;+&#39;")
                        || refused.text.contains("has '+'"), "\(refused.text)")
            let made = try await admin.post("/dashboard/keys", [("csrf", csrf), ("name", "ward-7 wall screen"), ("role", "operator"),
                                                               ("expiresIn", ""), ("site", " ward 7 ")])
            #expect(made.status == 201 && made.text.contains("at ward 7 only"), "\(made.text)")
            let key = try #require(Self.shownKey(in: made.text))
            #expect(try await admin.get("/dashboard/keys").text.contains("<td>ward 7</td>"))
            let listed = try await test.request(.GET, "/api/v1/keys?scope=operator", key: test.adminKey).array
            #expect(listed.first?["site"] as? String == "ward 7")

            // The API refuses it, by what it is (not as a wrong key).
            let api = try await test.request(.GET, "/api/v1/devices", key: key)
            #expect(api.status == 403 && api.text.contains("for ward 7 only"), "\(api.text)")
            // The dashboard: Ward 7's device, with its forms; ICU's is as absent as one that does not exist.
            let wall = DashboardBrowser(test)
            _ = try await wall.signIn(key: key)
            let header = try await wall.get("/dashboard")
            #expect(header.text.contains("operator at ward 7") || header.text.contains("operator at Ward 7"), "\(header.text.prefix(3000))")
            let own = try await wall.get("/dashboard/devices/\(ward.id.lowercased())")
            #expect(own.status == 200 && DashboardRoleTests.postForms(in: own.text).contains { $0.hasSuffix("/hand-over") })
            #expect(try await wall.get("/dashboard/devices/\(icu.id.lowercased())").status == 404)
        }
    }
}
