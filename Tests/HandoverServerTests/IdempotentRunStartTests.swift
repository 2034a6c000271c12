import Foundation
import HandoverCore
@testable import HandoverClient
import HandoverProtocol
import PropertyBased
import Testing
@testable import HandoverServer

/// A run start with an `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header-07): a launcher
/// that lost a start's answer sends the same start again, and the server answers with the run the
/// first one started instead of starting a second (issue 64, the failover test's precondition).
///
/// - §2.1: the field is an Item Structured Header whose value MUST be a String (RFC 9651 §3.3.3);
///   a client MUST NOT send more than one.
/// - §2.6: a duplicate request after the original completed is answered with its result.
/// - §2.7: a key reused with a different request payload is a 422.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct IdempotentRunStartTests {
    static let key = #""8e03978e-40d5-43e8-bc93-6894a57f9324""#

    static func start(_ test: TestServer, _ device: (id: String, key: String), key: String?, apps: [String]? = nil) async throws -> TestServer.Reply {
        try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: apps.map { ["apps": $0] }, key: device.key,
                               headers: key.map { [("Idempotency-Key", $0)] } ?? [])
    }

    static func runStarts(_ test: TestServer, _ device: String) async throws -> [String] {
        let history = try await test.request(.GET, "/api/v1/devices/\(device)/history", key: test.adminKey).array
        return history.filter { $0["event"] as? String == "run_started" }.compactMap { ($0["runID"] as? String)?.lowercased() }
    }

    /// §2.6: the same start sent again with its key answers 201 with the same run (its items, their
    /// links), and the device stepped once: one `run_started` in its history, one run counted.
    @Test(arguments: TestDatabase.available)
    func aStartSentAgainWithItsKeyAnswersWithTheRunItStarted(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            try await test.registerTarget("Notes")
            try await test.registerTarget("Chart")
            let device = try await test.registerDevice()
            let first = try await Self.start(test, device, key: Self.key)
            #expect(first.status == 201, "\(first.text)")
            let again = try await Self.start(test, device, key: Self.key)
            #expect(again.status == 201, "\(again.text)")
            let (one, two) = (try first.decode(LogoutRunView.self), try again.decode(LogoutRunView.self))
            #expect(one.id == two.id && one.items.map(\.id) == two.items.map(\.id) && one.items.map(\.link) == two.items.map(\.link))
            #expect(try await Self.runStarts(test, device.id) == [one.id.uuidString.lowercased()])
            let metrics = try await test.request(.GET, "/metrics").text
            #expect(metrics.contains("handover_logout_runs_created_total 1"))

            // Without a key, or with another, a start is a new run.
            let other = try await Self.start(test, device, key: #""another key""#)
            let plain = try await Self.start(test, device, key: nil)
            let ids = [one.id, try other.decode(LogoutRunView.self).id, try plain.decode(LogoutRunView.self).id]
            #expect(Set(ids).count == 3)
            #expect(try await Self.runStarts(test, device.id).count == 3)
        }
    }

    /// The key is the device's own: another device's start with the same key is its own run.
    @Test(arguments: TestDatabase.available)
    func aKeyIsItsDevicesOwn(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            try await test.registerTarget("Notes")
            let (first, second) = (try await test.registerDevice("ward-1"), try await test.registerDevice("ward-2"))
            let one = try await Self.start(test, first, key: Self.key).decode(LogoutRunView.self)
            let two = try await Self.start(test, second, key: Self.key).decode(LogoutRunView.self)
            #expect(one.id != two.id && one.deviceID == UUID(uuidString: first.id) && two.deviceID == UUID(uuidString: second.id))
        }
    }

    /// §2.7: the key sent again with other apps is a 422 `idempotency_key_reused` naming the field,
    /// and nothing starts.
    @Test(arguments: TestDatabase.available)
    func aKeySentAgainWithOtherAppsIsRefused(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let notes = try await test.registerTarget("Notes")
            let chart = try await test.registerTarget("Chart")
            let device = try await test.registerDevice()
            #expect(try await Self.start(test, device, key: Self.key, apps: [notes]).status == 201)
            for apps in [[chart], [notes, chart], nil] {
                let refused = try await Self.start(test, device, key: Self.key, apps: apps)
                #expect(refused.status == 422, "\(refused.text)")
                #expect(refused.json["error"] as? String == "idempotency_key_reused" && refused.json["field"] as? String == "Idempotency-Key",
                        "\(refused.text)")
            }
            #expect(try await Self.runStarts(test, device.id).count == 1)
        }
    }

    /// §2.1: a key that is not one sf-string of 1 to 255 characters is a 400
    /// `invalid_idempotency_key` naming the field; parameters after the string are allowed.
    @Test func aMalformedKeyIsA400() async throws {
        try await TestServer.with(.sqlite) { test in
            try await test.registerTarget("Notes")
            let device = try await test.registerDevice()
            let malformed = ["8e03978e-40d5", #""""#, "\"" + String(repeating: "k", count: 256) + "\"", "42", #""unterminated"#,
                             "\"tab\tinside\"", #""é""#, #""a" "b""#]
            for value in malformed {
                let reply = try await Self.start(test, device, key: value)
                #expect(reply.status == 400 && reply.json["error"] as? String == "invalid_idempotency_key", "\(value): \(reply.text)")
                #expect(reply.json["field"] as? String == "Idempotency-Key")
            }
            let twice = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: device.key,
                                               headers: [("Idempotency-Key", #""a""#), ("Idempotency-Key", #""b""#)])
            #expect(twice.status == 400 && twice.json["error"] as? String == "invalid_idempotency_key", "\(twice.text)")
            #expect(try await Self.runStarts(test, device.id).isEmpty)
            let withParameters = try await Self.start(test, device, key: #""8e03978e";v=1"#)
            #expect(withParameters.status == 201, "\(withParameters.text)")
        }
    }

    /// Two instances on one database, one key sent to both at once many times (a launcher whose
    /// first instance died mid-answer): every answer is the same run, and the device has one.
    @Test(arguments: TestDatabase.available)
    func concurrentStartsWithOneKeyOnTwoInstancesStartOneRun(database: TestDatabase) async throws {
        try await TestServer.with(database) { first in
            let second = try await TestServer.start(database, sharing: first)
            defer { Task { try? await second.stop() } }
            try await first.registerTarget("Notes")
            let device = try await first.registerDevice()
            let replies = try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
                for index in 0..<16 {
                    group.addTask { try await Self.start(index.isMultiple(of: 2) ? first : second, device, key: Self.key) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 201 }, "\(replies.map(\.text))")
            let ids = Set(replies.compactMap { try? $0.decode(LogoutRunView.self).id })
            #expect(ids.count == 1, "\(ids)")
            #expect(try await Self.runStarts(first, device.id).count == 1)
            try await second.stop()
        }
    }

    /// Two starts of one batch (the group commit) with one device and key: one run, both answered with it.
    @Test(arguments: TestDatabase.available)
    func oneBatchWithAKeyTwiceStartsOneRun(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let notes = try #require(UUID(uuidString: try await test.registerTarget("Notes")))
            let device = try #require(UUID(uuidString: try await test.registerDevice().id))
            let results = await test.server.runs(test.server.databases.primary).createRuns([
                .init(deviceID: device, idempotencyKey: "k"), .init(deviceID: device, idempotencyKey: "k"),
                .init(deviceID: device, appIDs: [notes], idempotencyKey: "k"),
            ])
            let runs = results.prefix(2).compactMap { try? $0.get() }
            #expect(runs.count == 2 && runs[0].id == runs[1].id, "\(results)")
            #expect(throws: RunStartKey.reused) { try results[2].get() }
            #expect(try await Self.runStarts(test, device.uuidString.lowercased()).count == 1)
        }
    }

    /// Property (RFC 9651 §3.3.3): any key of 1 to 255 printable ASCII characters, written by the
    /// SDK as an sf-string, is read back by the server as itself; one with any other character is
    /// refused.
    @Test func everyKeyTheSDKWritesTheServerReadsBack() async {
        let printable = Gen<Character?>.element(of: (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }).compactMap { $0 }
        await propertyCheck(count: 300, input: printable.string(of: 1...255)) { key in
            #expect((try? IdempotencyKeyField.key(in: [IdempotencyKeyQuoting.quoted(key)])) == key)
        }
        let outside = Gen<Character?>.element(of: Array("\t\u{7F}é\u{0}\n")).compactMap { $0 }
        await propertyCheck(count: 100, input: printable.string(of: 0...20), outside, printable.string(of: 0...20)) { before, bad, after in
            #expect(throws: APIError.self) { try IdempotencyKeyField.key(in: [IdempotencyKeyQuoting.quoted(before + String(bad) + after)]) }
        }
    }
}

extension TestServer.Reply {
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try LogoutRunView.decoder.decode(type, from: body)
    }
}
