import Foundation
import HandoverConfiguration
import HandoverSchema
import HandoverServer
import Testing
import Vapor

/// SCIM 2.0 provisioning as the two directories hospitals use send it (issue 67), each request as
/// the vendor's public reference shows it:
/// - Microsoft Entra ID: "Tutorial: Develop and plan provisioning for a SCIM endpoint in Microsoft
///   Entra ID" (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups),
///   section "User operations" and "Group operations", and "Known issues and resolutions with SCIM
///   2.0 protocol compliance" (…/application-provisioning-config-problem-scim-compatibility), which
///   shows the capitalised `op` and the string booleans (`"value": "False"`).
/// - Okta: "SCIM 2.0 protocol reference" (developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
///   create, update with `PUT`, and deactivation with `active: false`.
@Suite("SCIM: Entra ID and Okta", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SCIMVendorReplayTests {
    static let token = "scim-test-token-0123456789abcdefghijklmnopqrstuvwxyz"

    /// A server that takes SCIM with `token`, and maps the directory's groups to roles.
    static func server(_ database: TestDatabase) async throws -> TestServer {
        try await TestServer.start(database) { configuration in
            configuration.directory.tokens = [token]
            configuration.adminSignIn = try? AdminSignInSettings(issuer: "https://login.example.org/tenant/v2.0", clientID: "handover", clientSecret: "secret",
                                                                 roleClaim: "groups", roleMap: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159=operator@ICU",
                                                                 allowsKeySignIn: true)
        }
    }

    /// A SCIM request: the body sent as written, with the directory's token.
    static func scim(_ test: TestServer, _ method: HTTPMethod, _ path: String, _ body: String? = nil, token: String = token) async throws -> TestServer.Reply {
        try await test.request(method, "/scim/v2" + path, headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/scim+json")],
                               body: body)
    }

    @Test(arguments: TestDatabase.available) func anEntraIDProvisioningCycle(database: TestDatabase) async throws {
        let test = try await Self.server(database)
        // "Create User": Entra's request, with the enterprise extension's employeeNumber (the badge).
        let created = try await Self.scim(test, .POST, "/Users", """
            {
                "schemas": [
                    "urn:ietf:params:scim:schemas:core:2.0:User",
                    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
                "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
                "userName": "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
                "active": true,
                "emails": [{
                    "primary": true,
                    "type": "work",
                    "value": "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"
                }],
                "meta": {
                    "resourceType": "User"
                },
                "name": {
                    "formatted": "givenName familyName",
                    "familyName": "familyName",
                    "givenName": "givenName"
                },
                "roles": [],
                "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {
                    "employeeNumber": "701984",
                    "department": "ICU"
                }
            }
            """)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.headers.first(name: "Content-Type")?.hasPrefix("application/scim+json") == true)
        let userID = try #require(created.json["id"] as? String)
        let meta = created.json["meta"] as? [String: Any]
        #expect(meta?["resourceType"] as? String == "User" && (meta?["location"] as? String)?.hasSuffix("/scim/v2/Users/\(userID)") == true, "\(created.text)")
        #expect(created.headers.first(name: "ETag") == meta?["version"] as? String)
        let enterprise = created.json["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"] as? [String: Any]
        #expect(enterprise?["employeeNumber"] as? String == "701984" && enterprise?["department"] as? String == "ICU", "\(created.text)")

        // "Get User by query": the filter Entra matches on before it creates or updates.
        let query = try await Self.scim(test, .GET, "/Users?filter=" + "userName eq \"Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1\"".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "+", "="]))!)
        #expect(query.status == 200 && query.json["totalResults"] as? Int == 1, "\(query.text)")
        #expect(((query.json["Resources"] as? [[String: Any]])?.first?["id"] as? String) == userID)
        // "Get User by query - Zero results".
        let none = try await Self.scim(test, .GET, "/Users?filter=" + "userName eq \"non-existent user\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(none.status == 200 && none.json["totalResults"] as? Int == 0 && (none.json["Resources"] as? [Any])?.isEmpty == true, "\(none.text)")

        // "Update User [Multi-valued properties]", capitalised op.
        let multi = try await Self.scim(test, .PATCH, "/Users/\(userID)", """
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [
                        {
                        "op": "Replace",
                        "path": "emails[type eq \\"work\\"].value",
                        "value": "updatedEmail@microsoft.com"
                        },
                        {
                        "op": "Replace",
                        "path": "name.familyName",
                        "value": "updatedFamilyName"
                        }
                ]
            }
            """)
        #expect(multi.status == 200, "\(multi.text)")
        #expect((multi.json["emails"] as? [[String: Any]])?.first?["value"] as? String == "updatedEmail@microsoft.com", "\(multi.text)")
        #expect((multi.json["name"] as? [String: Any])?["familyName"] as? String == "updatedFamilyName")

        // A string boolean, as Entra sends one (the compatibility page's "Replace" with "False").
        let flag = try await Self.scim(test, .PATCH, "/Users/\(userID)", """
            {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"True"}]}
            """)
        #expect(flag.status == 200 && flag.json["active"] as? Bool == true, "\(flag.text)")

        // "Create Group", then "Update Group [Add Members]" and "[Remove Members]".
        let group = try await Self.scim(test, .POST, "/Groups", """
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group", "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"],
                "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
                "displayName": "displayName",
                "meta": {
                    "resourceType": "Group"
                }
            }
            """)
        #expect(group.status == 201, "\(group.text)")
        let groupID = try #require(group.json["id"] as? String)
        let byName = try await Self.scim(test, .GET, "/Groups?excludedAttributes=members&filter=" + "displayName eq \"displayName\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(byName.status == 200 && byName.json["totalResults"] as? Int == 1, "\(byName.text)")
        let add = try await Self.scim(test, .PATCH, "/Groups/\(groupID)", """
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{
                    "op": "Add",
                    "path": "members",
                    "value": [{
                        "$ref": null,
                        "value": "\(userID)"
                    }]
                }]
            }
            """)
        #expect(add.status == 200 || add.status == 204, "\(add.text)")
        let member = try await Self.scim(test, .GET, "/Users/\(userID)")
        #expect((member.json["groups"] as? [[String: Any]])?.first?["value"] as? String == groupID, "\(member.text)")
        // The group's external id maps to operator@ICU: the People page shows the role.
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        var people = try await browser.get("/dashboard/people")
        #expect(people.text.contains("updatedemail@microsoft.com") && people.text.contains("operator@ICU"), "\(people.text.suffix(2000))")
        let remove = try await Self.scim(test, .PATCH, "/Groups/\(groupID)", """
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{
                    "op": "Remove",
                    "path": "members",
                    "value": [{
                        "$ref": null,
                        "value": "\(userID)"
                    }]
                }]
            }
            """)
        #expect(remove.status == 200 || remove.status == 204, "\(remove.text)")
        #expect(try await Self.scim(test, .GET, "/Users/\(userID)").json["groups"] == nil)
        people = try await browser.get("/dashboard/people")
        #expect(!people.text.contains("operator@ICU"), "\(people.text.suffix(2000))")

        // "Disable User", as Entra sends it with a string boolean.
        let disabled = try await Self.scim(test, .PATCH, "/Users/\(userID)", """
            {
                "Operations": [
                    {
                        "op": "Replace",
                        "path": "active",
                        "value": "False"
                    }
                ],
                "schemas": [
                    "urn:ietf:params:scim:api:messages:2.0:PatchOp"
                ]
            }
            """)
        #expect(disabled.status == 200 && disabled.json["active"] as? Bool == false, "\(disabled.text)")
        // "Delete User".
        #expect(try await Self.scim(test, .DELETE, "/Users/\(userID)").status == 204)
        let gone = try await Self.scim(test, .GET, "/Users/\(userID)")
        #expect(gone.status == 404 && (gone.json["schemas"] as? [String]) == ["urn:ietf:params:scim:api:messages:2.0:Error"] && gone.json["status"] as? String == "404",
                "RFC 7644 §3.12: \(gone.text)")
        // A deleted person's badge is refused from then on, and their userName is free again.
        let device = try await test.registerDevice()
        let badge = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "701984"], key: device.key)
        #expect(badge.status == 403 && badge.text.contains("badge_deprovisioned"), "\(badge.text)")
        let again = try await Self.scim(test, .POST, "/Users", #"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1"}"#)
        #expect(again.status == 201 && again.json["id"] as? String != userID, "\(again.text)")
        try await test.stop()
    }

    @Test(arguments: TestDatabase.available) func anOktaProvisioningCycle(database: TestDatabase) async throws {
        let test = try await Self.server(database)
        // "Create the user": Okta sends a password and an empty groups list; neither is kept.
        let created = try await Self.scim(test, .POST, "/Users", """
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "userName": "test.user@okta.local",
                "name": {
                    "givenName": "Test",
                    "familyName": "User"
                },
                "emails": [{
                    "primary": true,
                    "value": "test.user@okta.local",
                    "type": "work"
                }],
                "displayName": "Test User",
                "locale": "en-US",
                "externalId": "00ujl29u0le5T6Aj10h7",
                "groups": [],
                "password": "1mz050nq",
                "active": true
            }
            """)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["password"] == nil, "a password is never kept nor returned")
        let id = try #require(created.json["id"] as? String)
        // "Retrieve users": the filter, with paging.
        let found = try await Self.scim(test, .GET, "/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100")
        #expect(found.status == 200 && found.json["totalResults"] as? Int == 1 && found.json["startIndex"] as? Int == 1, "\(found.text)")
        // "Update a specific user (PUT)".
        let replaced = try await Self.scim(test, .PUT, "/Users/\(id)", """
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "id": "\(id)",
                "userName": "test.user@okta.local",
                "name": {
                    "givenName": "Another",
                    "familyName": "User"
                },
                "emails": [{
                    "primary": true,
                    "value": "test.user@okta.local",
                    "type": "work"
                }],
                "displayName": "Another User",
                "locale": "en-US",
                "externalId": "00ujl29u0le5T6Aj10h7",
                "groups": [],
                "password": "1mz050nq",
                "active": true,
                "meta": {
                    "resourceType": "User"
                }
            }
            """)
        #expect(replaced.status == 200 && replaced.json["displayName"] as? String == "Another User", "\(replaced.text)")
        // A stale ETag is refused (RFC 7644 §3.14).
        let stale = try await test.request(.PUT, "/scim/v2/Users/\(id)", headers: [("Authorization", "Bearer \(Self.token)"), ("If-Match", "W/\"1\""),
                                                                                     ("Content-Type", "application/scim+json")],
                                            body: #"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"test.user@okta.local"}"#)
        #expect(stale.status == 412, "\(stale.text)")
        // "Deactivate a user": `active: false` in a replace without a path.
        let deactivated = try await Self.scim(test, .PATCH, "/Users/\(id)", """
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{
                    "op": "replace",
                    "value": {
                        "active": false
                    }
                }]
            }
            """)
        #expect(deactivated.status == 200 && deactivated.json["active"] as? Bool == false, "\(deactivated.text)")
        // Okta's older deactivation: the whole user again with `active: false`, by PUT.
        var again = replaced.json
        again["active"] = false
        let put = try await test.request(.PUT, "/scim/v2/Users/\(id)", json: again, key: Self.token)
        #expect(put.status == 200 && put.json["active"] as? Bool == false, "\(put.text)")
        try await test.stop()
    }

    @Test func theTokenIsCheckedAndTwoAreValidDuringARotation() async throws {
        let previous = "scim-previous-token-0123456789abcdefghijklmnopqrstu"
        try await TestServer.with(.sqlite, configure: { $0.directory.tokens = [Self.token, previous] }) { test in
            #expect(try await Self.scim(test, .GET, "/ServiceProviderConfig").status == 200)
            #expect(try await Self.scim(test, .GET, "/ServiceProviderConfig", token: previous).status == 200)
            let wrong = try await Self.scim(test, .GET, "/Users", token: "guessed-0123456789abcdefghijklmnopqrstuvwxyz")
            #expect(wrong.status == 401 && wrong.json["status"] as? String == "401", "\(wrong.text)")
            #expect(try await Self.scim(test, .GET, "/Users", token: test.adminKey).status == 401, "an API key is not the SCIM token")
            // The guesser is slowed like every other credential's (30 a minute per address, then
            // 429 with Retry-After); the right token is served all the while.
            var statuses: [Int] = []
            for attempt in 0..<30 { statuses.append(try await Self.scim(test, .GET, "/Users", token: "guess-\(attempt)-0123456789abcdefghijklmnopqrstuvwxyz").status) }
            #expect(statuses.contains(429), "\(statuses)")
            let slowed = try await Self.scim(test, .GET, "/Users", token: "guessed-again-0123456789abcdefghijklmnopqrstuvwxyz")
            #expect(slowed.status == 429 && slowed.headers.first(name: "Retry-After") != nil && slowed.json["status"] as? String == "429", "\(slowed.text)")
            #expect(try await Self.scim(test, .GET, "/Users").status == 200, "the right token is never held back")
        }
        // The badge may live in another attribute (HANDOVER_SCIM_BADGE_ATTRIBUTE).
        try await TestServer.with(.sqlite, configure: {
            $0.directory.tokens = [Self.token]
            $0.directory.badgeAttribute = (try? ServerConfiguration.parseBadgeAttribute("nickName", setting: "test")) ?? $0.directory.badgeAttribute
        }) { test in
            let created = try await Self.scim(test, .POST, "/Users", #"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"grace@hospital.example","nickName":"77-0042"}"#)
            #expect(created.status == 201 && created.json["nickName"] as? String == "77-0042", "\(created.text)")
            let device = try await test.registerDevice()
            let out = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "77-0042"], key: device.key)
            #expect(out.status == 201 && out.json["personEmail"] as? String == "grace@hospital.example", "\(out.text)")
        }
        try await TestServer.with(.sqlite) { test in
            let off = try await Self.scim(test, .GET, "/Users")
            #expect(off.status == 401 && (off.json["detail"] as? String)?.contains("HANDOVER_SCIM_TOKEN") == true, "\(off.text)")
        }
    }
}

