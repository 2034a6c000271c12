import Foundation
import Testing
import TestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 64, item 5: during a shift change on PostgreSQL with two instances, one instance is
/// SIGKILLed and PostgreSQL is restarted (fast shutdown). Every hand-over is recorded exactly once:
/// one run a phone, every callback recorded once, none lost and none doubled.
///
/// The launchers behave as the SDK does behind a load balancer: a request that got no answer, or a
/// 5xx, goes again to the next instance. A run start carries an `Idempotency-Key`, so sending it
/// again never starts a second run (draft-ietf-httpapi-idempotency-key-header §2.6); a callback
/// sent again is recorded once by its nonce (a 409 `already_recorded` for a report whose first
/// sending was recorded but whose answer was lost).
///
/// It runs its own PostgreSQL cluster (`scripts/start-postgres.sh`), so the restart touches no
/// other test; and only when `HANDOVER_FAILOVER_PHONES` says how many phones (`.ci/run` runs it
/// alone), with the PostgreSQL server binaries installed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FailoverTests {
    static let phones = ProcessInfo.processInfo.environment["HANDOVER_FAILOVER_PHONES"].flatMap(Int.init)
    static let apps = 3
    /// The most phones handing over at once.
    static let launchers = 40
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyHandOverIsRecordedOnceThroughAKilledInstanceAndAPostgreSQLRestart() async throws {
        guard let phones = Self.phones else {
            print("failover: skipped: set HANDOVER_FAILOVER_PHONES (.ci/run runs it alone with 300)")
            return
        }
        let repository = Self.repository
        guard let cluster = try await ChildProcess.onOwnThread({ try PrivateCluster.start(repository: repository) }) else {
            print("failover: skipped: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin); .ci/run installs them")
            return
        }
        defer { cluster.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-failover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let logs = [work.appendingPathComponent("server-0.log"), work.appendingPathComponent("server-1.log")]
        let first = try await ServerProcess.start(dataDirectory: work.appendingPathComponent("data-0"), environment: ["LOG_LEVEL": "warning"],
                                                  arguments: ["--database", cluster.url], errorLog: logs[0])
        defer { first.terminateInBackground() }
        let sharedKey = try String(contentsOf: work.appendingPathComponent("data-0/token-encryption.key"), encoding: .utf8)
        let second = try await ServerProcess.start(dataDirectory: work.appendingPathComponent("data-1"),
                                                   environment: ["HANDOVER_TOKEN_ENCRYPTION_KEY": sharedKey.trimmingCharacters(in: .whitespacesAndNewlines),
                                                                 "LOG_LEVEL": "warning"],
                                                   arguments: ["--database", cluster.url], errorLog: logs[1])
        let adminKey = try #require(first.firstAdminKey)
        let client = FailoverClient(instances: [first.baseURL, second.baseURL])

        // Apps whose deadlines no stall reaches, and the phones, on the first instance.
        for index in 1...Self.apps {
            let reply = try await client.send("POST", "/api/v1/apps", instance: 0, key: adminKey, json: [
                "name": "failover-\(index)", "appIDs": ["ABCDE12345.com.example.failover\(index)"],
                "logoutAction": "https://failover-\(index).example.com/logout", "deadlineSeconds": 300, "maxReissues": 1,
            ])
            #expect(reply.status == 201, "\(reply.text)")
        }
        var devices: [(id: String, key: String)] = []
        for index in 0..<phones {
            let reply = try await client.send("POST", "/api/v1/devices", instance: 0, key: adminKey, json: ["name": "failover-phone-\(index)"])
            let device = reply.json["device"] as? [String: Any]
            devices.append((device?["id"] as? String ?? "", reply.json["key"] as? String ?? ""))
        }

        // The storm: at most `launchers` phones handing over at once, the next one starting as one
        // ends, half on each instance. Once a quarter of the phones have their run, the second
        // instance is killed; once half have, PostgreSQL restarts. Events, not times: on a slower
        // machine both still fall in the middle of the storm.
        let started = ContinuousClock.now
        let tally = FailoverTally()
        let outcome = await withTaskGroup(of: (device: String, run: String?)?.self) { group in
            group.addTask {
                await tally.untilRunsStarted(phones / 4)
                _ = try? await ChildProcess.onOwnThread { second.kill() }
                await tally.untilRunsStarted(phones / 2)
                let restart = ContinuousClock.now
                tally.markRestart(restart)
                let restarted = (try? await ChildProcess.onOwnThread { cluster.restart() }) ?? false
                tally.note(restart: restart.duration(to: .now), ok: restarted)
                return nil
            }
            var next = 0
            func launch() {
                guard next < devices.count else { return }
                let (index, device) = (next, devices[next])
                next += 1
                group.addTask { (device.id, await client.handOver(device: device, preferring: index % 2, tally: tally)) }
            }
            for _ in 0..<Self.launchers { launch() }
            var runs: [String: String] = [:]
            var ended = 0
            for await result in group {
                guard let result else { continue }
                if let run = result.run { runs[result.device] = run }
                ended += 1
                // Should starts fail so that an event is never reached, the storm's end releases it.
                if ended == devices.count { tally.stormEnded() }
                launch()
            }
            return runs
        }
        let elapsed = started.duration(to: .now)

        // Every phone got a run, and has exactly that one: one `run_started` in its history.
        #expect(outcome.count == phones, "\(phones - outcome.count) phones got no run; \(tally.summary)")
        var doubled = 0, unfinished = 0
        for device in devices {
            let history = try await client.send("GET", "/api/v1/devices/\(device.id)/history", instance: 0, key: adminKey)
            let starts = (history.array).filter { $0["event"] as? String == "run_started" }.compactMap { ($0["runID"] as? String)?.lowercased() }
            if starts.count != 1 || starts.first != outcome[device.id]?.lowercased() { doubled += 1 }
            guard let run = outcome[device.id] else { continue }
            let view = try await client.send("GET", "/api/v1/logout-runs/\(run)", instance: 0, key: adminKey).json
            let items = view["items"] as? [[String: Any]] ?? []
            if view["status"] as? String != "completed" || items.count != Self.apps || !items.allSatisfy({ $0["status"] as? String == "succeeded" }) {
                unfinished += 1
            }
        }
        #expect(doubled == 0, "\(doubled) phones have a run count other than one, or another run than the one answered")
        #expect(unfinished == 0, "\(unfinished) runs not completed with every item recorded")
        #expect(tally.callbacksRecorded == phones * Self.apps, "\(tally.summary)")
        #expect(tally.restartOK, "pg_ctl restart failed")
        // The outage answered as one: 503 with Retry-After (DatabaseOutage), never a 500.
        #expect(tally.otherServerErrors == 0, "\(tally.summary)")
        if doubled + unfinished + tally.otherServerErrors > 0 || tally.callbacksRecorded != phones * Self.apps {
            for (index, file) in logs.enumerated() {
                let log = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                // The errors first (a 500 is logged with its cause), then the last lines.
                let lines = log.split(separator: "\n")
                print("failover: server \(index)'s errors:\n" + lines.filter { $0.contains(" error ") }.prefix(20).joined(separator: "\n"))
                print("failover: server \(index)'s log, its last lines:\n" + lines.suffix(12).joined(separator: "\n"))
            }
        }
        print("failover: \(phones) phones x \(Self.apps) apps over two instances in \(elapsed); \(tally.summary); "
              + "every hand-over recorded once (\(doubled) doubled, \(unfinished) unfinished)")
    }
}

