import Foundation
import SQLKit
import Testing

/// What the registry refuses or tidies so that the server never serves or sends something
/// unsafe: association files over iOS's limit, look-alike callback hosts, webhook targets inside
/// the network, runs that repeat an app, and secrets in clear text at rest.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct RegistryHardeningTests {
    static func target(_ name: String, paths: [String] = [], hosts: [String] = []) -> [String: Any] {
        ["name": name, "appIDs": ["ABCDE12345.com.example.\(name.lowercased())"],
         "logoutAction": "https://\(name.lowercased()).example.com/logout", "paths": paths, "allowedCallbackHosts": hosts]
    }

    @Test func anAppThatWouldPushTheAssociationFilePast128KBIsRefusedWithWhatIsLeft() async throws {
        try await TestServer.with(.sqlite) { test in
            let paths = (0..<100).map { "/p\($0)/" + String(repeating: "a", count: 990) }
            let first = try await test.request(.POST, "/api/v1/apps", json: Self.target("Big", paths: paths), key: test.adminKey)
            #expect(first.status == 201, "\(first.text)")
            let second = try await test.request(.POST, "/api/v1/apps", json: Self.target("Bigger", paths: paths), key: test.adminKey)
            #expect(second.status == 422, "\(second.text)")
            #expect(second.json["error"] as? String == "association_file_too_large")
            #expect(second.json["field"] as? String == "paths")
            let reason = second.json["reason"] as? String ?? ""
            #expect(reason.contains("bytes are left") && reason.contains("128 KB"), "\(reason)")
            let file = try await test.request(.GET, "/.well-known/apple-app-site-association")
            #expect(file.status == 200 && file.body.count <= 128 * 1024, "\(file.body.count) bytes served")
        }
    }

    @Test(arguments: ["аpple.com", "xn--pple-43d.com", "pаypal.example.com"])
    func aCallbackHostThatMixesScriptsIsRefused(host: String) async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/api/v1/apps", json: Self.target("Mail", hosts: [host]), key: test.adminKey)
            #expect(reply.status == 422, "\(reply.text)")
            #expect(reply.json["field"] as? String == "allowedCallbackHosts[0]")
            #expect((reply.json["reason"] as? String ?? "").contains("mixes scripts"))
        }
    }

    @Test func callbackHostsAreStoredInASCIIOnceEachAndCapped() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/api/v1/apps", json: Self.target("Mail", hosts: [
                "Launcher.Example.com", "launcher.example.com", "bücher.example", "*.Example.org", "яндекс.example",
            ]), key: test.adminKey)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["allowedCallbackHosts"] as? [String] == [
                "launcher.example.com", "xn--bcher-kva.example", "*.example.org", "xn--d1acpjx3f.example",
            ])
            let many = (0..<101).map { "h\($0).example.com" }
            let refused = try await test.request(.POST, "/api/v1/apps", json: Self.target("Notes", hosts: many), key: test.adminKey)
            #expect(refused.status == 422 && refused.json["field"] as? String == "allowedCallbackHosts", "\(refused.text)")
            #expect((refused.json["reason"] as? String ?? "").contains("at most 100"))
        }
    }

    @Test(arguments: [
        ("http://127.evil.example/x", "url"), ("https://169.254.169.254/latest/meta-data", "url"), ("https://[fe80::1]/x", "url"),
        ("https://10.1.2.3/hook", "url"), ("https://[::ffff:169.254.169.254]/x", "url"), ("https://100.100.100.200/x", "url"),
    ])
    func aWebhookTargetInsideTheNetworkIsRefused(url: String, field: String) async throws {
        try await TestServer.with(.sqlite, configure: { $0.allowsLoopbackWebhooks = false }) { test in
            let reply = try await test.request(.POST, "/api/v1/webhooks", json: ["url": url, "events": ["run.completed"]], key: test.adminKey)
            #expect(reply.status == 422, "\(url): \(reply.text)")
            #expect(reply.json["field"] as? String == field)
        }
    }

    @Test func aWebhookNameIsResolvedAndCheckedAtDelivery() async throws {
        let receiver = try await WebhookReceiver.start()
        // `localhost` names loopback, which webhooks reach only when an admin allows private
        // targets: registering it is refused otherwise (issue 63, as a Shared Signals push
        // endpoint's is). A webhook that names it all the same (registered by an earlier release,
        // written here into the database) is checked again at each delivery, by the address its
        // name resolves to, and not delivered.
        let url = receiver.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        for allowed in [false, true] {
            try await TestServer.with(.sqlite, configure: { $0.allowsLoopbackWebhooks = false; $0.allowsPrivateWebhookTargets = allowed }) { test in
                var hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": url, "events": ["run.failed"]],
                                                  key: test.adminKey)
                if !allowed {
                    #expect(hook.status == 422 && hook.json["field"] as? String == "url" && hook.text.contains("loopback"), "\(hook.text)")
                    hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/h", "events": ["run.failed"]],
                                                  key: test.adminKey)
                    let sql = try #require(test.server.databases.primary as? any SQLDatabase)
                    try await sql.raw("UPDATE webhooks SET url = \(bind: url)").run()
                }
                #expect(hook.status == 201, "\(hook.text)")
                let hookID = try #require((hook.json["webhook"] as? [String: Any])?["id"] as? String)
                try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
                let device = try await test.registerDevice()
                #expect(try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key).status == 201)
                test.clock.advance(by: 6)
                try await test.server.fireDeadlines()  // the run fails: a run.failed event to deliver
                #expect(try await test.server.deliverWebhooks() >= 1)
                let deliveries = try await test.request(.GET, "/api/v1/webhooks/\(hookID)/deliveries", key: test.adminKey).array
                let first = try #require(deliveries.first)
                if allowed {
                    #expect(first["status"] as? String == "delivered", "\(first)")
                } else {
                    #expect(first["status"] as? String == "pending", "\(first)")
                    #expect((first["lastError"] as? String ?? "").contains("loopback"), "\(first)")
                }
            }
        }
        try await receiver.stop()
    }

    @Test func aRunThatRepeatsAnAppHasEachAppOnce() async throws {
        try await TestServer.with(.sqlite) { test in
            let mail = try await test.registerTarget("Mail")
            let notes = try await test.registerTarget("Notes")
            let device = try await test.registerDevice()
            let apps = Array(repeating: mail, count: 6000) + [notes, mail]
            let reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": apps], key: device.key)
            #expect(reply.status == 201, "\(reply.text.prefix(300))")
            let items = reply.json["items"] as? [[String: Any]] ?? []
            #expect(items.compactMap { $0["app"] as? String } == ["Mail", "Notes"], "\(items.count) items")
            #expect(reply.body.count < 10_000)
        }
    }

    @Test func secretsAtRestAreSealedAndTheFilesAreTheOwnersOnly() async throws {
        try await TestServer.with(.sqlite) { test in
            let secret = "whsec_" + String(repeating: "Q", count: 32)
            let hook = try await test.request(.POST, "/api/v1/webhooks", json: [
                "url": "https://mdm.example.com/hooks", "events": ["run.completed"], "secret": secret,
            ], key: test.adminKey)
            #expect(hook.status == 201, "\(hook.text)")
            var stored = Data()
            for suffix in ["", "-wal"] {
                stored += (try? Data(contentsOf: test.dataDirectory.appendingPathComponent("handover.sqlite" + suffix))) ?? Data()
            }
            #expect(!stored.isEmpty)
            #expect(stored.range(of: Data(secret.utf8)) == nil, "the webhook secret is in the database in clear text")
            #expect(stored.range(of: Data("sealed:v1:".utf8)) != nil, "no sealed value in the database")
            let attributes = try FileManager.default.attributesOfItem(atPath: test.dataDirectory.path)
            #expect((attributes[.posixPermissions] as? Int ?? 0) & 0o777 == 0o700)
            let file = try FileManager.default.attributesOfItem(atPath: test.dataDirectory.appendingPathComponent("handover.sqlite").path)
            #expect((file[.posixPermissions] as? Int ?? 0) & 0o777 == 0o600)
        }
    }

    static let reservedSchemes = ["javascript", "file", "data", "vbscript", "about", "itms-services", "prefs", "app-settings", "tel", "sms",
                                  "mailto", "http", "https", "facetime", "facetime-audio", "maps", "music", "itms", "itms-apps", "itms-appss",
                                  "shortcuts", "x-apple-reminderkit", "X-Apple-Health"]

    /// An x-callback action on a scheme that iOS keeps for itself, or that runs code, is refused
    /// with the field and what is accepted.
    @Test(arguments: reservedSchemes)
    func anXCallbackActionOnAReservedSchemeIsRefused(scheme: String) async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/api/v1/apps", json: [
                "name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutMethod": "x-callback",
                "logoutAction": "\(scheme)://x-callback-url/logout",
            ], key: test.adminKey)
            #expect(reply.status == 422, "\(scheme): \(reply.text)")
            #expect(reply.json["field"] as? String == "logoutAction")
            let reason = reply.json["reason"] as? String ?? ""
            #expect(reason.contains(scheme.lowercased()) && reason.contains("accepted:"), "\(reason)")
        }
    }

    /// A logout action fits a real link: at most 2,048 characters, for both methods, when an app
    /// is registered and when it is changed.
    @Test func aLogoutActionLongerThan2048CharactersIsRefusedWithTheLimit() async throws {
        try await TestServer.with(.sqlite) { test in
            let cases: [(method: String, action: String)] = [
                ("x-callback", "pager://x-callback-url/logout?pad=" + String(repeating: "a", count: 4989)),
                ("x-callback", "pager://x-callback-url/logout?pad=" + String(repeating: "a", count: 99_998)),
                ("ulc", "https://pager.example.com/logout?pad=" + String(repeating: "a", count: 4988)),
                ("ulc", "https://pager.example.com/logout?pad=" + String(repeating: "a", count: 2012)),
            ]
            for (method, action) in cases {
                #expect(action.count > 2048)
                let reply = try await test.request(.POST, "/api/v1/apps", json: [
                    "name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutMethod": method, "logoutAction": action,
                ], key: test.adminKey)
                #expect(reply.status == 422, "\(method) \(action.count): \(reply.status)")
                #expect(reply.json["field"] as? String == "logoutAction")
                #expect((reply.json["reason"] as? String ?? "").contains("at most 2048"), "\(reply.text.prefix(300))")
            }
            let fits = "https://pager.example.com/logout?pad=" + String(repeating: "a", count: 2048 - 37)
            #expect(fits.count == 2048)
            let made = try await test.request(.POST, "/api/v1/apps", json: [
                "name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutAction": fits,
            ], key: test.adminKey)
            #expect(made.status == 201, "\(made.text.prefix(300))")
            let changed = try await test.request(.PATCH, "/api/v1/apps/\(made.json["id"] as? String ?? "")",
                                                 json: ["logoutAction": fits + "a"], key: test.adminKey)
            #expect(changed.status == 422 && changed.json["field"] as? String == "logoutAction", "\(changed.text.prefix(300))")
            let renamed = try await test.request(.PATCH, "/api/v1/apps/\(made.json["id"] as? String ?? "")",
                                                 json: ["logoutMethod": "x-callback", "logoutAction": "tel://x-callback-url/logout"], key: test.adminKey)
            #expect(renamed.status == 422 && renamed.json["field"] as? String == "logoutAction", "\(renamed.text.prefix(300))")
        }
    }
}
