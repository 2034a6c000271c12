import Foundation
import HandoverProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A shift change at hospital scale against running Handover servers: registers the apps and
/// the phones, then plays one launcher per phone through the real HTTP API (see
/// `ShiftChangeLauncher`: with ``ShiftChangePlan/checksOut``, each checks its phone out by badge
/// before its run) and checks afterwards that every acknowledged callback is recorded and every
/// custody checked in by its run.
///
/// ```swift
/// let bench = ShiftChangeBench(plan: ShiftChangePlan(devices: 300, apps: 7), servers: [url], adminKey: key)
/// let figures = try await bench.run { line in print(line) }
/// ```
public struct ShiftChangeBench: Sendable {
    public var plan: ShiftChangePlan
    /// The instances' origins; phones are split between them in turn.
    public var servers: [URL]
    public var adminKey: String
    /// `sqlite`, `postgres` or `external`, for the figures.
    public var databaseName: String

    public init(plan: ShiftChangePlan, servers: [URL], adminKey: String, databaseName: String) {
        self.plan = plan
        self.servers = servers
        self.adminKey = adminKey
        self.databaseName = databaseName
    }

    /// The phones registered for the storm.
    public struct Fleet: Sendable {
        var devices: [(id: UUID, key: String)]
        var appIDs: [UUID]
        /// What every phone's name starts with.
        var namePrefix: String
        /// The registration's random stamp, in every name and badge of the storm.
        var stamp: String
    }

    /// Registers `plan.apps` target apps (deadline `plan.deadlineSeconds`, two reissues) and
    /// `plan.devices` phones, 16 at a time; `progress` gets a line now and then.
    public func register(progress: @escaping @Sendable (String) -> Void) async throws -> Fleet {
        let http = BenchHTTP(connections: 16)
        defer { Task { await http.shutdown() } }
        let base = origin(0)
        let stamp = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var appIDs: [UUID] = []
        for index in 1...plan.apps {
            let app = Components.Schemas.AppInput(
                name: "bench-\(stamp)-app-\(index)", role: .target, appIDs: ["ABCDE12345.com.example.bench\(index)"],
                logoutAction: "https://bench-\(index).example.com/logout", deadlineSeconds: plan.deadlineSeconds, maxReissues: 2)
            let answer = try await send(http, .POST, "\(base)/api/v1/apps", app)
            guard answer.status == 201 || answer.status == 200 else {
                throw SimulatorError("registering app \(index): the server answered \(answer.status): \(String(buffer: answer.body))")
            }
            guard let created = try? answer.decode(Components.Schemas.App.self), let id = UUID(uuidString: created.id) else {
                throw SimulatorError("registering app \(index): the server's answer has no app id: \(String(buffer: answer.body))")
            }
            appIDs.append(id)
        }
        let devices = LockedList<[(number: Int, id: UUID, key: String)]>([])
        let names = (1...plan.devices).map { "bench-\(stamp)-phone-\(String(format: "%05d", $0))" }
        var failure: SimulatorError?
        await withTaskGroup(of: SimulatorError?.self) { group in
            var next = 0
            func add() {
                guard next < names.count else { return }
                let name = names[next]
                next += 1
                let number = next
                group.addTask {
                    do {
                        let answer = try await send(http, .POST, "\(base)/api/v1/devices", Components.Schemas.DeviceInput(name: name))
                        guard answer.status == 201 || answer.status == 200, let created = try? answer.decode(Components.Schemas.CreatedDevice.self),
                              let id = UUID(uuidString: created.device.id) else {
                            return SimulatorError("registering \(name): the server answered \(answer.status): \(String(buffer: answer.body))")
                        }
                        let count = devices.append((number, id, created.key))
                        if count % 1000 == 0 { progress("  \(count) of \(names.count) phones registered") }
                        return nil
                    } catch {
                        return SimulatorError("registering \(name): \(error)")
                    }
                }
            }
            for _ in 0..<16 { add() }
            for await result in group {
                if let result, failure == nil { failure = result }
                if failure == nil { add() }
            }
        }
        if let failure { throw failure }
        // In the order of their names, so that phone 42 is the fleet's 42nd (and gets badge 42).
        let registered = devices.value.sorted { $0.number < $1.number }.map { (id: $0.id, key: $0.key) }
        return Fleet(devices: registered, appIDs: appIDs, namePrefix: "bench-\(stamp)-phone-", stamp: stamp)
    }