/// What the launchers met: the retries, the refusals, when the database answered again.
final class FailoverTally: @unchecked Sendable {
    private let lock = NSLock()
    private var retriedAfterNoAnswer = 0
    private var retriedAfter5xx = 0
    private var unavailable = 0
    private var internalErrors = 0
    private var longest: Duration = .zero
    private var recorded = 0
    private var recordedBefore = 0
    private var restartTook: Duration = .zero
    private var restarted = false
    private var restartAt: ContinuousClock.Instant?
    private var firstAnswerAfterRestart: Duration?
    private var refusals: [String] = []
    private var runsStarted = 0
    private var ended = false
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func update(_ body: (FailoverTally) -> Void) { lock.lock(); body(self); lock.unlock() }

    /// A phone's run started (its start answered 201).
    func runStarted() { release { $0.runsStarted += 1 } }
    /// Every phone's hand-over ended: whatever still waits for a count goes on.
    func stormEnded() { release { $0.ended = true } }
    /// Returns once `count` runs have started, or the storm ended.
    func untilRunsStarted(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            let ready = ended || runsStarted >= count
            if !ready { waiters.append((count, continuation)) }
            lock.unlock()
            if ready { continuation.resume() }
        }
    }

    private func release(_ change: (FailoverTally) -> Void) {
        lock.lock()
        change(self)
        let due = waiters.filter { ended || runsStarted >= $0.count }
        waiters.removeAll { ended || runsStarted >= $0.count }
        lock.unlock()
        for waiter in due { waiter.continuation.resume() }
    }
    func noAnswer() { update { $0.retriedAfterNoAnswer += 1 } }
    /// An answer the storm did not expect: what was asked, and what came back.
    func refused(_ what: String) { update { $0.refusals.append(what) } }
    func serverError(_ status: Int) {
        update {
            $0.retriedAfter5xx += 1
            if status == 503 { $0.unavailable += 1 } else { $0.internalErrors += 1 }
        }
    }
    /// A request answered below 500 after `waited`, its retries included.
    func settled(after waited: Duration) { update { $0.longest = max($0.longest, waited) } }
    /// A callback recorded: by this sending (200), or by an earlier one whose answer was lost (409).
    func recorded(earlier: Bool) { update { $0.recorded += 1; if earlier { $0.recordedBefore += 1 } } }
    func note(restart: Duration, ok: Bool) { update { $0.restartTook = restart; $0.restarted = ok } }
    func markRestart(_ instant: ContinuousClock.Instant) { update { $0.restartAt = instant } }
    /// A 2xx answer arrived at `instant`.
    func answered(at instant: ContinuousClock.Instant) {
        update {
            if let at = $0.restartAt, $0.firstAnswerAfterRestart == nil, instant > at { $0.firstAnswerAfterRestart = at.duration(to: instant) }
        }
    }

    var callbacksRecorded: Int { lock.lock(); defer { lock.unlock() }; return recorded }
    var restartOK: Bool { lock.lock(); defer { lock.unlock() }; return restarted }
    /// 5xx answers other than 503: an outage the server did not name as one.
    var otherServerErrors: Int { lock.lock(); defer { lock.unlock() }; return internalErrors }
    var summary: String {
        lock.lock(); defer { lock.unlock() }
        let back = firstAnswerAfterRestart.map { "\($0)" } ?? "never"
        return "\(recorded) callbacks recorded (\(recordedBefore) by a sending whose answer was lost), "
            + "\(retriedAfterNoAnswer) requests sent again after no answer, \(retriedAfter5xx) after a 5xx (\(unavailable) of them 503); "
            + "pg_ctl restart took \(restartTook), the first 2xx after it began came \(back) later; "
            + "the longest a request took to be answered, its retries included: \(longest)"
            + (refusals.isEmpty ? "" : "; unexpected answers:\n  " + refusals.joined(separator: "\n  "))
    }
}

