import FluentKit
import Foundation
import HandoverCore
@testable import HandoverServer
import LinkCallbacks
import SQLKit
import Testing

/// Many callbacks at once, as from a fleet of devices: the server records them many to a
/// transaction, and each must still be checked as if it came alone.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ConcurrentCallbackTests {
    @Test(arguments: TestDatabase.available)
    func aBurstOfCallbacksRecordsEachItemOnceAndFinishesEachRunOnce(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await Self.burst(test, spreadOver: [test])
        try await test.stop()
    }

    /// The same burst spread over two instances on one PostgreSQL database: their batches lock
    /// the same runs, and still each item records once and each run finishes once.
    @Test func aBurstSpreadOverTwoInstancesRecordsEachItemOnce() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        try await Self.burst(a, spreadOver: [a, b])
        try await b.stop()
        try await a.stop()
    }

    /// Registers apps, starts runs on `test`, sends every callback (twice) to the instances in
    /// turn, and checks the outcome on `test`.
    static func burst(_ test: TestServer, spreadOver instances: [TestServer]) async throws {
        let receiver = try await WebhookReceiver.start()
        let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.completed", "run.failed"]],
                                          key: test.adminKey)
        #expect(hook.status == 201)
        let apps = ["Notes", "Chart", "Scanner", "Mail", "Pager"]
        for name in apps { try await test.registerTarget(name) }
        let device = try await test.registerDevice()
        let runCount = 8
        var runs: [LogoutRunTests.Run] = []
        for _ in 0..<runCount { runs.append(try await LogoutRunTests.startRun(test, device: device)) }

        // Every item answered twice by the browser page (success), plus the launcher's report of
        // the same callback for the first app, plus a forged nonce per run; all at once, shuffled.
        enum Kind: Sendable { case page, report, forged }
        var requests: [(kind: Kind, run: String, url: String)] = []
        for run in runs {
            for app in apps {
                let link = try #require(run.link(app))
                let page = try LogoutRunTests.callback(link, "success", on: test)
                requests.append((.page, run.id, page))
                requests.append((.page, run.id, page))
                if app == "Notes" {
                    requests.append((.report, run.id, try UniversalLinkCallback(parsing: link).success.absoluteString))
                }
            }
            let forged = try LogoutRunTests.callback(try #require(run.link("Chart")), "error", on: test)
            requests.append((.forged, run.id, forged.replacingOccurrences(of: "?n=", with: "?n=AAAA")))
        }
        requests.shuffle()
        let statuses = try await withThrowingTaskGroup(of: (Kind, Int).self) { group in
            for (index, request) in requests.enumerated() {
                let instance = instances[index % instances.count]
                group.addTask {
                    switch request.kind {
                    case .page, .forged:
                        let url = request.url.replacingOccurrences(of: test.server.baseURL.absoluteString, with: instance.server.baseURL.absoluteString)
                        return (request.kind, try await instance.request(.GET, url).status)
                    case .report:
                        let reply = try await instance.request(.POST, "/api/v1/logout-runs/\(request.run)/callbacks", json: ["url": request.url],
                                                               key: device.key)
                        return (request.kind, reply.status)
                    }
                }
            }
            var statuses: [(Kind, Int)] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        let items = runCount * apps.count
        // Each item took exactly one outcome: one 200 among its answers (page or report), and 409s for the rest.
        #expect(statuses.filter { $0.1 == 200 }.count == items)
        #expect(statuses.filter { $0.1 == 409 }.count == items + runCount)
        #expect(statuses.filter { $0.0 == .forged }.allSatisfy { $0.1 == 404 })
        #expect(statuses.count == requests.count)

        for run in runs {
            let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: device.key)
            #expect(reply.json["status"] as? String == "completed")
            let states = (reply.json["items"] as? [[String: Any]] ?? []).map { $0["status"] as? String }
            #expect(states == Array(repeating: "succeeded", count: apps.count))
        }
        // One run.completed event per run, no more.
        #expect(try await test.server.deliverWebhooks() == runCount)
        #expect(receiver.deliveries.filter { $0.event == "run.completed" }.count == runCount)
        // A batch that finishes several runs writes their events together: each run's own, with its own receipt.
        let completed = receiver.deliveries.filter { $0.event == "run.completed" }
            .compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
        #expect(completed.compactMap { ($0["run"] as? [String: Any])?["id"] as? String }.sorted() == runs.map(\.id).sorted())
        #expect(completed.allSatisfy { ($0["receipt"] as? String)?.split(separator: ".").count == 3 }, "each event carries its run's receipt")
        // Each instance counts what it recorded; together, every callback once.
        var counted: [String: Int] = [:]
        for instance in instances {
            let metrics = try await instance.request(.GET, "/metrics").text
            for line in metrics.split(separator: "\n") where !line.hasPrefix("#") {
                let parts = line.split(separator: " ")
                if parts.count == 2, let value = Int(parts[1]) { counted[String(parts[0]), default: 0] += value }
            }
        }
        #expect(counted["handover_callbacks_total{outcome=\"success\"}"] == items)
        #expect(counted["handover_callbacks_total{outcome=\"replayed\"}"] == items + runCount)
        #expect(counted["handover_callbacks_total{outcome=\"unknown\"}"] == runCount)
        #expect(counted["handover_logout_runs_finished_total{status=\"completed\"}"] == runCount)
        try await receiver.stop()
    }
}

