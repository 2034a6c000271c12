import Foundation
import HandoverServer
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct AuthAndRegistryTests {
    @Test(arguments: TestDatabase.available)
    func everyAPIRouteAnswers401WithoutAValidKeyAnd403WithTheWrongScope(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let device = try await test.registerDevice()
        for (method, path) in [("GET", "/api/v1/apps"), ("POST", "/api/v1/apps"), ("GET", "/api/v1/devices"), ("POST", "/api/v1/devices"),
                               ("GET", "/api/v1/webhooks"), ("POST", "/api/v1/webhooks"),
                               ("GET", "/api/v1/webhooks/\(UUID())/deliveries")] {
            let none = try await test.request(.init(rawValue: method), path)
            #expect(none.status == 401, "\(method) \(path)")
            #expect(none.json["error"] as? String == "unauthorized")
            let wrong = try await test.request(.init(rawValue: method), path, key: "hov_not-a-real-key")
            #expect(wrong.status == 401, "\(method) \(path)")
            let deviceScope = try await test.request(.init(rawValue: method), path, json: [:] as [String: String], key: device.key)
            #expect(deviceScope.status == 403, "\(method) \(path)")
        }
        for (method, path) in [("POST", "/api/v1/devices/\(device.id)/logout-runs"), ("GET", "/api/v1/logout-runs/\(UUID())"),
                               ("GET", "/api/v1/logout-runs/\(UUID())/events")] {
            #expect(try await test.request(.init(rawValue: method), path).status == 401, "\(method) \(path)")
        }
        try await test.stop()
    }

    @Test(arguments: TestDatabase.available)
    func aDeviceKeyCannotStartRunsForAnotherDevice(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Notes")
        let first = try await test.registerDevice("a")
        let second = try await test.registerDevice("b")
        let reply = try await test.request(.POST, "/api/v1/devices/\(second.id)/logout-runs", key: first.key)
        #expect(reply.status == 403)
        try await test.stop()
    }

    /// A start for an unknown device is a 404, whatever else is wrong with it (no target app,
    /// an app id that is not a UUID, an unknown app): the device is what the path names. The
    /// start's own transaction finds the device missing; the read that orders the errors is made
    /// only when a start fails.
    @Test(arguments: TestDatabase.available)
    func aRunForAnUnknownDeviceIsA404WhateverElseIsWrong(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let path = "/api/v1/devices/\(UUID())/logout-runs"
        var reply = try await test.request(.POST, path, key: test.adminKey)
        #expect(reply.status == 404, "no target app yet: \(reply.text)")
        #expect(reply.json["error"] as? String == "not_found")
        try await test.registerTarget("Notes")
        for body in [[:], ["apps": ["nope"]], ["apps": [UUID().uuidString]]] as [[String: [String]]] {
            reply = try await test.request(.POST, path, json: body, key: test.adminKey)
            #expect(reply.status == 404, "\(body): \(reply.text)")
            #expect(reply.json["reason"] as? String == "No device with that id.", "\(body)")
        }
        // A known device with a bad app id: the app id is named.
        let device = try await test.registerDevice()
        reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": ["nope"]], key: device.key)
        #expect([400, 422].contains(reply.status), "\(reply.text)")
        #expect(reply.json["field"] as? String == "apps[0]")
        try await test.stop()
    }

    /// A device's key reports callbacks only on its own device's runs, whether the run's device
    /// is remembered (started on this server) or read (``RunDevices``).
    @Test(arguments: TestDatabase.available)
    func aDeviceKeyReportsOnlyOnItsOwnDevicesRuns(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Notes")
        let first = try await test.registerDevice("a")
        let second = try await test.registerDevice("b")
        let run = try await LogoutRunTests.startRun(test, device: first)
        let url = try UniversalLinkCallback(parsing: try #require(run.link("Notes"))).success.absoluteString
        let path = "/api/v1/logout-runs/\(run.id)/callbacks"
        var reply = try await test.request(.POST, path, json: ["url": url], key: second.key)
        #expect(reply.status == 403, "\(reply.text)")
        reply = try await test.request(.POST, "/api/v1/logout-runs/\(UUID())/callbacks", json: ["url": url], key: first.key)
        #expect(reply.status == 404, "\(reply.text)")
        reply = try await test.request(.POST, path, json: ["url": url], key: first.key)
        #expect(reply.status == 200, "\(reply.text)")
        try await test.stop()
    }

    @Test(arguments: [
        (#"{"name":"X","appIDs":["short.com.example.x"],"logoutAction":"https://x.example.com/logout"}"#, "appIDs[0]"),
        (#"{"name":"X","appIDs":[],"logoutAction":"https://x.example.com/logout"}"#, "appIDs"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"http://x.example.com/logout"}"#, "logoutAction"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com:8443/logout"}"#, "logoutAction"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"]}"#, "logoutAction"),
        (#"{"name":"","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com/logout"}"#, "name"),
        (#"{"name":"X","role":"boss","appIDs":["ABCDE12345.com.example.x"]}"#, "role"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com/l","deadlineSeconds":0}"#, "deadlineSeconds"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com/l","allowedCallbackHosts":["*"]}"#,
         "allowedCallbackHosts[0]"),
        (#"{"name":"X","appIDs":["ABCDE12345.com.example.x"],"logoutAction":"https://x.example.com/l","androidPackage":"com.x","androidFingerprints":["ab:cd"]}"#,
         "androidFingerprints[0]"),
        (#"{"name":"X","appIDs":"ABCDE12345.com.example.x"}"#, "appIDs"),
        (#"{"appIDs":["ABCDE12345.com.example.x"]}"#, "name"),
    ])
    func registryRejectsEachBadFieldByName(body: String, field: String) async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.POST, "/api/v1/apps", json: try JSONSerialization.jsonObject(with: Data(body.utf8)), key: test.adminKey)
        #expect([400, 422].contains(reply.status), "\(reply.text)")
        #expect(reply.json["field"] as? String == field, "\(reply.text)")
        #expect((reply.json["reason"] as? String)?.isEmpty == false)
        try await test.stop()
    }

    @Test func malformedJSONIsA400WithAReason() async throws {
        let test = try await TestServer.start(.sqlite)
        var reply = try await test.request(.POST, "/api/v1/devices", key: test.adminKey, headers: [("Content-Type", "application/json")])
        #expect(reply.status == 400 || reply.status == 422)
        reply = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "ftp://x", "events": ["run.completed"]], key: test.adminKey)
        #expect(reply.status == 422)
        #expect(reply.json["field"] as? String == "url")
        reply = try await test.request(.POST, "/api/v1/webhooks", json: ["url": "https://mdm.example.com/h", "events": ["run.exploded"]],
                                       key: test.adminKey)
        #expect(reply.json["field"] as? String == "events[0]")
        try await test.stop()
    }

    @Test func aSecondAppWithTheSameNameIsAConflict() async throws {
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("Notes")
        let reply = try await test.request(.POST, "/api/v1/apps", json: [
            "name": "Notes", "appIDs": ["ABCDE12345.com.example.notes"], "logoutAction": "https://notes.example.com/logout",
        ], key: test.adminKey)
        #expect(reply.status == 409)
        try await test.stop()
    }

    @Test func adminKeysAreStoredHashedAndWork() async throws {
        let test = try await TestServer.start(.sqlite)
        #expect(test.adminKey.hasPrefix("hov_"))
        #expect(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).status == 200)
        let database = try Data(contentsOf: test.dataDirectory.appendingPathComponent("handover.sqlite"))
        #expect(database.range(of: Data(test.adminKey.utf8)) == nil)
        try await test.stop()
    }
}

@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct AssociationFileTests {
    @Test(arguments: TestDatabase.available)
    func associationFilesAreGeneratedValidatedAndCached(database: TestDatabase) async throws {
        let test = try await TestServer.start(database, publicURL: "https://handover.example.com")
        #expect(try await test.request(.GET, "/.well-known/apple-app-site-association").status == 404)
        #expect(try await test.request(.GET, "/.well-known/assetlinks.json").status == 404)

        var reply = try await test.request(.POST, "/api/v1/apps", json: [
            "name": "Launcher", "role": "launcher", "appIDs": ["ABCDE12345.com.example.launcher"],
            "androidPackage": "com.example.launcher",
            "androidFingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"],
        ], key: test.adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        try await test.registerTarget("Notes")

        reply = try await test.request(.GET, "/.well-known/apple-app-site-association")
        #expect(reply.status == 200)
        #expect(reply.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true)
        #expect(reply.headers.first(name: "Cache-Control")?.contains("max-age") == true)
        #expect(reply.headers.first(name: "Location") == nil)
        #expect(reply.text.contains("/ulc/cb/*"))
        #expect(reply.text.contains("ABCDE12345.com.example.launcher"))
        let etag = try #require(reply.headers.first(name: "ETag"))
        let again = try await test.request(.GET, "/.well-known/apple-app-site-association", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)

        reply = try await test.request(.GET, "/.well-known/assetlinks.json")
        #expect(reply.status == 200)
        #expect(reply.text.contains("delegate_permission/common.handle_all_urls"))
        #expect(reply.text.contains("com.example.launcher"))
        try await test.stop()
    }
}

@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct AssociationFileOriginTests {
    /// A logout action is claimed in this server's file only when it is on this server's own
    /// origin, port included: on loopback, another port is another site.
    @Test func onlyLogoutActionsOnThisOriginArePutInTheFile() async throws {
        let test = try await TestServer.start(.sqlite, developerMode: true)
        let origin = test.server.publicURL.absoluteString
        for (name, action) in [("Here", "\(origin)/here/logout"), ("Elsewhere", "http://127.0.0.1:9/elsewhere/logout")] {
            let reply = try await test.request(.POST, "/api/v1/apps", json: [
                "name": name, "appIDs": ["ABCDE12345.com.example.\(name.lowercased())"], "logoutAction": action,
                "paths": ["/\(name.lowercased())/page"],
            ], key: test.adminKey)
            #expect(reply.status == 201, "\(reply.text)")
        }
        let file = try await test.request(.GET, "/.well-known/apple-app-site-association").text
        #expect(file.contains("/here/logout"))
        #expect(!file.contains("/elsewhere/logout"))
        #expect(file.contains("/elsewhere/page"))
        try await test.stop()
    }
}