/// The SCIM settings' mistakes stop the start with one line naming the setting (issue 67).
@Suite struct SCIMSettingsTests {
    @Test func aShortTokenAPreviousOneAloneAndABadgeAttributeThatCannotHoldOneAreRefused() throws {
        let good = "scim-test-token-0123456789abcdefghijklmnopqrstuvwxyz"
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_SCIM_TOKEN": good, "HANDOVER_SCIM_PREVIOUS_TOKEN": good + "-old"]).directory.tokens.count == 2)
        for (environment, setting) in [(["HANDOVER_SCIM_TOKEN": "short"], "HANDOVER_SCIM_TOKEN"),
                                       (["HANDOVER_SCIM_TOKEN": good + " with a space"], "HANDOVER_SCIM_TOKEN"),
                                       (["HANDOVER_SCIM_PREVIOUS_TOKEN": good], "HANDOVER_SCIM_PREVIOUS_TOKEN"),
                                       (["HANDOVER_SCIM_BADGE_ATTRIBUTE": "emails"], "HANDOVER_SCIM_BADGE_ATTRIBUTE"),
                                       (["HANDOVER_SCIM_BADGE_ATTRIBUTE": "not a path!"], "HANDOVER_SCIM_BADGE_ATTRIBUTE")] {
            #expect {
                _ = try ServerConfiguration.fromEnvironment(environment)
            } throws: { error in
                (error as? ConfigurationError)?.description.contains(setting) == true
            }
        }
        let nick = try ServerConfiguration.fromEnvironment(["HANDOVER_SCIM_BADGE_ATTRIBUTE": "nickName"])
        #expect(nick.directory.badgeAttribute.attribute == "nickName" && nick.directory.badgeAttribute.schema == nil)
    }
}
