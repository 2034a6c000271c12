import DeviceSimulator
import Foundation
import HandoverClient
import HandoverServer
import LinkCallbacks
import NIOConcurrencyHelpers
import Testing

/// Each app's logout method: a ULC, an x-callback-url (its replies are the run's callback URLs;
/// iOS asks before opening it), or backend-only (its item ends with its backend's logout token).
@Suite("Logout methods", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct LogoutMethodTests {
    static func app(_ test: TestServer, _ fields: [String: Any]) async throws -> TestServer.Reply {
        var body: [String: Any] = ["name": "Notes", "appIDs": ["ABCDE12345.com.example.notes"]]
        for (key, value) in fields { body[key] = value }
        return try await test.request(.POST, "/api/v1/apps", json: body, key: test.adminKey)
    }

    @Test func theRegistryChecksEachMethodsFields() async throws {
        try await TestServer.with(.sqlite) { test in
            for (fields, field, words) in [
                (["logoutMethod": "x-callback"], "logoutAction", "x-callback app needs its action URL"),
                (["logoutMethod": "x-callback", "logoutAction": "https://notes.example.com/logout"], "logoutAction", "x-callback-url"),
                (["logoutMethod": "x-callback", "logoutAction": "notes://x-callback-url/logout?x-success=notes%3A%2F%2Fdone"], "logoutAction", "leave x-success"),
                (["logoutMethod": "backend-only", "logoutAction": "https://notes.example.com/logout"], "logoutAction", "opens nothing on the device"),
                (["logoutMethod": "backend-only"], "backchannelLogoutURI", "give the backend's back-channel logout URI"),
                (["role": "launcher", "logoutMethod": "ulc"], "logoutMethod", "a launcher"),
            ] as [([String: Any], String, String)] {
                let reply = try await Self.app(test, fields)
                #expect(reply.status == 422 && reply.json["field"] as? String == field && reply.text.contains(words), "\(fields): \(reply.text)")
            }
            let unknown = try await Self.app(test, ["logoutMethod": "sms", "logoutAction": "https://notes.example.com/logout"])
            #expect(unknown.status == 400 || unknown.status == 422, "\(unknown.text)")

            let ulc = try await Self.app(test, ["logoutAction": "https://notes.example.com/logout"])
            #expect(ulc.status == 201 && ulc.json["logoutMethod"] as? String == "ulc" && ulc.json["opensWithPrompt"] as? Bool == false, "\(ulc.text)")
            let xCallback = try await Self.app(test, ["name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutMethod": "x-callback",
                                                      "logoutAction": "pager://x-callback-url/logout?reason=handover"])
            #expect(xCallback.status == 201 && xCallback.json["opensWithPrompt"] as? Bool == true, "\(xCallback.text)")
            let backend = try await Self.app(test, ["name": "Rota", "appIDs": ["ABCDE12345.com.example.rota"], "logoutMethod": "backend-only",
                                                    "backchannelLogoutURI": "http://127.0.0.1:9/bcl"])
            #expect(backend.status == 201 && backend.json["logoutAction"] == nil && backend.json["logoutMethod"] as? String == "backend-only", "\(backend.text)")
            // A ULC app becomes backend-only: its action goes.
            let changed = try await test.request(.PATCH, "/api/v1/apps/\(ulc.json["id"] as? String ?? "")", json: [
                "logoutMethod": "backend-only", "backchannelLogoutURI": "http://127.0.0.1:9/bcl",
            ], key: test.adminKey)
            #expect(changed.status == 200 && changed.json["logoutMethod"] as? String == "backend-only" && changed.json["logoutAction"] == nil, "\(changed.text)")
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            #expect(try await browser.get("/dashboard/apps").text.contains("x-callback: a tap"), "the dashboard marks apps that need a tap")
        }
    }

    @Test func anXCallbackLinkCarriesTheRunsCallbacksAndItsRepliesAreRecorded() async throws {
        try await TestServer.with(.sqlite) { test in
            let pager = try await Self.app(test, ["name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutMethod": "x-callback",
                                                  "logoutAction": "pager://x-callback-url/logout?reason=handover"])
            let mail = try await Self.app(test, ["name": "Mail", "appIDs": ["ABCDE12345.com.example.mail"], "logoutMethod": "x-callback",
                                                 "logoutAction": "mail://x-callback-url/sign-out"])
            let device = try await test.registerDevice()
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs",
                                             json: ["apps": [pager.json["id"] as? String ?? "", mail.json["id"] as? String ?? ""]], key: device.key)
            let items = try #require(run.json["items"] as? [[String: Any]])
            let request = try XCallbackRequest(parsing: try #require(items[0]["link"] as? String))
            #expect(request.scheme == "pager" && request.action == "logout" && request.parameter("reason") == "handover" && request.source == "Handover")
            let success = try #require(request.success?.absoluteString)
            #expect(success.hasPrefix(test.server.publicURL.absoluteString + "/ulc/cb/") && success.contains("/success?n="))
            #expect(request.error == request.cancel && request.error?.absoluteString.contains("/error?n=") == true)
            let runID = run.json["id"] as? String ?? ""
            let recorded = try await test.request(.POST, "/api/v1/logout-runs/\(runID)/callbacks", json: ["url": success], key: device.key)
            #expect(recorded.status == 200 && recorded.json["status"] as? String == "succeeded", "\(recorded.text)")
            // The other app fails; its x-error reply carries errorCode and errorMessage.
            let mailRequest = try XCallbackRequest(parsing: try #require(items[1]["link"] as? String))
            let failed = try #require(mailRequest.errorReply(code: 2, message: "still syncing"))
            let reply = try await test.request(.POST, "/api/v1/logout-runs/\(runID)/callbacks", json: ["url": failed.absoluteString], key: device.key)
            #expect(reply.status == 200 && reply.json["status"] as? String == "failed", "\(reply.text)")
        }
    }

    /// The launcher SDK opens an x-callback link and reports the reply it receives.
    @Test func theLauncherSDKOpensXCallbackLinks() async throws {
        final class Opener: URLOpener, Sendable {
            let logout = NIOLockedValueBox<ServerBackedLogout?>(nil)
            let opened = NIOLockedValueBox<[URL]>([])
            func open(_ url: URL) async -> Bool {
                opened.withLockedValue { $0.append(url) }
                guard let request = try? XCallbackRequest(parsing: url.absoluteString), let reply = request.successReply(),
                      let logout = logout.withLockedValue({ $0 }) else { return false }
                _ = await logout.handleCallback(reply)
                return true
            }
        }
        try await TestServer.with(.sqlite) { test in
            _ = try await Self.app(test, ["name": "Pager", "appIDs": ["ABCDE12345.com.example.pager"], "logoutMethod": "x-callback",
                                          "logoutAction": "pager://x-callback-url/logout"])
            let device = try await test.registerDevice()
            let opener = Opener()
            let logout = ServerBackedLogout(server: FleetServer(baseURL: test.server.baseURL, deviceID: try #require(UUID(uuidString: device.id)),
                                                                deviceKey: device.key), opener: opener, pollInterval: .seconds(5))
            opener.logout.withLockedValue { $0 = logout }
            let report = try await logout.run()
            #expect(report.entries.map(\.outcome) == [.succeeded])
            #expect(opener.opened.withLockedValue { $0 }.first?.scheme == "pager")
        }
    }

    @Test func aBackendOnlyItemEndsWithItsBackendsLogoutToken() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        let live = try await LoopbackServer.start(routes: ["/bcl": .init(status: 200, contentType: "text/plain", body: "")])
        defer { Task { try? await live.shutdown() } }
        try await TestServer.with(.sqlite, configure: { $0.mailDropDirectory = folder; $0.backChannelLogoutAttempts = 1 }) { test in
            let rota = try await Self.app(test, ["name": "Rota", "appIDs": ["ABCDE12345.com.example.rota"], "logoutMethod": "backend-only",
                                                 "backchannelLogoutURI": live.origin + "/bcl"])
            let rotaID = rota.json["id"] as? String ?? ""
            let device = try await test.registerDevice()

            // Nobody is signed in to Rota on the device: nothing is owed, the item is done at once.
            let empty = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [rotaID]], key: device.key)
            let emptyItem = (empty.json["items"] as? [[String: Any]])?.first
            #expect(emptyItem?["status"] as? String == "succeeded" && emptyItem?["link"] == nil && empty.json["status"] as? String == "completed",
                    "\(empty.text)")
            // A run finished by its hand-over alone still gets its signed receipt (it once did not:
            // the hand-over's own runs service was built before the receipts were given to it).
            let receipt = try await test.request(.GET, "/api/v1/logout-runs/\(empty.json["id"] as? String ?? "")/receipt", key: device.key)
            #expect(receipt.status == 200 && receipt.text.split(separator: ".").count == 3, "\(receipt.status) \(receipt.text)")

            // Someone signs in to Rota on the device: the item waits for the backend's token.
            let signIn = EmailLinkSignIn(server: test.server.baseURL)
            try await signIn.requestLink(for: "ada@hospital.example", deviceID: UUID(uuidString: device.id))
            let link = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example")
            _ = try await signIn.redeem(link: link, clientID: "com.example.rota")
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [rotaID]], key: device.key)
            #expect((run.json["items"] as? [[String: Any]])?.first?["status"] as? String == "pending", "\(run.text)")
            #expect(try await test.server.deliverBackChannelLogouts() == 1)
            let done = try await test.request(.GET, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")", key: device.key)
            #expect((done.json["items"] as? [[String: Any]])?.first?["status"] as? String == "succeeded" && done.json["status"] as? String == "completed",
                    "\(done.text)")

            // Its backend is down: the token fails, and so does the item; the device leaves service.
            _ = try await test.request(.PATCH, "/api/v1/apps/\(rotaID)", json: ["backchannelLogoutURI": "http://127.0.0.1:9/bcl"], key: test.adminKey)
            try await signIn.requestLink(for: "ada@hospital.example", deviceID: UUID(uuidString: device.id))
            let second = try await MailDropInbox(folder: folder).signInLink(to: "ada@hospital.example", excluding: [link])
            _ = try await signIn.redeem(link: second, clientID: "com.example.rota")
            let failing = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [rotaID]], key: device.key)
            #expect(try await test.server.deliverBackChannelLogouts() == 1)
            let failed = try await test.request(.GET, "/api/v1/logout-runs/\(failing.json["id"] as? String ?? "")", key: device.key)
            #expect((failed.json["items"] as? [[String: Any]])?.first?["status"] as? String == "failed" && failed.json["status"] as? String == "failed",
                    "\(failed.text)")
            #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey).json["status"] as? String == "out_of_service")
        }
    }
}

