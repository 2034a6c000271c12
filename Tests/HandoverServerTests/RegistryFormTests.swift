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
}