/// What a 2xx for a callback rests on with SQLite: the batch's COMMIT is written to the WAL and
/// synced (FULL), so it survives a power loss too, not only a killed process.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct SQLiteDurabilityTests {
    @Test func theDatabaseIsInWALModeAndSyncsEveryCommit() async throws {
        let test = try await TestServer.start(.sqlite)
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        let mode = try await sql.raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
        #expect(mode?.lowercased() == "wal")
        let sync = try await sql.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
        #expect(sync == 2)  // FULL
        try await test.stop()
    }

    /// The writer leaves the log's copying to the background pass (SQLite's own threshold is
    /// only a backstop), keeps its statement journals in memory, and the pass, on a reader
    /// connection, copies every frame the writer committed.
    @Test func theBackgroundPassCheckpointsWhatTheWriterCommitted() async throws {
        let test = try await TestServer.start(.sqlite)
        let writer = try #require(test.server.databases.primary as? any SQLDatabase)
        let threshold = try await writer.raw("PRAGMA wal_autocheckpoint").first()?.decode(column: "wal_autocheckpoint", as: Int.self)
        #expect(threshold == WALCheckpoint.writerBackstopPages)
        let tempStore = try await writer.raw("PRAGMA temp_store").first()?.decode(column: "temp_store", as: Int.self)
        #expect(tempStore == 2)  // MEMORY
        let checkpoint = try #require(test.server.connections.checkpoint())
        _ = try await checkpoint.pass()
        try await writer.raw("CREATE TABLE checkpoint_probe (value TEXT)").run()
        for value in 0..<20 { try await writer.raw("INSERT INTO checkpoint_probe VALUES (\(bind: String(repeating: "x", count: 2000 + value)))").run() }
        let pass = try await checkpoint.pass()
        #expect(pass.logFrames > 0)
        #expect(pass.checkpointed == pass.logFrames)
        try await test.stop()
    }

    /// The checkpoint has a connection of its own. It used to take the reader of one event loop,
    /// and each pass (ten a second, each syncing the database file) held back every read of that
    /// loop meanwhile: the API key of each request there, so that a closed loop's p99 was twice
    /// its p90's tail (issue 37). With the checkpoint's connection held for the whole test, every
    /// loop's reader still answers (on a reader of its own, the read waited for the pool to give
    /// up: an error).
    @Test func theCheckpointHoldsNoReaderOfAnyEventLoop() async throws {
        let test = try await TestServer.start(.sqlite)
        let application = test.server.application
        let checkpoint = try #require(test.server.connections.checkpoint())
        let held = try #require(checkpoint.connection as? any Database)
        try await held.transaction { _ in
            for loop in application.eventLoopGroup.makeIterator() {
                let reader = try #require(test.server.connections.reader(on: loop))
                #expect(try await reader.raw("SELECT 1 AS one").first()?.decode(column: "one", as: Int.self) == 1)
            }
        }
        #expect(try await checkpoint.pass().logFrames >= 0)
        try await test.stop()
    }
}
