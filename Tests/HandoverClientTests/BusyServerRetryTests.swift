import Foundation
@testable import HandoverClient
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The launcher SDK honours a busy server's `Retry-After` with jittered back-off: over real HTTP
/// on loopback (`ScriptedServer`), with the waits slept on a test clock (`SleepLog`).
///
/// - RFC 9110 §15.6.4: `503 Service Unavailable` means the server is temporarily unable to handle
///   the request; it MAY send `Retry-After` to suggest how long to wait.
/// - RFC 9110 §10.2.3: `Retry-After` is an `HTTP-date` or `delay-seconds`.
/// - RFC 6585 §4: `429 Too Many Requests` MAY include `Retry-After`; without one, the client is
///   not told when it may ask again, and is not made to.
@Suite(.serialized, .timeLimit(.minutes(2))) struct BusyServerRetryTests {
    static let deviceID = UUID()
    static let run = FleetRun(id: UUID(), deviceID: deviceID, status: .running, createdAt: Date(timeIntervalSince1970: 1_795_000_000), items: [])
    static let overloaded = #"{"error":"overloaded","reason":"The server is busy; try again in 2 seconds."}"#
    static let busy = ScriptedServer.Answer.json(503, overloaded, headers: ["Retry-After": "2"])

    static func runJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(run), as: UTF8.self)
    }

    /// Starts a run against `server`, expects one wait within `range` and lets it pass, and
    /// expects the run the server then answers.
    func startsARunAfterOneWait(in range: ClosedRange<Duration>, _ server: ScriptedServer, _ log: SleepLog) async throws {
        let fleet = makeFleet(server, log: log)
        let call = Task { try await fleet.startRun() }
        log.endWaits(after: call)
        var waits = log.waits.makeAsyncIterator()
        let next = await waits.next()
        let wait = try #require(next)
        #expect(range.contains(wait), "\(wait)")
        await log.pass(wait)
        #expect(try await call.value == Self.run)
    }

    func makeFleet(_ server: ScriptedServer, policy: BusyServerPolicy? = BusyServerPolicy(), log: SleepLog) -> FleetServer {
        FleetServer(baseURL: server.baseURL, deviceID: Self.deviceID, deviceKey: "hov_test_device_key", session: .fresh(),
                    busyServer: policy, clock: log.clock)
    }

    /// What a call threw, or nil when it succeeded.
    func failure<Value>(_ call: () async throws(FleetServerError) -> Value) async -> FleetServerError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error
        }
    }

    /// §15.6.4 and §10.2.3: busy twice with `Retry-After: 2`, then created. The start succeeds;
    /// each wait was the 2 s asked plus a jitter under the ceiling (0.5 s after the first attempt,
    /// 1 s after the second); the same request (method, path, header fields, body) went 3 times.
    @Test func aBusyServerIsAskedAgainAfterItsRetryAfter() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let app = UUID()
        let server = try await ScriptedServer.start([Self.busy, Self.busy, .json(201, try Self.runJSON())])
        defer { server.stop() }
        let log = SleepLog()
        let fleet = makeFleet(server, log: log)
        let call = Task { try await fleet.startRun(apps: [app]) }
        log.endWaits(after: call)
        var waits = log.waits.makeAsyncIterator()
        for attempt in 1...2 {
            let next = await waits.next()
            let wait = try #require(next)
            let ceiling = Duration.milliseconds(500) * (1 << (attempt - 1))
            #expect(wait >= .seconds(2) && wait <= .seconds(2) + ceiling, "wait \(attempt): \(wait)")
            await log.pass(wait)
        }
        #expect(try await call.value == Self.run)

        let received = try await server.received()
        #expect(received.count == 3)
        let first = try #require(received.first)
        #expect(first.method == "POST" && first.path == "/api/v1/devices/\(Self.deviceID.uuidString.lowercased())/logout-runs")
        #expect(first.headers["Authorization"] == "Bearer hov_test_device_key")
        #expect(first.body.contains(app.uuidString.lowercased()), "\(first.body)")
        #expect(received.allSatisfy { $0 == first }, "\(received)")
    }

    /// §15.6.4: a 503 without `Retry-After` is asked again too, after the jitter alone.
    @Test func aBusyServerWithoutRetryAfterIsAskedAgainAfterTheJitter() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(503, Self.overloaded), .json(201, try Self.runJSON())])
        defer { server.stop() }
        let log = SleepLog()
        try await startsARunAfterOneWait(in: .zero ... .milliseconds(500), server, log)
        #expect(try await server.received().count == 2)
    }

    /// RFC 6585 §4: a 429 without `Retry-After` is reported at once, as before; no wait, one request.
    @Test func aTooManyRequestsWithoutRetryAfterIsNotAskedAgain() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(429, #"{"error":"rate_limited","reason":"Too many requests."}"#),
                                                     .json(201, try Self.runJSON())])
        defer { server.stop() }
        let log = SleepLog()
        let error = await failure { () async throws(FleetServerError) in try await makeFleet(server, log: log).startRun() }
        #expect(error == .rejected(status: 429, error: "rate_limited", reason: "Too many requests."))
        #expect(try await server.received().count == 1)
        #expect(log.all.isEmpty)
    }

    /// RFC 6585 §4 with RFC 9110 §10.2.3: a 429 that says when is asked again then.
    @Test func aTooManyRequestsWithRetryAfterIsAskedAgainThen() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(429, #"{"error":"rate_limited","reason":"Later."}"#, headers: ["Retry-After": "1"]),
                                                     .json(201, try Self.runJSON())])
        defer { server.stop() }
        let log = SleepLog()
        try await startsARunAfterOneWait(in: .seconds(1) ... .milliseconds(1_500), server, log)
    }

    /// When the next wait would take the call past its budget, the caller gets the server's last
    /// answer as the same `FleetServerError` a client without retries gets from the first.
    @Test func whenTheBudgetIsSpentTheCallerGetsTheSameErrorAsBefore() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let busy = try await ScriptedServer.start([Self.busy])
        defer { busy.stop() }
        let direct = try await ScriptedServer.start([Self.busy])
        defer { direct.stop() }
        let log = SleepLog()
        let passing = log.passingEveryWait()
        defer { passing.cancel() }

        let policy = BusyServerPolicy(budget: .seconds(5))
        let retried = await failure { () async throws(FleetServerError) in try await makeFleet(busy, policy: policy, log: log).startRun() }
        let today = await failure { () async throws(FleetServerError) in try await makeFleet(direct, policy: nil, log: SleepLog()).startRun() }
        #expect(retried == .rejected(status: 503, error: "overloaded", reason: "The server is busy; try again in 2 seconds."))
        #expect(retried == today)

        // 2 s + up to 0.5 s, then 2 s + up to 1 s (if that still fits in 5 s), then no third:
        // 2 s + at least 4 s more would not.
        let waits = log.all
        #expect((1...2).contains(waits.count) && waits.reduce(.zero, +) <= .seconds(5), "\(waits)")
        #expect(try await busy.received().count == waits.count + 1)
        #expect(try await direct.received().count == 1)
    }

    /// A start that got no answer may have started a run. It carries an `Idempotency-Key`
    /// (draft-ietf-httpapi-idempotency-key-header §2.1: an sf-string, the key in double quotes), so
    /// it is sent again after the jitter with the same key, and the server answers with the run the
    /// key started (§2.6). Both sendings are the same request, key included.
    @Test func aStartThatGotNoAnswerIsSentAgainWithItsKey() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.drop, .json(201, try Self.runJSON())])
        defer { server.stop() }
        let log = SleepLog()
        let passing = log.passingEveryWait()
        defer { passing.cancel() }
        let key = UUID()
        #expect(try await makeFleet(server, log: log).startRun(idempotencyKey: key) == Self.run)
        let received = try await server.received()
        #expect(received.count == 2)
        #expect(received.first?.headers["Idempotency-Key"] == "\"\(key.uuidString.lowercased())\"", "\(received)")
        #expect(received.allSatisfy { $0 == received.first }, "\(received)")
        #expect(log.all.count == 1 && log.all.allSatisfy { $0 <= .milliseconds(500) }, "\(log.all)")
    }

    /// Each start carries a key of its own: two starts are two runs.
    @Test func eachStartHasItsOwnKey() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(201, try Self.runJSON()), .json(201, try Self.runJSON())])
        defer { server.stop() }
        let fleet = makeFleet(server, log: SleepLog())
        _ = try await fleet.startRun()
        _ = try await fleet.startRun()
        let keys = try await server.received().compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 2 && Set(keys).count == 2 && keys.allSatisfy { $0.hasPrefix("\"") && $0.hasSuffix("\"") }, "\(keys)")
    }

    /// A check-out has no key: one that got no answer is reported at once, one request, no wait.
    @Test func aCheckOutThatGotNoAnswerIsNotSentAgain() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.drop, .json(201, "{}")])
        defer { server.stop() }
        let log = SleepLog()
        let error = await failure { () async throws(FleetServerError) in try await makeFleet(server, log: log).checkOut(badge: "4711") }
        guard case .unreachable = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(try await server.received().count == 1)
        #expect(log.all.isEmpty)
    }

    /// The key as the draft writes it: quotes and backslashes escaped (RFC 9651 §3.3.3).
    @Test func aKeyIsQuotedAsAStructuredFieldString() {
        #expect(IdempotencyKeyQuoting.quoted("8e03978e-40d5") == #""8e03978e-40d5""#)
        #expect(IdempotencyKeyQuoting.quoted(#"a"b\c"#) == #""a\"b\\c""#)
    }

    /// Reading a run, and reporting a callback (whose nonce makes a second report of a recorded
    /// callback a 409, read as already recorded), are harmless twice: each is sent again after
    /// the jitter when its first sending got no answer.
    @Test func aReadOrAReportThatGotNoAnswerIsSentAgain() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.drop, .json(200, try Self.runJSON()), .drop,
                                                     .json(409, #"{"error":"already_recorded","reason":"The item already has its outcome."}"#)])
        defer { server.stop() }
        let log = SleepLog()
        let passing = log.passingEveryWait()
        defer { passing.cancel() }
        let fleet = makeFleet(server, log: log)

        #expect(try await fleet.run(Self.run.id) == Self.run)
        let callback = try #require(URL(string: "https://handover.example.com/ulc/cb/\(Self.run.id)/\(UUID())/success?n=abc"))
        #expect(try await fleet.reportCallback(run: Self.run.id, url: callback) == .alreadyRecorded)

        #expect(try await server.received().map(\.method) == ["GET", "GET", "POST", "POST"])
        #expect(log.all.count == 2 && log.all.allSatisfy { $0 <= .milliseconds(500) }, "\(log.all)")
    }

    /// The API promises the dock a check-out's badge-lookup outage (503 without `Retry-After`,
    /// `badge_lookup_unavailable`) within 3 seconds, so that one is reported at once.
    @Test func aCheckOutsBadgeLookupOutageIsReportedAtOnce() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(503, #"{"error":"badge_lookup_unavailable","reason":"badge: the lookup is down."}"#)])
        defer { server.stop() }
        let log = SleepLog()
        let error = await failure { () async throws(FleetServerError) in try await makeFleet(server, log: log).checkOut(badge: "04A2241C") }
        #expect(error == .rejected(status: 503, error: "badge_lookup_unavailable", reason: "badge: the lookup is down."))
        #expect(try await server.received().count == 1)
        #expect(log.all.isEmpty)
    }

    /// `HandoverAPIConnection` sends its own requests, through the same loop: a busy server is
    /// asked again with the same request after its `Retry-After`, and a POST that got no answer is
    /// not sent again.
    @Test func theAPIConnectionWaitsOutABusyServerToo() async throws {
        guard await ScriptedServer.isAvailable() else { return }
        let server = try await ScriptedServer.start([.json(503, Self.overloaded, headers: ["Retry-After": "1"]), .json(200, #"{"ok":true}"#), .drop])
        defer { server.stop() }
        let log = SleepLog()
        let connection = HandoverAPIConnection(baseURL: server.baseURL, key: "hov_admin_key", session: .fresh(), clock: log.clock)
        let body = Data(#"{"kind":"approve"}"#.utf8)
        let call = Task { try await connection.send("POST", "/api/v1/operations", body: body) }
        log.endWaits(after: call)
        var waits = log.waits.makeAsyncIterator()
        let next = await waits.next()
        let wait = try #require(next)
        #expect(wait >= .seconds(1) && wait <= .milliseconds(1_500), "\(wait)")
        await log.pass(wait)
        #expect(try await call.value.body == Data(#"{"ok":true}"#.utf8))

        let error = await failure { () async throws(FleetServerError) in try await connection.send("POST", "/api/v1/operations", body: body) }
        guard case .unreachable = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        let received = try await server.received()
        #expect(received.count == 3 && log.all.count == 1, "\(received)")
        #expect(received.allSatisfy { $0 == received[0] } && received[0].body == #"{"kind":"approve"}"#
                    && received[0].headers["Authorization"] == "Bearer hov_admin_key", "\(received)")
    }

    /// Only a 503 (§15.6.4) and a 429 with `Retry-After` (RFC 6585 §4) are asked again; no other
    /// status from 100 to 599, with or without `Retry-After`.
    @Test func noOtherStatusIsAskedAgain() {
        let later = RetryAfter.seconds(1)
        for status in 100...599 {
            for retryAfter in [nil, later] {
                let again = BusyServerRetry.asksAgain(status: status, retryAfter: retryAfter, operationID: Operations.CreateLogoutRun.id)
                #expect(again == (status == 503 || (status == 429 && retryAfter != nil)), "\(status) \(String(describing: retryAfter))")
            }
        }
        #expect(!BusyServerRetry.asksAgain(status: 503, retryAfter: nil, operationID: Operations.CheckOutDevice.id))
        #expect(BusyServerRetry.asksAgain(status: 503, retryAfter: later, operationID: Operations.CheckOutDevice.id))
    }
}
