import Foundation
import HandoverServer
import Testing

/// The dashboard manages what the API manages (issue 39): webhooks added and their secrets
/// rotated, apps changed and removed, with the API's checks and sentences, admins only.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct RegistryFormTests {
    @Test func webhooksAreAddedAndTheirSecretsRotatedThroughTheDashboard() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/webhooks")
            #expect(page.text.contains("id=\"webhook-form\"") && page.text.contains("value=\"run.failed\""))
            let refused = try await browser.post("/dashboard/webhooks", [("csrf", csrf), ("url", "ftp://mdm.example.com/h"), ("events[]", "run.failed")])
            #expect(refused.status == 422 && refused.text.contains("url: give an https URL"), "\(refused.text)")
            let noEvents = try await browser.post("/dashboard/webhooks", [("csrf", csrf), ("url", "https://mdm.example.com/h")])
            #expect(noEvents.status == 422 && noEvents.text.contains("events: subscribe to at least one"))
            let added = try await browser.post("/dashboard/webhooks", [("csrf", csrf), ("url", "https://mdm.example.com/h"),
                                                                       ("events[]", "run.failed"), ("events[]", "device.out_of_service")])
            #expect(added.status == 201 && added.text.contains("whsec_"), "\(added.text)")
            let listed = try await test.request(.GET, "/api/v1/webhooks", key: test.adminKey).array
            #expect(listed.count == 1 && (listed.first?["events"] as? [String]) == ["device.out_of_service", "run.failed"])
            let id = try #require(listed.first?["id"] as? String)
            let rotated = try await browser.post("/dashboard/webhooks/\(id)/rotate-secret", [("csrf", csrf)])
            #expect(rotated.status == 200 && rotated.text.contains("whsec_"))
            #expect(try await browser.post("/dashboard/webhooks/\(UUID())/rotate-secret", [("csrf", csrf)]).status == 404)
        }
    }

    @Test func anAppIsChangedAndRemovedThroughTheDashboard() async throws {
        try await TestServer.with(.sqlite) { test in
            let mail = try await test.registerTarget("Mail").lowercased()
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            #expect(try await browser.get("/dashboard/apps").text.contains("/dashboard/apps/\(mail)/edit"))
            let form = try await browser.get("/dashboard/apps/\(mail)/edit")
            #expect(form.status == 200 && form.text.contains("https://mail.example.com/logout"))
            let bad = try await browser.post("/dashboard/apps/\(mail)/edit", [("csrf", csrf), ("logoutMethod", "ulc"),
                                                                              ("logoutAction", "http://mail.example.com/logout"), ("deadlineSeconds", "20")])
            #expect(bad.status == 422 && bad.text.contains("logoutAction"), "\(bad.text)")
            let changed = try await browser.post("/dashboard/apps/\(mail)/edit", [("csrf", csrf), ("logoutMethod", "ulc"),
                                                                                  ("logoutAction", "https://mail.example.com/ulc/logout"),
                                                                                  ("deadlineSeconds", "45"), ("maxReissues", "2"),
                                                                                  ("backchannelLogoutURI", "https://mail.example.com/bcl")])
            #expect(changed.status == 303, "\(changed.text)")
            let app = try await test.request(.GET, "/api/v1/apps/\(mail)", key: test.adminKey).json
            #expect(app["logoutAction"] as? String == "https://mail.example.com/ulc/logout" && app["deadlineSeconds"] as? Int == 45
                    && app["maxReissues"] as? Int == 2 && app["backchannelLogoutURI"] as? String == "https://mail.example.com/bcl")
            #expect(try await browser.post("/dashboard/apps/\(mail)/remove", [("csrf", "forged")]).status == 403)
            #expect(try await browser.post("/dashboard/apps/\(mail)/remove", [("csrf", csrf)]).status == 303)
            #expect(try await test.request(.GET, "/api/v1/apps/\(mail)", key: test.adminKey).status == 404)
        }
    }

    @Test func thePeoplePageNamesWhoChangedAppsWebhooksDevicesAndKeys() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            _ = try await test.registerTarget("Mail")
            _ = try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "icu-phone-1"), ("site", "ICU")])
            _ = try await browser.post("/dashboard/webhooks", [("csrf", csrf), ("url", "https://mdm.example.com/h"), ("events[]", "run.failed")])
            let wall = try await test.server.createAPIKey(name: "wall screen", scope: .viewer)
            _ = wall
            let id = try #require(try await test.request(.GET, "/api/v1/keys", key: test.adminKey).array
                .first { $0["name"] as? String == "wall screen" }?["id"] as? String)
            #expect(try await test.request(.DELETE, "/api/v1/keys/\(id)", key: test.adminKey).status == 204)
            let history = try await browser.get("/dashboard/people")
            let text = history.text.replacingOccurrences(of: "&quot;", with: "\"")
            #expect(text.contains("app changed") && text.contains("registered Mail") && text.contains("\"test admin\" (admin key"), "\(text)")
            #expect(text.contains("device changed") && text.contains("added icu-phone-1 at ICU") && text.contains("on the dashboard"))
            #expect(text.contains("webhook changed") && text.contains("added https://mdm.example.com/h"))
            #expect(text.contains("key changed") && text.contains("revoked \"wall screen\" (viewer key"))
        }
    }

    /// Issue 66: registering an app took two pages (the logout method and the back-channel URI
    /// were only on the edit page).
    @Test func oneFormRegistersAnAppWithItsLogoutMethodAndBackChannelURI() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let form = try await browser.get("/dashboard/apps")
            #expect(form.text.contains(#"name="logoutMethod""#) && form.text.contains(#"name="backchannelLogoutURI""#))
            let base = [("csrf", csrf), ("name", "notes"), ("role", "target"), ("appIDs", "ABCDE12345.com.example.notes")]
            let badMethod = try await browser.post("/dashboard/apps", base + [("logoutMethod", "carrier-pigeon")])
            #expect(badMethod.status == 422 && badMethod.text.contains("logoutMethod:") && badMethod.text.contains("backend-only"), "\(badMethod.text)")
            let badReissues = try await browser.post("/dashboard/apps", base + [("logoutAction", "https://notes.example.com/logout"), ("maxReissues", "lots")])
            #expect(badReissues.status == 422 && badReissues.text.contains("maxReissues:"), "\(badReissues.text)")
            let badURI = try await browser.post("/dashboard/apps", base + [("logoutMethod", "backend-only"), ("backchannelLogoutURI", "ftp://notes.example.com/bcl")])
            #expect(badURI.status == 422 && badURI.text.contains("backchannelLogoutURI"), "\(badURI.text)")
            #expect(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).array.isEmpty)
            let made = try await browser.post("/dashboard/apps", base + [("logoutMethod", "backend-only"), ("maxReissues", "0"),
                                                                         ("backchannelLogoutURI", "https://notes.example.com/bcl"),
                                                                         ("backchannelLogoutSessionRequired", "1")])
            #expect(made.status == 303, "\(made.text)")
            let app = try #require(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).array.first)
            #expect(app["logoutMethod"] as? String == "backend-only" && app["maxReissues"] as? Int == 0, "\(app)")
            #expect(app["backchannelLogoutURI"] as? String == "https://notes.example.com/bcl" && app["backchannelLogoutSessionRequired"] as? Bool == true)
        }
    }
}
