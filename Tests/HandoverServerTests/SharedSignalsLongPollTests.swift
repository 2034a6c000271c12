import DeviceSimulator
import Foundation
import HandoverServer
import Testing

/// RFC 8936 §2.1 (`returnImmediately` false, the default) on the server's clock: a long poll with
/// nothing owed waits, looking every 200 ms of that clock, until an event is owed or 20 s have
/// passed, so a test drives it by moving the clock and never sleeps for it.
@Suite("Shared Signals: the long poll waits on the server's clock", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SharedSignalsLongPollTests {
    /// Returns once the poll has started waiting on the clock (the suite's time limit ends a poll
    /// that never does).
    static func untilWaiting(_ test: TestServer) async {
        await test.clock.untilSleeping(moreThan: 0)
        #expect(test.clock.sleeping > 0, "the long poll never waited on the server's clock")
    }

    @Test func aLongPollEndsAtItsTimeoutOrAtTheFirstEventOwedAsTheClockMoves() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mail-\(UUID().uuidString)")
        try await TestServer.with(.sqlite, publicURL: "https://handover.example.org", configure: { $0.mailDropDirectory = folder }) { test in
            try await test.registerTarget("Mail")
            let backend = try await OpenIDConnectTests.register(test, ["client_name": "Mail backend", "software_id": "com.example.mail"])
            let grant = try await OpenIDConnectTests.form(test, "/oauth/token", ["grant_type": "client_credentials"], basic: (backend.id, backend.secret))
            let token = try #require(grant.json["access_token"] as? String, "\(grant.text)")
            let created = try await test.request(.POST, "/ssf/stream", json: [
                "delivery": ["method": "urn:ietf:rfc:8936"], "events_requested": [SharedSignalsAudienceTests.revoked]], key: token)
            let stream = try #require(created.json["stream_id"] as? String, "\(created.text)")

            // Nothing owed: the poll waits while the clock stands, and through 19.8 s of it; at 20 s it answers empty.
            let empty = Task { try await test.request(.POST, "/ssf/poll/\(stream)", json: ["maxEvents": 10], key: token) }
            await Self.untilWaiting(test)
            for _ in 0..<99 {
                test.clock.advance(by: 0.2)
                await Self.untilWaiting(test)
            }
            test.clock.advance(by: 0.5)   // past 20 s whatever the dates' rounding
            let timedOut = try await empty.value
            #expect(timedOut.status == 200 && (timedOut.json["sets"] as? [String: Any])?.isEmpty == true, "\(timedOut.text)")

            // Waiting again, a session ends: the next look, 200 ms on, answers with its SET.
            let owed = Task { try await test.request(.POST, "/ssf/poll/\(stream)", json: ["maxEvents": 10], key: token) }
            await Self.untilWaiting(test)
            var seen: Set<URL> = []
            let ada = try await SharedSignalsAudienceTests.signIn(test, inbox: MailDropInbox(folder: folder), email: "ada@hospital.example",
                                                                  app: "com.example.mail", seen: &seen)
            #expect(try await test.request(.POST, "/auth/logout", key: ada).status == 204)
            test.clock.advance(by: 0.2)
            let answered = try await owed.value
            #expect(answered.status == 200 && (answered.json["sets"] as? [String: Any])?.count == 1, "\(answered.text)")
        }
    }
}