/// A launcher behind a load balancer: a request that gets no answer or a 5xx goes to the next
/// instance after a short wait, for up to a minute.
struct FailoverClient: Sendable {
    let instances: [URL]

    struct Reply: Sendable {
        var status: Int
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var array: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body) as? [[String: Any]]) ?? [] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(_ method: String, _ path: String, instance: Int, key: String, json: Any? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: instances[instance % instances.count].appendingPathComponent(path), timeoutInterval: 15)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
    }

    /// Sends until an answer below 500, moving to the next instance after each failure; nil after a minute.
    func sendFailingOver(_ method: String, _ path: String, preferring instance: Int, key: String, json: Any? = nil,
                         headers: [String: String] = [:], tally: FailoverTally) async -> Reply? {
        let began = ContinuousClock.now
        let deadline = began + .seconds(60)
        var attempt = instance
        var trace: [String] = []
        defer { if ContinuousClock.now >= deadline { tally.refused("\(method) \(path) trace: " + trace.joined(separator: ", ")) } }
        while ContinuousClock.now < deadline {
            let sent = ContinuousClock.now
            defer { trace.append("#\(attempt % instances.count) at \(began.duration(to: sent).components.seconds)s took \(sent.duration(to: .now).components.seconds)s") }
            do {
                let reply = try await send(method, path, instance: attempt, key: key, json: json, headers: headers)
                trace.append("\(reply.status)")
                if reply.status < 500 {
                    tally.settled(after: began.duration(to: .now))
                    // A 4xx goes back to the hand-over, which names what it did not expect.
                    if reply.status < 300 { tally.answered(at: .now) }
                    return reply
                }
                tally.serverError(reply.status)
                if reply.status != 503 { tally.refused("\(method) \(path): \(reply.status) \(reply.text.prefix(120))") }
            } catch {
                tally.noAnswer()
            }
            attempt += 1
            try? await Task.sleep(for: .milliseconds(Int.random(in: 100...300)))
        }
        return nil
    }

    /// One phone's hand-over: the run started with its key, then each app's callback reported
    /// (a 409 `already_recorded` is a report recorded by an earlier sending). The run's id.
    func handOver(device: (id: String, key: String), preferring instance: Int, tally: FailoverTally) async -> String? {
        let key = "\"\(UUID().uuidString.lowercased())\""
        guard let start = await sendFailingOver("POST", "/api/v1/devices/\(device.id)/logout-runs", preferring: instance, key: device.key,
                                                headers: ["Idempotency-Key": key], tally: tally),
              start.status == 201, let run = start.json["id"] as? String else {
            tally.refused("start \(device.id): no 201 in a minute")
            return nil
        }
        tally.runStarted()
        for item in start.json["items"] as? [[String: Any]] ?? [] {
            guard let link = item["link"] as? String, let callback = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "ulc-success" })?.value,
                  let reply = await sendFailingOver("POST", "/api/v1/logout-runs/\(run)/callbacks", preferring: instance, key: device.key,
                                                    json: ["url": callback], tally: tally) else { continue }
            if reply.status == 200 { tally.recorded(earlier: false) }
            if reply.status == 409, reply.json["error"] as? String == "already_recorded" {
                tally.recorded(earlier: true)
            } else if reply.status != 200 {
                tally.refused("callback of \(run): \(reply.status) \(reply.text.prefix(200))")
            }
        }
        return run
    }
}

