import Foundation
import HandoverServer
import Testing

/// Who is signed in, and what each role is offered (issue 66, item 2): every page's header names
/// the person or key, their role and sites, with the sign-out there; a viewer is shown no form it
/// cannot use, and each such form's handler refuses it (403) by the same rule.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DashboardRoleTests {
    /// The actions of the page's forms that post, other than signing out.
    static func postForms(in page: String) -> [String] {
        page.components(separatedBy: "<form").dropFirst().compactMap { tag -> String? in
            let head = String(tag.prefix { $0 != ">" })
            guard head.contains(#"method="post""#),
                  let action = head.components(separatedBy: #"action=""#).dropFirst().first?.components(separatedBy: "\"").first,
                  !action.hasPrefix("/dashboard/sign-out") else { return nil }
            return action
        }
    }

    /// A device out of service: its run's only app timed out (a 5 s deadline, no answer).
    static func deviceOutOfService(_ test: TestServer) async throws -> String {
        let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let device = try await test.registerDevice("ward-7-phone-1")
        let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        test.clock.advance(by: 6)
        try await test.server.fireDeadlines()
        return device.id
    }

    @Test func everyPagesHeaderNamesWhoIsSignedInTheirRoleAndSitesAndSignsOut() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await Self.deviceOutOfService(test)
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            for path in ["/dashboard", "/dashboard/devices", "/dashboard/devices/\(device)", "/dashboard/apps", "/dashboard/keys", "/tester"] {
                let page = try await browser.get(path)
                #expect(page.status == 200, "\(path)")
                let header = try #require(page.text.components(separatedBy: #"<div id="signed-in""#).dropFirst().first?.components(separatedBy: "</header>").first,
                                          "\(path) has no signed-in block")
                #expect(header.contains("test admin") && header.contains("(admin key hov_"), "\(path): \(header)")
                #expect(header.contains("admin at every site"), "\(path): \(header)")
                #expect(header.contains(#"action="/dashboard/sign-out""#), "\(path): the sign-out is in the header")
            }
        }
    }

    @Test func aViewerKeyOpensADashboardThatOffersNoFormItCannotUse() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await Self.deviceOutOfService(test)
            let pages = ["/dashboard", "/dashboard/devices", "/dashboard/devices/\(device)", "/dashboard/apps", "/dashboard/webhooks",
                         "/dashboard/custody", "/dashboard/scorecards", "/tester"]
            // An admin is offered the forms on these pages: the viewer's check below is not vacuous.
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            #expect(Self.postForms(in: try await admin.get("/dashboard/apps").text).contains("/dashboard/apps"))
            let devicePage = try await admin.get("/dashboard/devices/\(device)").text
            #expect(Self.postForms(in: devicePage).contains("/dashboard/devices/\(device.lowercased())/back-in-service"), "\(Self.postForms(in: devicePage))")
            #expect(Self.postForms(in: devicePage).contains("/dashboard/devices/\(device.lowercased())/retire"), "\(Self.postForms(in: devicePage))")
            #expect(Self.postForms(in: try await admin.get("/tester").text).contains("/tester"))

            let viewer = try await test.server.createAPIKey(name: "ward-7 wall screen", scope: .viewer)
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: viewer)
            for path in pages {
                let page = try await browser.get(path)
                #expect(page.status == 200, "\(path): \(page.status)")
                #expect(Self.postForms(in: page.text).isEmpty, "\(path) offers a viewer \(Self.postForms(in: page.text))")
                #expect(page.text.contains("viewer at every site") && page.text.contains("ward-7 wall screen"), "\(path)")
            }
            #expect(try await browser.get("/dashboard/keys").status == 403)
            // Each form the viewer was not offered refuses it, by the same rule.
            for path in ["/dashboard/apps", "/tester", "/dashboard/keys", "/dashboard/devices/\(device)/back-in-service",
                         "/dashboard/devices/\(device)/hand-over", "/dashboard/devices/\(device)/retire", "/dashboard/devices/\(device)/delete",
                         "/dashboard/devices/\(device)/key/new", "/dashboard/webhooks"] {
                let reply = try await browser.post(path, [("csrf", csrf), ("name", "x"), ("note", "x")])
                #expect(reply.status == 403 && reply.text.contains("needs"), "\(path): \(reply.status)")
            }
        }
    }

    @Test func aDeviceKeyDoesNotOpenTheDashboard() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await test.registerDevice()
            let browser = DashboardBrowser(test)
            let form = try await browser.get("/dashboard/sign-in")
            let reply = try await browser.post("/dashboard/sign-in", [("csrf", DashboardBrowser.csrf(in: form.text) ?? ""), ("key", device.key)])
            #expect(reply.status == 401)
            #expect(try await browser.get("/dashboard").status == 303)
        }
    }

    @Test func theHomePageSaysHowToSignIn() async throws {
        try await TestServer.with(.sqlite) { test in
            let home = try await test.request(.GET, "/")
            #expect(home.text.contains("sign in with an API key (admin, operator or viewer)"), "\(home.text)")
        }
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await AdminSignInTests.withServer(provider) { test in
            let home = try await test.request(.GET, "/")
            #expect(home.text.contains("sign in with your organisation") && !home.text.contains("API key"), "\(home.text)")
        }
    }

    @Test func aSiteScopedPersonSeesTheirSitesInTheHeader() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await AdminSignInTests.withServer(provider) { test in
            try await provider.setPerson("ines", ["name": "Ines Ortiz", "email": "ines@hospital.example", "groups": ["icu-leads"]],
                                         client: test.client)
            let browser = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(browser, at: provider, as: "ines").status == 200)
            let page = try await browser.get("/dashboard/devices")
            let header = try #require(page.text.components(separatedBy: #"<div id="signed-in""#).dropFirst().first?.components(separatedBy: "</header>").first)
            #expect(header.contains("Ines Ortiz") && header.contains("operator at ICU"), "\(header)")
            #expect(header.contains("Sign out everywhere"))
            // An operator at ICU registers no app and runs no test: those need admin at every site.
            #expect(Self.postForms(in: try await browser.get("/dashboard/apps").text).isEmpty)
            #expect(Self.postForms(in: try await browser.get("/tester").text).isEmpty)
        }
    }
}
