import Foundation
import HandoverServer
import SQLKit
import TestPeers
import Testing

/// The launcher's explicit check-out (issue 40): with the person's access token, or with their
/// badge through the customer's badge lookup (answered, unknown, down, slow).
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct CustodyCheckOutTests {
    @Test func theLauncherChecksAPersonOutWithTheirAccessToken() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let test = rig.test
        let first = try await test.registerDevice("ward-7-phone-1")
        let second = try await test.registerDevice("ward-7-phone-2")
        let grant = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example")
        let token = try #require(grant["accessToken"] as? String)
        let out = try await test.request(.POST, "/api/v1/devices/\(first.id)/custody", json: ["accessToken": token], key: first.key)
        #expect(out.status == 201 && out.json["checkedOutBy"] as? String == "launcher" && out.json["personEmail"] as? String == "ada@hospital.example",
                "\(out.text)")
        let wrongDevice = try await test.request(.POST, "/api/v1/devices/\(first.id)/custody", json: ["accessToken": token], key: second.key)
        #expect(wrongDevice.status == 403)
        let secondDevice = try await test.request(.POST, "/api/v1/devices/\(second.id)/custody", json: ["accessToken": token], key: second.key)
        #expect(secondDevice.status == 409 && secondDevice.text.contains("still holds ward-7-phone-1"))
        let forged = try await test.request(.POST, "/api/v1/devices/\(second.id)/custody", json: ["accessToken": "eyJ.not.a-token"], key: second.key)
        #expect(forged.status == 401 && forged.text.contains("accessToken"))
        let both = try await test.request(.POST, "/api/v1/devices/\(second.id)/custody", json: ["accessToken": token, "badge": "1"], key: second.key)
        #expect(both.status == 422)
        let noLookup = try await test.request(.POST, "/api/v1/devices/\(second.id)/custody", json: ["badge": "0042"], key: second.key)
        #expect(noLookup.status == 422 && noLookup.text.contains("HANDOVER_BADGE_LOOKUP_URL"))
        try await rig.stop()
    }

    /// An unknown device is not found, whichever person the check-out names: a badge's read takes
    /// the device and the directory's people with the badge in one statement.
    @Test(arguments: TestDatabase.available) func anUnknownDeviceIsNotFoundWhateverTheBody(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let unknown = UUID().uuidString
            for body in [["badge": "0042"], ["accessToken": "not.a.token"], ["accessToken": "not.a.token", "badge": "0042"]] {
                let reply = try await test.request(.POST, "/api/v1/devices/\(unknown)/custody", json: body, key: test.adminKey)
                #expect(reply.status == 404 && reply.text.contains("device"), "\(body): \(reply.status) \(reply.text)")
            }
        }
    }

    @Test func aBadgeIsLookedUpAndOnlyItsKeyedDigestKept() async throws {
        guard await PythonPeer.canImport("json", skipping: "the badge directory") else { return }
        let directory = try await PythonPeer.start("badge_directory.py", ["0042=Ada@Hospital.example"])
        defer { directory.stop() }
        let base = "http://127.0.0.1:\(directory.port)"
        for (path, expected) in [("/lookup", 201), ("/broken", 503)] {
            try await TestServer.with(.sqlite, configure: { $0.badgeLookupURL = URL(string: base + path) }) { test in
                let device = try await test.registerDevice("ward-7-phone-1")
                let reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "0042"], key: device.key)
                #expect(reply.status == expected, "\(path): \(reply.text)")
                guard expected == 201 else {
                    #expect(reply.text.contains("badge_lookup_unavailable"))
                    return
                }
                #expect(reply.json["checkedOutBy"] as? String == "badge" && reply.json["personEmail"] as? String == "ada@hospital.example")
                let unknown = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "9999"], key: device.key)
                #expect(unknown.status == 404 && unknown.text.contains("unknown_badge"))
                let sql = try #require(test.server.databases.primary as? any SQLDatabase)
                let digests = try await sql.raw("SELECT badge_digest FROM custodies").all().map { try $0.decode(column: "badge_digest", as: String?.self) }
                #expect(digests.count == 1 && digests[0]?.count == 64 && digests[0] != "0042", "only a keyed digest of the badge is kept")
            }
        }
    }

    /// Issue 63, finding 13: a directory that answered `{"user": "not an email at all"}` checked
    /// the device out to a person made from that text. A login is an email address, as email
    /// sign-in accepts it (`EmailAddress`); any other answer is the directory failing (503
    /// `badge_lookup_unavailable`), and nobody is made or checked out.
    @Test func aLookupThatAnswersSomethingOtherThanAnEmailAddressChecksNobodyOut() async throws {
        guard await PythonPeer.canImport("json", skipping: "the badge directory") else { return }
        let directory = try await PythonPeer.start("badge_directory.py", ["0042=not an email at all", "0043=ada@", "0044=@hospital.example",
                                                                           "0045=ada@hospital", "0046=Ada@Hospital.example"])
        defer { directory.stop() }
        try await TestServer.with(.sqlite, configure: { $0.badgeLookupURL = URL(string: "http://127.0.0.1:\(directory.port)/lookup") }) { test in
            let device = try await test.registerDevice("ward-7-phone-1")
            for badge in ["0042", "0043", "0044", "0045"] {
                let reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": badge], key: device.key)
                #expect(reply.status == 503 && reply.json["error"] as? String == "badge_lookup_unavailable"
                        && reply.text.contains("not an email address"), "\(badge): \(reply.status) \(reply.text)")
            }
            let sql = try #require(test.server.databases.primary as? any SQLDatabase)
            let made = try await sql.raw("SELECT COUNT(*) AS n FROM custodies").first()?.decode(column: "n", as: Int.self)
            let people = try await sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            #expect(made == 0 && people == 0, "\(String(describing: made)) custodies, \(String(describing: people)) people")
            let good = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "0046"], key: device.key)
            #expect(good.status == 201 && good.json["personEmail"] as? String == "ada@hospital.example", "\(good.text)")
        }
    }

    @Test func aLookupThatIsDownOrSlowIsRefusedWithinThreeSeconds() async throws {
        guard await PythonPeer.canImport("json", skipping: "the badge directory") else { return }
        let directory = try await PythonPeer.start("badge_directory.py", ["0042=ada@hospital.example"])
        defer { directory.stop() }
        // Down: a port nothing listens on (the directory's, once stopped, is reused by nobody at once).
        let down = try await PythonPeer.start("badge_directory.py")
        let downPort = down.port
        down.stop()
        for url in ["http://127.0.0.1:\(downPort)/lookup", "http://127.0.0.1:\(directory.port)/slow"] {
            try await TestServer.with(.sqlite, configure: { $0.badgeLookupURL = URL(string: url) }) { test in
                let device = try await test.registerDevice("ward-7-phone-1")
                let started = ContinuousClock.now
                let reply = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "0042"], key: device.key)
                let waited = started.duration(to: .now)
                #expect(reply.status == 503 && reply.text.contains("badge_lookup_unavailable"), "\(url): \(reply.text)")
                #expect(waited < .seconds(4), "\(url): refused after \(waited)")
            }
        }
    }

    /// Before: a check-out's statements ran outside any transaction, one commit each, so two taps
    /// of one badge at two docks could both pass the one-device limit (and a shift's check-outs
    /// cost the writer a commit per statement). Now they are group-committed, in order, in one
    /// transaction per batch: of ten taps at once on ten devices, one checks out.
    @Test(arguments: TestDatabase.available) func tenTapsOfOneBadgeAtOnceCheckOutOneDevice(database: TestDatabase) async throws {
        guard await PythonPeer.canImport("json", skipping: "the badge directory") else { return }
        let directory = try await PythonPeer.start("badge_directory.py", ["0042=ada@hospital.example"])
        defer { directory.stop() }
        try await TestServer.with(database, configure: { $0.badgeLookupURL = URL(string: "http://127.0.0.1:\(directory.port)/lookup") }) { test in
            var devices: [(id: String, key: String)] = []
            for index in 1...10 { devices.append(try await test.registerDevice("ward-7-phone-\(index)")) }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for device in devices {
                    group.addTask {
                        try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "0042"], key: device.key).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1 && statuses.filter { $0 == 409 }.count == 9, "\(statuses.sorted())")
            let people = try await test.request(.GET, "/api/v1/custody", key: test.adminKey)
            #expect(people.json["total"] as? Int == 1, "one custody, one person: \(people.text)")
        }
    }
}