/// A PostgreSQL cluster of the test's own (`scripts/start-postgres.sh` on a free port), which it
/// may restart without touching anything else.
struct PrivateCluster: Sendable {
    let url: String
    let data: String
    let repository: URL

    static func start(repository: URL) throws -> PrivateCluster? {
        let bins = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard bins.contains(where: { FileManager.default.fileExists(atPath: "/usr/lib/postgresql/\($0)/bin/pg_ctl") }) else { return nil }
        let output = try run(["bash", repository.appendingPathComponent("scripts/start-postgres.sh").path, String(try LoopbackPort.free())])
        func value(_ name: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }.map { String($0.dropFirst("export \(name)=".count)) }
        }
        guard let url = value("HANDOVER_PG_URL"), let data = value("HANDOVER_PG_DATA") else {
            throw ServerProcessError(description: "start-postgres.sh printed no URL: \(output)")
        }
        return PrivateCluster(url: url, data: data, repository: repository)
    }

    /// `pg_ctl restart -m fast` (every connection closed, the cluster back with its options); whether it succeeded.
    func restart() -> Bool {
        let bins = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        guard let version = bins.last else { return false }
        let pgCtl = "/usr/lib/postgresql/\(version)/bin/pg_ctl"
        let command = getuid() == 0 ? ["runuser", "-u", "postgres", "--", pgCtl] : [pgCtl]
        // The log as the first start wrote it: without -l the postmaster would keep this pipe open.
        return (try? Self.run(command + ["-D", data, "-l", data + "/server.log", "-w", "-m", "fast", "restart"])) != nil
    }

    func stop() {
        _ = try? Self.run(["bash", repository.appendingPathComponent("scripts/stop-postgres.sh").path, data])
    }

    /// Runs `command` to its end and returns what it printed (into a file). Spawned and reaped
    /// here, not with Foundation's `Process`: that one learns of a child's exit when every holder
    /// of a socket it hands the child closes it, and the postmaster pg_ctl leaves running holds it.
    @discardableResult
    static func run(_ command: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("failover-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, command[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw ServerProcessError(description: "\(command[0]) could not start: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw ServerProcessError(description: "\(command.joined(separator: " ")) exited with status \(status)") }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
