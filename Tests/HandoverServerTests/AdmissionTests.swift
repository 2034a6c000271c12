import Foundation
import HandoverConfiguration
import HandoverProtocol
import Testing
@testable import HandoverServer

/// Past its capacity the server sheds new work, not the work it has taken on: run starts and
/// check-outs get `503 Service Unavailable` with `Retry-After` (RFC 9110 §15.6.4: "the server is
/// currently unable to handle the request due to a temporary overload … The server MAY send a
/// Retry-After header field (Section 10.2.3) to suggest an appropriate amount of time for the
/// client to wait before retrying"), while callbacks and reads are answered as ever.
///
/// The test server's target is a nanosecond, so every write request counts as having waited in a
/// standing queue; its intervals follow the manual clock.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct AdmissionTests {
    /// The first window: admission is open; phone 0's run starts and its app answers (both waited
    /// > 1 ns). The next interval: the queue stood, so the window is three quarters of what was owed
    /// (nothing: the first run's callback was recorded), at least one callback. Phone 1's run, owing
    /// one callback and not answered, fills it: the next start is shed until that callback is
    /// recorded. Returns phone 1's run.
    static func fillTheWindow(_ test: TestServer, _ phones: [(id: String, key: String)]) async throws -> LogoutRunTests.Run {
        let first = try await LogoutRunTests.startRun(test, device: phones[0])
        let firstAnswer = try await test.request(.GET, try LogoutRunTests.callback(try #require(first.link("Notes")), "success", on: test))
        #expect(firstAnswer.status == 200, "\(firstAnswer.text)")
        test.clock.advance(by: 0.3)
        return try await LogoutRunTests.startRun(test, device: phones[1])
    }

    @Test(arguments: TestDatabase.available)
    func pastAStandingQueueRunStartsAreShedAndCallbacksAndReadsAreNot(database: TestDatabase) async throws {
        let test = try await TestServer.start(database) { $0.queueTarget = .nanoseconds(1) }
        _ = try await test.registerTarget("Notes")
        let phones = [try await test.registerDevice("admit-a"), try await test.registerDevice("admit-b"),
                      try await test.registerDevice("admit-c")]

        let second = try await Self.fillTheWindow(test, phones)
        let shed = try await test.request(.POST, "/api/v1/devices/\(phones[2].id)/logout-runs", key: phones[2].key)
        #expect(shed.status == 503)
        #expect(shed.headers.first(name: "Retry-After") == "1")
        #expect(!(shed.headers.first(name: "Connection") ?? "").lowercased().contains("close"), "a shed start keeps its connection")
        let body = try JSONDecoder().decode(APIErrorBody.self, from: shed.body)
        #expect(body.error == "overloaded")
        #expect(body.reason.contains("try again in 1 seconds"), "\(body.reason)")
        // A check-out is new work too.
        let checkOut = try await test.request(.POST, "/api/v1/devices/\(phones[2].id)/custody", json: ["badge": "B-1"], key: phones[2].key)
        #expect(checkOut.status == 503, "\(checkOut.text)")

        // Nothing was written for the shed start: the phone has no run.
        let device = try await DeviceLifeCycleTests.device(test, phones[2].id)
        #expect(device["lastRunID"] == nil || device["lastRunID"] is NSNull, "\(device)")
        // Work already taken on goes on: a read, and the admitted run's callback.
        #expect(try await test.request(.GET, "/api/v1/logout-runs/\(second.id)", key: phones[1].key).status == 200)
        let secondAnswer = try await test.request(.GET, try LogoutRunTests.callback(try #require(second.link("Notes")), "success", on: test))
        #expect(secondAnswer.status == 200, "\(secondAnswer.text)")
        let view = try await test.request(.GET, "/api/v1/logout-runs/\(second.id)", key: phones[1].key)
        #expect(view.json["status"] as? String == "completed", "\(view.text)")

        // Its callback recorded, nothing is owed; and calm intervals reopen admission: the phone
        // shed before starts its run.
        test.clock.advance(by: 60)
        _ = try await LogoutRunTests.startRun(test, device: phones[2])
    }

    /// A phone shed is given a turn, and `Retry-After` is the time to it (RFC 9110 §10.2.3: "how
    /// long the user agent ought to wait before making a follow-up request"). Asked again at its
    /// turn, its start is taken though the window is still full; a phone not shed before, asking at
    /// the same moment, is shed.
    @Test(arguments: TestDatabase.available)
    func aPhoneShedIsTakenAtItsTurnWhileTheWindowIsStillFull(database: TestDatabase) async throws {
        let test = try await TestServer.start(database) { $0.queueTarget = .nanoseconds(1) }
        _ = try await test.registerTarget("Notes")
        var phones: [(id: String, key: String)] = []
        for name in ["turn-a", "turn-b", "turn-c", "turn-d"] { phones.append(try await test.registerDevice(name)) }

        _ = try await Self.fillTheWindow(test, phones)
        let shed = try await test.request(.POST, "/api/v1/devices/\(phones[2].id)/logout-runs", key: phones[2].key)
        #expect(shed.status == 503 && shed.headers.first(name: "Retry-After") == "1", "\(shed.text)")

        // Its turn: at once, as the window has not been full long enough to measure the rate it
        // records at (Retry-After: 1). Asked again after it, it is taken.
        test.clock.advance(by: 0.3)
        let newcomer = try await test.request(.POST, "/api/v1/devices/\(phones[3].id)/logout-runs", key: phones[3].key)
        #expect(newcomer.status == 503, "\(newcomer.text)")
        _ = try await LogoutRunTests.startRun(test, device: phones[2])
    }

    @Test func theTargetIsReadInMillisecondsOrOff() throws {
        #expect(try ServerConfiguration.fromEnvironment([:]).queueTarget == .milliseconds(200))
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_QUEUE_TARGET": "350"]).queueTarget == .milliseconds(350))
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_QUEUE_TARGET": "off"]).queueTarget == nil)
        for wrong in ["-5", "0.5", "60001", "fast"] {
            #expect {
                _ = try ServerConfiguration.fromEnvironment(["HANDOVER_QUEUE_TARGET": wrong])
            } throws: { error in
                "\(error)".contains("HANDOVER_QUEUE_TARGET") && "\(error)".contains("1 to 60000")
            }
        }
    }

    @Test func onlyRunStartsAndCheckOutsAreNewWork() {
        typealias Work = AdmissionMiddleware.Work
        let run = "/api/v1/devices/8c1f0e4e-8a0d-4a57-9a55-0c0d7a2b3c4d"
        #expect(Work(method: .POST, path: run + "/logout-runs") == .new)
        #expect(Work(method: .POST, path: run + "/custody") == .new)
        #expect(Work(method: .POST, path: "/api/v1/logout-runs/8c1f0e4e/callbacks") == .admitted)
        #expect(Work(method: .GET, path: "/ulc/cb/r/i/success") == .admitted)
        #expect(Work(method: .GET, path: run + "/logout-runs") == nil)
        #expect(Work(method: .GET, path: "/api/v1/logout-runs/8c1f0e4e") == nil)
        #expect(Work(method: .POST, path: "/api/v1/devices") == nil)
        #expect(Work(method: .DELETE, path: run + "/custody") == nil)
        #expect(Work(method: .GET, path: "/healthz") == nil)
    }
}
