import Foundation
import HandoverServer
import Testing

/// Devices added and changed through `PATCH /api/v1/devices/{id}` and the dashboard's forms,
/// with the same checks and sentences (issue 39), and an ICU operator kept to the ICU.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct DeviceFormTests {
    @Test func aDeviceIsRenamedMovedAndItsIdentifiersChangedThroughTheAPI() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await test.registerDevice("icu-phone-1", site: "ICU")
            _ = try await test.request(.POST, "/api/v1/devices", json: ["name": "other", "serialNumber": "C02OTHER0001"], key: test.adminKey)
            let path = "/api/v1/devices/\(device.id)"
            let moved = try await test.request(.PATCH, path, json: ["name": "  ward-3-phone-9 ", "site": "Ward-3", "serialNumber": "c02new000001"],
                                               key: test.adminKey)
            #expect(moved.status == 200 && moved.json["name"] as? String == "ward-3-phone-9" && moved.json["site"] as? String == "Ward-3"
                    && moved.json["serialNumber"] as? String == "C02NEW000001", "\(moved.text)")
            let cleared = try await test.request(.PATCH, path, json: ["site": "", "serialNumber": ""], key: test.adminKey)
            #expect(cleared.status == 200 && cleared.json["site"] == nil && cleared.json["serialNumber"] == nil && cleared.json["name"] as? String == "ward-3-phone-9")
            let duplicate = try await test.request(.PATCH, path, json: ["serialNumber": "C02OTHER0001"], key: test.adminKey)
            #expect(duplicate.status == 409 && duplicate.text.contains("already registered, to 'other'"))
            let badSite = try await test.request(.PATCH, path, json: ["site": "ICU@ward"], key: test.adminKey)
            #expect(badSite.status == 422 && badSite.text.contains("site: 'ICU@ward' is not a site name"))
            let noName = try await test.request(.PATCH, path, json: ["name": " "], key: test.adminKey)
            #expect(noName.status == 422 && noName.text.contains("name: give 1 to 100 characters"))
            #expect(try await test.request(.PATCH, "/api/v1/devices/\(UUID())", json: ["name": "x"], key: test.adminKey).status == 404)
        }
    }

    @Test func theDashboardAddsAndChangesDevicesWithTheAPIsSentences() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            #expect(try await browser.get("/dashboard/devices").text.contains("/dashboard/devices/new"))
            let added = try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "icu-phone-1"), ("site", "ICU"),
                                                                          ("serialNumber", "C02ICU000001"), ("mdmDeviceID", "")])
            #expect(added.status == 201 && added.text.contains("hov_") && added.text.contains("at ICU"), "\(added.text)")
            let listed = try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array
            let id = try #require(listed.first?["id"] as? String)
            #expect(listed.first?["site"] as? String == "ICU" && listed.first?["mdmDeviceID"] == nil)
            let refused = try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "x"), ("serialNumber", "C02ICU000001")])
            #expect(refused.status == 409 && refused.text.contains("already registered, to &#39;icu-phone-1&#39;")
                    || refused.text.contains("already registered, to 'icu-phone-1'"), "\(refused.text)")
            let form = try await browser.get("/dashboard/devices/\(id)/edit")
            #expect(form.status == 200 && form.text.contains("value=\"ICU\""))
            let moved = try await browser.post("/dashboard/devices/\(id)/edit", [("csrf", csrf), ("name", "ward-3-phone-1"), ("site", "Ward-3"),
                                                                                 ("serialNumber", "C02ICU000001"), ("mdmDeviceID", "")])
            #expect(moved.status == 303)
            let page = try await browser.get("/dashboard/devices/\(id)")
            #expect(page.text.contains("ward-3-phone-1") && page.text.contains("Site: Ward-3"))
        }
    }

    @Test func anICUOperatorAddsAndMovesDevicesOnlyWithinTheICU() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await AdminSignInTests.withServer(provider) { test in
            try await provider.setPerson("iris", ["name": "Iris", "groups": ["icu-leads"]], client: test.client)
            let icu = try await test.registerDevice("icu-phone-1", site: "ICU")
            let browser = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(browser, at: provider, as: "iris").status == 200)
            let csrf = try #require(DashboardBrowser.csrf(in: try await browser.get("/dashboard/devices/new").text))
            let elsewhere = try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "x"), ("site", "Ward-3")])
            #expect(elsewhere.status == 403 && elsewhere.text.contains("at Ward-3"), "\(elsewhere.text)")
            let nowhere = try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "x"), ("site", "")])
            #expect(nowhere.status == 403)
            #expect(try await browser.post("/dashboard/devices/new", [("csrf", csrf), ("name", "icu-phone-2"), ("site", "ICU")]).status == 201)
            let away = try await browser.post("/dashboard/devices/\(icu.id)/edit", [("csrf", csrf), ("name", "icu-phone-1"), ("site", "Ward-3")])
            #expect(away.status == 403, "moving a device out of the ICU needs the role at the other site too")
            let renamed = try await browser.post("/dashboard/devices/\(icu.id)/edit", [("csrf", csrf), ("name", "icu-phone-one"), ("site", "ICU")])
            #expect(renamed.status == 303)
        }
    }
}
