import Foundation
import HandoverServer
import Testing

/// An admin sets the roles a person has besides the provider's, on the People page (issue 66,
/// item 3): added roles apply at the person's next sign-in; taking one away ends their open
/// sessions at once; each change is in the admin history; a wrong entry is refused naming the
/// field and why; a viewer is neither offered nor allowed the form.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct PeopleRolesTests {
    @Test func anAdminGrantsAPersonARoleAndTakingItAwayEndsTheirSessions() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await AdminSignInTests.withServer(provider) { test in
            try await provider.setPerson("ada", ["name": "Ada", "email": "ada@hospital.example", "groups": ["handover-admins"]], client: test.client)
            try await provider.setPerson("bob", ["name": "Bob", "email": "bob@hospital.example", "groups": ["night-desk"]], client: test.client)
            let ada = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(ada, at: provider, as: "ada").status == 200)
            let bob = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(bob, at: provider, as: "bob").status == 200)
            let adaCSRF = try #require(DashboardBrowser.csrf(in: try await ada.get("/dashboard").text))
            let bobCSRF = try #require(DashboardBrowser.csrf(in: try await bob.get("/dashboard").text))

            let people = try await ada.get("/dashboard/people")
            let row = try #require(people.text.components(separatedBy: #"<tr id="person-"#).first { $0.contains("bob@hospital.example") })
            let bobID = String(row.prefix(36))
            let action = "/dashboard/people/\(bobID)/roles"
            #expect(DashboardRoleTests.postForms(in: people.text).contains(action), "\(DashboardRoleTests.postForms(in: people.text))")

            // Bob, a viewer, is offered no such form and is refused it.
            #expect(try await bob.get("/dashboard/people").status == 403)
            let refused = try await bob.post(action, [("csrf", bobCSRF), ("roles", "admin")])
            #expect(refused.status == 403 && refused.text.contains("needs admin"), "\(refused.status)")

            // A wrong entry names the field and why; nothing changes.
            let bad = try await ada.post(action, [("csrf", adaCSRF), ("roles", "operator@ICU,superuser")])
            #expect(bad.status == 422 && bad.text.contains("roles: entry 2 (&#39;superuser&#39;) names the role &#39;superuser&#39;"), "\(bad.text)")
            #expect(try await ada.post(action, [("csrf", "wrong"), ("roles", "admin")]).status == 403)

            // Granted: Bob's session goes on as it was; his next sign-in has both.
            let granted = try await ada.post(action, [("csrf", adaCSRF), ("roles", "operator@ICU")])
            #expect(granted.status == 303, "\(granted.text)")
            #expect(try await bob.get("/dashboard").status == 200, "a role added ends no session")
            #expect(try await AdminSignInTests.signIn(bob, at: provider, as: "bob").status == 200)
            let header = try await bob.get("/dashboard/devices").text
            #expect(header.contains(#"<span id="signed-in-role">operator at ICU; viewer at every site</span>"#), "\(header)")
            let history = try await ada.get("/dashboard/people").text
            #expect(history.contains("roles changed") && history.contains("local roles to operator@ICU (was no role)"), "\(history)")
            #expect(history.contains(#"name="roles" value="operator@ICU""#))

            // Taken away: every session Bob has ends at once.
            let taken = try await ada.post(action, [("csrf", adaCSRF), ("roles", "")])
            #expect(taken.status == 303)
            let after = try await bob.get("/dashboard")
            #expect(after.status == 303 && after.headers.first(name: "Location") == "/dashboard/sign-in", "\(after.status)")
            let recorded = try await ada.get("/dashboard/people").text
            #expect(recorded.contains("local roles to no role (was operator@ICU)") && recorded.contains("a role was taken away"), "\(recorded)")
            // His next sign-in has the provider's role alone.
            #expect(try await AdminSignInTests.signIn(bob, at: provider, as: "bob").status == 200)
            let again = try await bob.get("/dashboard/devices").text
            #expect(again.contains(#"<span id="signed-in-role">viewer at every site</span>"#), "\(again)")
        }
    }

    /// Sites hold for the dashboard's new forms as for the API: an ICU operator's import adds the
    /// ICU rows and refuses the others on their site; retiring needs admin at the device's site,
    /// which a local role can grant, and a device of another site stays unseen (404).
    @Test func aSiteScopedPersonImportsAndRetiresOnlyAtTheirSites() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await AdminSignInTests.withServer(provider) { test in
            try await provider.setPerson("ada", ["name": "Ada", "email": "ada@hospital.example", "groups": ["handover-admins"]], client: test.client)
            try await provider.setPerson("ivy", ["name": "Ivy", "email": "ivy@hospital.example", "groups": ["icu-leads"]], client: test.client)
            let icu = try await test.registerDevice("icu-phone-1", site: "ICU")
            let ward = try await test.registerDevice("ward-7-phone-1", site: "Ward 7")
            let ivy = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(ivy, at: provider, as: "ivy").status == 200)
            var ivyCSRF = try #require(DashboardBrowser.csrf(in: try await ivy.get("/dashboard").text))

            let preview = try await ivy.post("/dashboard/devices/import/preview",
                                             [("csrf", ivyCSRF), ("csv", "name,site\nicu-phone-2,ICU\nward-7-phone-2,Ward 7\nspare-phone,\n")])
            #expect(preview.status == 200 && preview.text.contains("To add (1)") && preview.text.contains("icu-phone-2"), "\(preview.text)")
            #expect(preview.text.contains("<td>3</td><td>site</td>") && preview.text.contains("does not allow adding devices at Ward 7"), "\(preview.text)")
            #expect(preview.text.contains("<td>4</td><td>site</td>") && preview.text.contains("without a site"), "\(preview.text)")

            let icuPath = "/dashboard/devices/\(icu.id.lowercased())"
            #expect(!DashboardRoleTests.postForms(in: try await ivy.get(icuPath).text).contains(icuPath + "/retire"), "an operator is not offered retire")
            let refused = try await ivy.post(icuPath + "/retire", [("csrf", ivyCSRF), ("note", "broken")])
            #expect(refused.status == 403 && refused.text.contains("needs admin"), "\(refused.status): \(refused.text)")

            // Ada gives Ivy admin at the ICU; at her next sign-in she may retire the ICU's devices.
            let ada = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(ada, at: provider, as: "ada").status == 200)
            let adaCSRF = try #require(DashboardBrowser.csrf(in: try await ada.get("/dashboard").text))
            let row = try #require(try await ada.get("/dashboard/people").text.components(separatedBy: #"<tr id="person-"#)
                .first { $0.contains("ivy@hospital.example") })
            #expect(try await ada.post("/dashboard/people/\(row.prefix(36))/roles", [("csrf", adaCSRF), ("roles", "admin@ICU")]).status == 303)
            #expect(try await AdminSignInTests.signIn(ivy, at: provider, as: "ivy").status == 200)
            ivyCSRF = try #require(DashboardBrowser.csrf(in: try await ivy.get("/dashboard").text))
            #expect(DashboardRoleTests.postForms(in: try await ivy.get(icuPath).text).contains(icuPath + "/retire"))
            let retired = try await ivy.post(icuPath + "/retire", [("csrf", ivyCSRF), ("note", "Cracked; replaced by icu-phone-2")])
            #expect(retired.status == 303, "\(retired.text)")
            let wardPath = "/dashboard/devices/\(ward.id.lowercased())"
            #expect(try await ivy.get(wardPath).status == 404)
            #expect(try await ivy.post(wardPath + "/retire", [("csrf", ivyCSRF), ("note", "x")]).status == 404)
            #expect(try await test.request(.GET, "/api/v1/devices/\(ward.id)", key: test.adminKey).json["status"] as? String == "in_service")
        }
    }
}