    /// Plays the storm on `fleet` and checks what the server recorded. `progress` gets a line
    /// every two seconds.
    public func storm(_ fleet: Fleet, setupSeconds: Double, progress: @escaping @Sendable (String) -> Void) async -> ShiftChangeFigures {
        let http = BenchHTTP(connections: plan.connections * servers.count)
        let tally = StormTally()
        let launchers = makeLaunchers(fleet, http: http, tally: tally)
        // The custodies read back afterwards are those checked out from here on.
        let startedAt = Date()
        if plan.checksOut, !plan.checkOutInWindow {
            progress("  the previous shift: \(launchers.count) phones checked out by badge, 16 docks at once…")
            let began = ContinuousClock.now
            await Self.checkOut(launchers, tally: tally)
            let took = began.duration(to: .now)
            progress(String(format: "  %d checked out in %.1f s", tally.read(\.checkOutsDone),
                            Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
        }
        let probe = DashboardProbe(origin: origin(0), adminKey: adminKey)
        let browser = BenchHTTP(connections: plan.dashboards + 2)
        var watch: DashboardProbe.Watch?
        var dashboardCookie: String?
        if plan.dashboards > 0 || plan.pageSamples > 0 {
            do {
                dashboardCookie = try await probe.signIn(browser.client)
            } catch {
                progress("  the dashboard could not be signed in to: \(error)")
            }
        }
        if plan.dashboards > 0, let dashboardCookie {
            progress("  \(plan.dashboards) dashboards open on the live overview")
            watch = probe.watch(plan.dashboards, client: browser.client, cookie: dashboardCookie)
        }
        let recordBefore = await deadlineRecord(http)
        let auditBefore = await auditLogSize(http)
        let start = ContinuousClock.now
        let total = launchers.count
        let checksOut = plan.checksOut
        let reporter = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let line = tally.read { counts in
                    let elapsed = start.duration(to: .now)
                    let checkOuts = checksOut ? "\(counts.checkOutsDone) checked out, " : ""
                    return String(format: "  %5.1f s: ", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                        + checkOuts + String(format: "%d/%d runs started, %d done; %d callbacks recorded, %d deadlines fired",
                                  counts.runsStarted, total, counts.devicesDone, counts.callbacksAcknowledged, counts.deadlinesFired)
                }
                progress(line)
            }
        }
        await Self.play(launchers, start: start)
        reporter.cancel()
        let stormTook = start.duration(to: .now)
        watch?.stop()
        progress("  checking what the server recorded…")
        let verified = await verify(tally: tally, http: http)
        let custody = await CustodyReadBack(origin: origin(0), adminKey: adminKey, since: startedAt)
            .compare(tally.read(\.checkedOut), http: http)
        let recordAfter = await deadlineRecord(http)
        let auditAfter = await auditLogSize(http)
        let (answers, rateLimited, busy) = (http.answers, http.rateLimited, http.busy)
        await http.shutdown()
        var pages: [ShiftChangeFigures.PageTiming] = []
        if plan.pageSamples > 0, let dashboardCookie {
            progress("  timing the dashboard's pages, \(plan.pageSamples) loads each…")
            pages = await probe.time(dashboardPages(fleet, tally: tally), samples: plan.pageSamples, client: browser.client, cookie: dashboardCookie)
        } else if plan.pageSamples > 0 {
            pages = [.init(name: "sign-in", path: "/dashboard/sign-in", statuses: [0: 1], latency: LatencySummary(milliseconds: []))]
        }
        await browser.shutdown()
        var figures = tally.read { counts in
            let window = counts.firstCallback.flatMap { first in counts.lastCallback.map { first.duration(to: $0) } } ?? .zero
            let windowSeconds = max(0.001, Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18)
            return ShiftChangeFigures(
                plan: plan, database: databaseName, instances: servers.count, setupSeconds: setupSeconds,
                stormSeconds: Double(stormTook.components.seconds) + Double(stormTook.components.attoseconds) / 1e18,
                runs: .init(started: counts.runsStarted, refused: counts.runsRefused, completed: verified.completed,
                            failed: verified.failed, failedByTimeOut: verified.failedByTimeOut, unfinished: verified.unfinished),
                runStartLatency: LatencySummary(milliseconds: counts.runStartMilliseconds),
                callbacks: .init(acknowledged: counts.callbacksAcknowledged, recorded: verified.recorded, lost: verified.lost,
                                 viaBrowser: counts.viaBrowser, refused: counts.callbacksRefused,
                                 duplicatesRefused: counts.duplicatesRefused, duplicatesAccepted: counts.duplicatesAccepted,
                                 transportErrors: counts.transportErrors,
                                 latency: LatencySummary(milliseconds: counts.callbackMilliseconds),
                                 perSecond: Double(counts.callbacksAcknowledged) / windowSeconds),
                deadlines: .init(fired: counts.deadlinesFired, missed: counts.deadlinesMissed,
                                 lateness: LatencySummary(milliseconds: counts.latenessMilliseconds), stallsPlayed: counts.stallsPlayed),
                refusals: counts.refusals.merging(verified.problems) { $0 + $1 }.merging(custody.problems) { $0 + $1 })
        }
        if plan.checksOut {
            figures.checkOuts = tally.read { counts in
                .init(done: counts.checkOutsDone, refused: counts.checkOutsRefused, latency: LatencySummary(milliseconds: counts.checkOutMilliseconds),
                      recorded: custody.matched, unmatched: custody.unmatched)
            }
        }
        if let watch {
            figures.dashboards = .init(opened: plan.dashboards, connected: watch.connected, updates: watch.updates, dropped: watch.dropped)
        }
        figures.pages = pages
        (figures.answers, figures.rateLimited) = (answers, rateLimited)
        figures.shedding = tally.read { .init(busyAnswers: busy, startsRetried: $0.startsRetried, retries: $0.busyRetries) }
        if let auditBefore, let auditAfter {
            let handOvers = max(1, figures.runs.completed + figures.runs.failed)
            figures.auditLog = .init(before: auditBefore, after: auditAfter, perHandOver: Double(auditAfter - auditBefore) / Double(handOvers))
        }
        if let recordBefore, let recordAfter { figures.deadlines.serverRecord = recordAfter.subtracting(recordBefore) }
        return figures
    }

    /// One launcher per phone of `fleet`, each with its arrival in the window and what its apps
    /// do, drawn from the plan's seed (the same seed plays the same storm).
    func makeLaunchers(_ fleet: Fleet, http: BenchHTTP, tally: StormTally) -> [ShiftChangeLauncher] {
        var random = SeededGenerator(seed: plan.seed)
        // Each run logs out the storm's own apps, in their order, whatever else the server has registered.
        let runBody = (try? JSONSerialization.data(withJSONObject: ["apps": fleet.appIDs.map { $0.uuidString.lowercased() }])) ?? Data("{}".utf8)
        return fleet.devices.enumerated().map { index, device in
            let arrival = Duration.milliseconds(Int(Double.random(in: 0..<1, using: &random) * plan.windowSeconds * 1000))
            let parts = (0..<plan.apps).map { _ -> (ShiftChangePlan.AppPart, Duration, Bool, Bool) in
                let draw = Double.random(in: 0..<1, using: &random)
                let part: ShiftChangePlan.AppPart = draw < plan.stallRate ? .stalls : draw < plan.stallRate + plan.failureRate ? .fails : .answers
                let appTime = Duration.milliseconds(Int.random(in: plan.appTimeMilliseconds, using: &random))
                return (part, appTime, Double.random(in: 0..<1, using: &random) < plan.browserShare,
                        Double.random(in: 0..<1, using: &random) < plan.duplicateRate)
            }
            // Phone 42's badge names a person of its own (`nurse-<stamp>-00042@bench.example`).
            let badge = plan.checksOut ? BadgeDirectory.badge(stamp: fleet.stamp, number: index + 1) : nil
            var launcher = ShiftChangeLauncher(base: origin(index % servers.count), baseIndex: index % servers.count, deviceID: device.id,
                                               key: device.key, badge: badge, runBody: runBody, arrival: arrival, deadline: .seconds(plan.deadlineSeconds),
                                               parts: parts.map { ($0.0, $0.1, $0.2, $0.3) }, http: http, tally: tally)
            launcher.checkOutInWindow = plan.checkOutInWindow
            return launcher
        }
    }

    /// The dashboard's custody CSV (`/dashboard/custody.csv`) of every custody checked out since
    /// 00:00 UTC of the day `since` falls on: the storm's day, or days when it crossed midnight.
    /// Signs in to the dashboard with the admin key, as a browser does.
    public func custodyCSV(since: Date) async throws -> String {
        let browser = BenchHTTP(connections: 2)
        do {
            let csv = try await DashboardProbe(origin: origin(0), adminKey: adminKey).custodyCSV(since: since, client: browser.client)
            await browser.shutdown()
            return csv
        } catch {
            await browser.shutdown()
            throw error
        }
    }

    /// Plays every launcher from `start`, in waves of 64 in the order they arrive: a task group
    /// of its own for each wave, and one over the waves. A task group finds a finished child by
    /// walking its list of children, so one group of every phone (28,000 at twice the knee) spent
    /// a tenth of the generator's CPU there (`perf`), CPU the server on the same machine lacked.
    static func play(_ launchers: [ShiftChangeLauncher], start: ContinuousClock.Instant) async {
        let ordered = launchers.sorted { $0.arrival < $1.arrival }
        let waves = stride(from: 0, to: ordered.count, by: 64).map { Array(ordered[$0..<min($0 + 64, ordered.count)]) }
        await withTaskGroup(of: Void.self) { group in
            for wave in waves {
                group.addTask {
                    try? await Task.sleep(until: start + wave[0].arrival, clock: .continuous)
                    await withTaskGroup(of: Void.self) { inner in
                        for launcher in wave { inner.addTask { await launcher.play(start: start) } }
                    }
                }
            }
        }
    }

    /// Checks every launcher's phone out, 16 at a time (docks at a ward's entrance), keeping each
    /// custody for the run that will check it in.
    static func checkOut(_ launchers: [ShiftChangeLauncher], tally: StormTally) async {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                guard next < launchers.count else { return }
                let launcher = launchers[next]
                next += 1
                group.addTask {
                    guard let checkedOut = await launcher.checkOut() else { return }
                    tally.update { $0.checkedOutBefore[checkedOut.device] = checkedOut }
                }
            }
            for _ in 0..<16 { add() }
            for await _ in group { add() }
        }
    }

    /// The servers' deadline lateness histograms (`/metrics`), added up; nil when a server has none.
    /// The audit log's size (every instance shares it), or nil for a server without one.
    private func auditLogSize(_ http: BenchHTTP) async -> Int? {
        guard let answer = try? await http.send(.GET, origin(0) + "/api/v1/audit/entries?start=0&end=0", key: adminKey), answer.isSuccess,
              let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: answer.body).utf8)) as? [String: Any] else { return nil }
        return object["treeSize"] as? Int
    }

    private func deadlineRecord(_ http: BenchHTTP) async -> DeadlineLatenessRecord? {
        var total: DeadlineLatenessRecord?
        for index in servers.indices {
            guard let answer = try? await http.send(.GET, origin(index) + "/metrics"), answer.isSuccess,
                  let record = DeadlineLatenessRecord(exposition: String(buffer: answer.body)) else { return nil }
            total = total.map { $0.adding(record) } ?? record
        }
        return total
    }

    /// The pages IT opens during a shift change: the overview, a search of the device list, an
    /// app's scorecard, the list of scorecards, a run's timeline.
    private func dashboardPages(_ fleet: Fleet, tally: StormTally) -> [(name: String, path: String)] {
        // A search that matches ten phones of the fleet (their numbers' last digit differs).
        let probeNumber = max(1, fleet.devices.count / 2) / 10
        var pages: [(name: String, path: String)] = [
            ("overview", "/dashboard"),
            ("device search", "/dashboard/devices?q=" + (fleet.namePrefix + String(format: "%04d", probeNumber))),
            ("device list, last page", "/dashboard/devices?page=\(max(1, (fleet.devices.count + 49) / 50))"),
            ("scorecards", "/dashboard/scorecards"),
        ]
        if let app = fleet.appIDs.first { pages.append(("scorecard", "/dashboard/scorecards/\(app.uuidString.lowercased())")) }
        if let run = tally.read({ $0.runs.first?.0 }) { pages.append(("run timeline", "/dashboard/runs/\(run.uuidString.lowercased())")) }
        return pages
    }

    private struct Verified {
        var completed = 0, failed = 0, failedByTimeOut = 0, unfinished = 0, recorded = 0, lost = 0
        var problems: [String: Int] = [:]
    }

    /// Reads every run back (16 at a time) and compares each acknowledged callback with its item.
    private func verify(tally: StormTally, http: BenchHTTP) async -> Verified {
        let (runs, acknowledged) = tally.read { ($0.runs, $0.acknowledged) }
        let expected = Dictionary(grouping: acknowledged, by: \.run)
        var verified = Verified()
        await withTaskGroup(of: Verified.self) { group in
            var next = 0
            func add() {
                guard next < runs.count else { return }
                let (run, key, baseIndex) = runs[next]
                next += 1
                let items = expected[run] ?? []
                let base = origin(baseIndex)
                group.addTask {
                    var one = Verified()
                    guard let answer = try? await http.send(.GET, "\(base)/api/v1/logout-runs/\(run.uuidString.lowercased())", key: key),
                          answer.isSuccess, let view = try? answer.decode(LogoutRunView.self) else {
                        one.problems["run unreadable after the storm", default: 0] += 1
                        one.unfinished = 1
                        one.lost = items.count
                        return one
                    }
                    switch view.status {
                    case .completed: one.completed = 1
                    case .failed:
                        one.failed = 1
                        if view.items.contains(where: { $0.status == .timedOut }) { one.failedByTimeOut = 1 }
                    default: one.unfinished = 1
                    }
                    for item in items {
                        let status = view.items.first { $0.id == item.item }?.status
                        if status == (item.succeeded ? .succeeded : .failed) { one.recorded += 1 } else { one.lost += 1 }
                    }
                    return one
                }
            }
            for _ in 0..<16 { add() }
            for await one in group {
                verified.completed += one.completed
                verified.failed += one.failed
                verified.failedByTimeOut += one.failedByTimeOut
                verified.unfinished += one.unfinished
                verified.recorded += one.recorded
                verified.lost += one.lost
                verified.problems.merge(one.problems) { $0 + $1 }
                add()
            }
        }
        return verified
    }

    private func origin(_ index: Int) -> String {
        let text = servers[index].absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// Sends a registration; a server that answers `503` with `Retry-After` (busy: shedding, or
    /// its database pool lent no connection in time) is asked again as the SDK would.
    private func send(_ http: BenchHTTP, _ method: HTTPMethod, _ url: String, _ body: some Encodable) async throws -> BenchHTTP.Answer {
        try await http.sendWaitingOutBusy(method, url, key: adminKey, json: try JSONEncoder().encode(body)).answer
    }
}

/// A value behind a lock (the phones registered so far); for an array, `append` returns the new count.
final class LockedList<Element: Sendable>: Sendable {
    private let box: NIOLockedValueBox<Element>
    init(_ value: Element) { box = NIOLockedValueBox(value) }
    var value: Element { box.withLockedValue { $0 } }
}

extension LockedList {
    func append<Item>(_ item: Item) -> Int where Element == [Item] {
        box.withLockedValue { $0.append(item); return $0.count }
    }
}
